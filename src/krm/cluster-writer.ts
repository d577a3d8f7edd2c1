import { SLOT, SLOT_MARK, fill, recipeOf, slotToken, type ClusterTemplate, type ClusterText, type Recipe } from '../render/cluster-text.js';
import type { KubeObject } from '../render/object.js';
import { fileAnnotations, withFileAnnotations } from './annotations.js';
import { ByteSink } from './yaml/byte-sink.js';
import { emitObjectItemTo, emitSequenceItemTo, stringValueText } from './yaml/emitter.js';

/**
 * A rendered object as an item of the output ResourceList (`- ` at column `indent`), its file
 * annotations after its own, and, before the first object of a cluster, the "GENERATED" comment.
 */
export function emitGeneratedObject(out: ByteSink, indent: number, object: KubeObject, path: string, index: number, header?: string): void {
  if (header) out.write(headerLine(indent, header));
  // The file annotations are written after the object's own, as withFileAnnotations puts them,
  // without copying the object to add them.
  if (!emitObjectItemTo(object, indent, out, fileAnnotations(path, index)))
    emitSequenceItemTo(withFileAnnotations(object, path, index), indent, out);
}

/** The comment a cluster's first object starts with (generatedHeader), at the items' column. */
const headerLine = (indent: number, header: string): string => `${' '.repeat(indent)}# ${header}\n`;

/**
 * A blank of a recorded text: the string value it stands for, written at column `col`. Blanks of
 * one recipe at one column write the same text: `text` numbers them, so each is made once per cluster.
 */
interface Blank {
  recipe: Recipe;
  col: number;
  text: number;
}

/** A cluster template's objects as emitGeneratedObject writes them, with blanks left as blanks. */
class BlankRecorder extends ByteSink {
  override readonly blankMark = SLOT_MARK;
  readonly parts: (Buffer | Blank)[] = [];
  private readonly texts = new Map<string, number>();

  override blank(value: string, col: number): void {
    const recipe = recipeOf(value);
    if (recipe === undefined) throw new Error(`internal error: ${JSON.stringify(value)} holds the blanks' mark but no blank`);
    const same = `${col}:${value}`;
    let text = this.texts.get(same);
    if (text === undefined) {
      text = this.texts.size;
      this.texts.set(same, text);
    }
    this.parts.push(this.take(), { recipe, col, text });
  }

  get textCount(): number {
    return this.texts.size;
  }
}

interface RecordedText {
  /** The text between blanks, and the blanks. */
  parts: readonly (string | Blank)[];
  /** How many different texts its blanks write. */
  texts: number;
}

const texts = new WeakMap<ClusterTemplate, Map<number, RecordedText>>();

function textOf(template: ClusterTemplate, indent: number): RecordedText {
  let byIndent = texts.get(template);
  if (byIndent === undefined) {
    byIndent = new Map();
    texts.set(template, byIndent);
  }
  let parts = byIndent.get(indent);
  if (parts === undefined) {
    const recorder = new BlankRecorder(4096);
    template.objects.forEach((object, index) => {
      emitGeneratedObject(recorder, indent, object, slotToken(SLOT.path), index);
    });
    recorder.parts.push(recorder.take());
    const between = (p: Buffer | Blank): p is Buffer => Buffer.isBuffer(p);
    // A frozen part (render/frozen.ts) is written from its cached bytes, blanks and all: it must not hold one.
    if (recorder.parts.some((p) => between(p) && p.includes(SLOT_MARK)))
      throw new Error('internal error: a blank in a frozen part of a rendered object (render/frozen.ts)');
    parts = {
      parts: recorder.parts.filter((p) => !between(p) || p.length > 0).map((p) => (between(p) ? p.toString('utf8') : p)),
      texts: recorder.textCount,
    };
    byIndent.set(indent, parts);
  }
  return parts;
}

/**
 * A cluster on the text path (render/cluster-text.ts), written as emitGeneratedObject writes each
 * of its objects: the template's text, each blank written as the string value it is for this
 * cluster.
 */
export function writeClusterText(out: ByteSink, indent: number, text: ClusterText, path: string, header: string): void {
  const values = text.values;
  values[SLOT.path] = path;
  const recorded = textOf(text.template, indent);
  const made: (string | undefined)[] = new Array(recorded.texts);
  // One string for the cluster, handed to the UTF-8 encoder once.
  let all = headerLine(indent, header);
  for (const part of recorded.parts) {
    if (typeof part === 'string') {
      all += part;
      continue;
    }
    let value = made[part.text];
    if (value === undefined) {
      value = stringValueText(fill(part.recipe, values), part.col);
      made[part.text] = value;
    }
    all += value;
  }
  out.write(all);
}
