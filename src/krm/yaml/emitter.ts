/**
 * A small YAML emitter for the plain data the renderer produces (objects, arrays, strings,
 * numbers, booleans, null). The general-purpose `yaml` stringifier dominated render time on large
 * menus; this one writes the same documents several times faster. Its output style is fixed:
 * block mappings, compact sequences (`- ` under the key, as kubectl prints), literal blocks for
 * multi-line text, and double quotes for any string a YAML 1.1 or 1.2 reader could take for
 * something else. A property test checks that `yaml.parse` reads back exactly what went in.
 */

import { ByteSink } from './byte-sink.js';

type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

/**
 * Whether a string may be written plain (unquoted): it starts with a letter, `_`, `/`, `$`, `(`, or
 * `-` and a letter or `-`; holds only letters, digits and ` _./$()@%=,+*|~:-`; is not a word a
 * YAML 1.1 reader takes for a boolean or null; does not end with a space or `:`; and holds no
 * `: `, ` #` or two spaces. (As the regular expressions test/support/reference-emitter.ts keeps,
 * in one pass: this runs for every value a render writes for the first time.)
 */
function plainOk(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  let c = s.charCodeAt(0);
  let i = 1;
  if (c === 45 /* - */) {
    if (n < 2) return false;
    c = s.charCodeAt(1);
    if (!(isLetter(c) || c === 45)) return false;
    i = 2;
  } else if (!(isLetter(c) || c === 95 || c === 47 || c === 36 || c === 40)) return false;
  let prev = c;
  for (; i < n; i++) {
    c = s.charCodeAt(i);
    if (c >= 128 || PLAIN_REST[c] !== 1) return false;
    // `: ` and two spaces (` #` cannot occur: `#` is not in the set).
    if (c === 32 && (prev === 58 || prev === 32)) return false;
    prev = c;
  }
  if (prev === 32 || prev === 58) return false;
  return n > 5 || !AMBIGUOUS.has(s);
}

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** The characters a plain scalar may hold after its first: 1 per ASCII code. */
const PLAIN_REST = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 _./$()@%=,+*|~:-') PLAIN_REST[c.charCodeAt(0)] = 1;
/** Words YAML 1.1 readers take for booleans or null. */
const AMBIGUOUS = new Set('y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL ~'.split(' '));

// What YAML readers do not take raw: C0 controls but tab and line feed, DEL, the C1 controls
// (U+0085 among them, a line break to YAML 1.1), the BOM, U+2028/U+2029 (line breaks to YAML 1.1)
// and the non-characters U+FFFE/U+FFFF. go-yaml (kubectl, kpt, kustomize) rejects or folds each.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for (a block scalar cannot hold them)
const PRINTABLE_BLOCK = /^[^\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]*$/;
// JSON.stringify escapes the C0 controls; these others it writes raw.
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
const RAW_IN_JSON_ALL = new RegExp(RAW_IN_JSON.source, 'g');
const escapeCode = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATE_ALL = new RegExp(LONE_SURROGATE.source, 'g');
/**
 * A double-quoted scalar every YAML reader takes. A lone surrogate (only JSON input can hold one)
 * has no UTF-8 form, and go-yaml refuses its escape: it is written as U+FFFD, as Node's UTF-8
 * encoder writes it anywhere else.
 */
function doubleQuoted(s: string): string {
  const json = JSON.stringify(LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATE_ALL, '\ufffd') : s);
  return RAW_IN_JSON.test(json) ? json.replace(RAW_IN_JSON_ALL, escapeCode) : json;
}

/** Rendered manifests repeat the same keys and values thousands of times: decide each once. */
const scalarCache = new Map<string, string>();

function scalar(s: string): string {
  let out = scalarCache.get(s);
  if (out === undefined) {
    out = plainOk(s) ? s : doubleQuoted(s);
    if (scalarCache.size < 100_000) scalarCache.set(s, out);
  }
  return out;
}

// YAML readers (go-yaml and the `yaml` package alike) end an implicit key after 1024 characters.
const IMPLICIT_KEY_MAX = 1000;

// The pieces of a line are cached as whole strings, so the output is mostly made of shared
// strings rather than freshly concatenated ones: less to allocate and collect.
const indents: string[] = [];
const indent = (col: number): string => (indents[col] ??= ' '.repeat(col));

/**
 * `<indent>key:` per column. A key too long to be an implicit key is written as an explicit one,
 * `? key` then `:` at the mapping's column `colonCol` (which differs when the key follows a `- `).
 */
const keyLines: Array<Map<string, string>> = [];
/** The cache for column `col` of a per-column cache, made on first use. */
function atColumn<V>(caches: Array<Map<string, V>>, col: number): Map<string, V> {
  let byCol = caches[col];
  if (byCol === undefined) {
    byCol = new Map();
    caches[col] = byCol;
  }
  return byCol;
}
function keyLine(col: number, key: string, colonCol = col): string {
  const byKey = atColumn(keyLines, col);
  let line = byKey.get(key);
  if (line === undefined) {
    const text = scalar(key);
    if (text.length > IMPLICIT_KEY_MAX) return `${indent(col)}? ${text}\n${indent(colonCol)}:`;
    line = `${indent(col)}${text}:`;
    if (byKey.size < 20_000) byKey.set(key, line);
  }
  return line;
}

/** ` value\n` for a one-line string value. */
const makeValueLine = (s: string): string => ` ${plainOk(s) ? s : doubleQuoted(s)}\n`;
const valueLines = new Map<string, string>();
function valueLine(s: string): string {
  let line = valueLines.get(s);
  if (line === undefined) {
    line = makeValueLine(s);
    if (valueLines.size < 100_000) valueLines.set(s, line);
  }
  return line;
}

/**
 * Literal block text for multi-line strings a reader gets back exactly; undefined if unsafe. The
 * same text recurs in every cluster (the probe script), so each is made once per column.
 */
const literalBlocks: Array<Map<string, string | null>> = [];
function literalBlock(s: string, col: number): string | undefined {
  const byText = atColumn(literalBlocks, col);
  let block = byText.get(s);
  if (block === undefined) {
    block = makeLiteralBlock(s, col) ?? null;
    if (byText.size < 1000) byText.set(s, block);
  }
  return block ?? undefined;
}

// A line that ends in a space or tab (its last character before a line break or the end).
const TRAILING_BLANK = /[ \t](?:\n|$)/;
// A line break that starts a line with text (the line after it is not empty).
const BREAK_BEFORE_TEXT = /\n(?!\n)/g;

function makeLiteralBlock(s: string, col: number): string | undefined {
  // A first line that starts with a space or tab would be read as (wrong) indentation.
  if (!PRINTABLE_BLOCK.test(s) || LONE_SURROGATE.test(s) || s.startsWith(' ') || s.startsWith('\t') || s.startsWith('\n')) return undefined;
  const clip = s.endsWith('\n');
  const body = clip ? s.slice(0, -1) : s;
  if (body.endsWith('\n')) return undefined; // several trailing newlines need `|+`; quote instead
  if (TRAILING_BLANK.test(body)) return undefined;
  // Each line indented, empty lines left empty; the first line is never empty here, and no line
  // break ends the body, so every break not followed by another starts a line with text.
  const pad = indent(col);
  return `${clip ? ' |' : ' |-'}\n${pad}${body.replace(BREAK_BEFORE_TEXT, `\n${pad}`)}\n`;
}

/** A number as YAML: String() writes NaN and Infinity, which YAML readers take for strings. */
function numberText(n: number): string {
  if (Number.isFinite(n)) return Object.is(n, -0) ? '-0.0' : String(n);
  return Number.isNaN(n) ? '.nan' : n > 0 ? '.inf' : '-.inf';
}

function hasKeys(value: object): boolean {
  for (const _ in value) return true;
  return false;
}

/**
 * A frozen object never changes, so its text at a given column never does either: the renderer
 * shares one frozen copy of the parts every cluster has alike (probes, security contexts, ports),
 * and each is written once per column and copied as bytes after that.
 */
const frozenValues = new WeakMap<object, Buffer[]>();
const frozenItems = new WeakMap<object, Buffer[]>();

function cachedBytes(cache: WeakMap<object, Buffer[]>, value: object, col: number, write: (sink: ByteSink) => void): Buffer {
  let byCol = cache.get(value);
  if (byCol === undefined) {
    byCol = [];
    cache.set(value, byCol);
  }
  let bytes = byCol[col];
  if (bytes === undefined) {
    const sink = new ByteSink(256);
    write(sink);
    const chunks = sink.chunks();
    bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    byCol[col] = bytes;
  }
  return bytes;
}

/** Called after "key:" or "- " of a line at column `col`: writes the rest of the line and any nested lines. */
function emitValue(value: Plain, col: number, out: ByteSink): void {
  if (value !== null && typeof value === 'object' && Object.isFrozen(value)) {
    out.writeBytes(cachedBytes(frozenValues, value, col, (sink) => emitFreshValue(value, col, sink)));
    return;
  }
  emitFreshValue(value, col, out);
}

function emitFreshValue(value: Plain, col: number, out: ByteSink): void {
  if (value === null) out.write(' null\n');
  else if (typeof value === 'string') {
    if (out.blankMark !== undefined && value.includes(out.blankMark)) {
      out.blank(value, col);
      return;
    }
    const block = value.includes('\n') ? literalBlock(value, col + 2) : undefined;
    out.write(block ?? valueLine(value));
  } else if (typeof value === 'boolean') out.write(value ? ' true\n' : ' false\n');
  else if (typeof value === 'number') out.write(` ${numberText(value)}\n`);
  else if (Array.isArray(value)) {
    if (value.length === 0) out.write(' []\n');
    else {
      out.write('\n');
      emitSequence(value, col, out);
    }
  } else if (!hasKeys(value)) out.write(' {}\n');
  else {
    out.write('\n');
    emitMapping(value, col + 2, out, false);
  }
}

function emitMapping(map: { [key: string]: Plain }, col: number, out: ByteSink, firstInline: boolean): void {
  let first = firstInline;
  for (const key of Object.keys(map)) {
    const v = map[key];
    if (v === undefined) continue;
    out.write(first ? keyLine(0, key, col) : keyLine(col, key));
    first = false;
    emitValue(v as Plain, col, out);
  }
}

/** Compact sequences: `- ` at the parent key's column. */
function emitSequence(items: Plain[], col: number, out: ByteSink): void {
  for (const item of items) {
    if (item !== null && typeof item === 'object' && Object.isFrozen(item))
      out.writeBytes(cachedBytes(frozenItems, item, col, (sink) => emitSequenceItem(item, col, sink)));
    else emitSequenceItem(item, col, out);
  }
}

const dashes: string[] = [];
const dashAt = (col: number): string => (dashes[col] ??= `${indent(col)}-`);

function emitSequenceItem(item: Plain, col: number, out: ByteSink): void {
  const dash = dashAt(col);
  if (item !== null && typeof item === 'object' && !Array.isArray(item) && hasKeys(item)) {
    out.write(dash);
    out.write(' ');
    emitMapping(item, col + 2, out, true);
  } else if (Array.isArray(item) && item.length > 0) {
    out.write(dash);
    out.write('\n');
    emitSequence(item, col + 2, out);
  } else {
    out.write(dash);
    emitFreshValue(item, col, out);
  }
}

/**
 * The text of a string value after "key:" or "- " at column `col`, as emitFreshValue writes it
 * there: what a blank of a recorded text is filled with (krm/cluster-writer.ts).
 */
export function stringValueText(value: string, col: number): string {
  // As emitFreshValue writes a string, without its caches: a blank's value is new with each cluster.
  const block = value.includes('\n') ? makeLiteralBlock(value, col + 2) : undefined;
  return block ?? makeValueLine(value);
}

/** A whole document. */
export function emitYaml(value: unknown): string {
  const out = new ByteSink(4096);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && hasKeys(value)) {
    emitMapping(value as { [key: string]: Plain }, 0, out, false);
  } else if (Array.isArray(value) && value.length > 0) {
    emitSequence(value as Plain[], 0, out);
  } else {
    out.write('x:');
    emitValue(value as Plain, 0, out);
    return out.toString().slice(3);
  }
  return out.toString();
}

/** A non-empty mapping as a whole document, appended to `out`. */
export function emitMappingTo(value: { [key: string]: unknown }, out: ByteSink): void {
  emitMapping(value as { [key: string]: Plain }, 0, out, false);
}

/** A mapping as an item of a block sequence whose `-` is at column `col`, appended to `out`. */
export function emitSequenceItemTo(value: { [key: string]: unknown }, col: number, out: ByteSink): void {
  out.write(indent(col));
  out.write('- ');
  emitMapping(value as { [key: string]: Plain }, col + 2, out, true);
}

const isPlainMapping = (v: unknown): v is { [key: string]: Plain } => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A rendered object as an item of a block sequence whose `-` is at column `col`, with `extra`
 * annotations written after its own: the same text as emitSequenceItemTo of a copy whose
 * metadata.annotations is `{ ...annotations, ...extra }`, without making the copy. Returns false,
 * having written nothing, when the object is not of that shape (no metadata.annotations mapping,
 * or one that already holds a key of `extra`): the caller then copies.
 */
export function emitObjectItemTo(
  value: { [key: string]: unknown },
  col: number,
  out: ByteSink,
  extra: readonly (readonly [key: string, value: string])[],
): boolean {
  const metadata = value.metadata;
  if (!isPlainMapping(metadata) || !hasKeys(metadata)) return false;
  const annotations = metadata.annotations;
  if (!isPlainMapping(annotations)) return false;
  for (const [key] of extra) if (Object.hasOwn(annotations, key)) return false;
  out.write(indent(col));
  out.write('- ');
  const c = col + 2;
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (v === undefined) continue;
    out.write(first ? keyLine(0, key, c) : keyLine(c, key));
    first = false;
    if (v !== metadata) {
      emitValue(v as Plain, c, out);
      continue;
    }
    out.write('\n');
    const m = c + 2;
    for (const mk of Object.keys(metadata)) {
      const mv = metadata[mk];
      if (mv === undefined) continue;
      out.write(keyLine(m, mk));
      if (mv !== annotations) {
        emitValue(mv, m, out);
        continue;
      }
      out.write('\n');
      emitMapping(annotations, m + 2, out, false);
      for (const [ak, av] of extra) {
        out.write(keyLine(m + 2, ak));
        emitFreshValue(av, m + 2, out);
      }
    }
  }
  return true;
}
