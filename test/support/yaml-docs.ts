// YAML documents in tests: splitting streams into documents (kept byte for byte), joining them for
// kubectl, and ResourceLists as kpt sends them.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseDocuments } from '../../src/krm/read-input.js';
import { filesUnder, packageFiles } from './files.js';
import type { KubeObject } from './objects.js';
import { EXAMPLES_DIR, REPO_ROOT } from './paths.js';

/** One document as written in a file: its exact text (what kubectl reads) and its value (what the function reads). */
export interface SourceDoc {
  text: string;
  object: KubeObject;
}

/** Every document of a stream, through the function's own reader; throws on a reader error. */
function readDocs(text: string, where: string) {
  const { docs, errors } = parseDocuments(text, where);
  if (errors.length) throw new Error(errors.map((e) => e.message).join('\n'));
  return docs;
}

/** Splits multi-document YAML text into document texts (without `---`), comments kept. */
export const documentTexts = (text: string): string[] => readDocs(text, 'test input').map((d) => d.text);

/** The documents of a stream that hold an object (mapping), each with its exact text. */
export function parseSourceDocs(text: string, where: string): SourceDoc[] {
  return readDocs(text, where)
    .filter((d) => d.value !== null && typeof d.value === 'object')
    .map((d) => ({ text: d.text, object: d.value as KubeObject }));
}

/** Joins documents into one stream for `kubectl -f -`, keeping each one's exact text. */
export const joinDocs = (docs: readonly SourceDoc[]): string => docs.map((d) => d.text).join('---\n');

/** A JSON stream (objects one after another, as kubectl reads them): unlike YAML, it means the same to kubectl and to us. */
export const toJsonStream = (objects: readonly unknown[]): string => objects.map((o) => JSON.stringify(o)).join('\n');

/** Every document of every YAML file of an example package, as written. */
export function packageDocs(name: string): SourceDoc[] {
  const dir = join(EXAMPLES_DIR, name);
  return filesUnder(dir, { skip: (name) => name.startsWith('.') })
    .filter((file) => /\.ya?ml$/.test(file))
    .map((file) => join(dir, file))
    .flatMap((file) => parseSourceDocs(readFileSync(file, 'utf8'), relative(REPO_ROOT, file)));
}

/**
 * The non-empty documents of a multi-document YAML stream, read by the `yaml` library (not the
 * code under test); throws on invalid YAML.
 */
export function parseObjects(text: string): KubeObject[] {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  for (const d of list) if (d.errors.length) throw new Error(`invalid YAML: ${d.errors[0]?.message}`);
  return list.map((d) => d.toJS() as KubeObject | null).filter((v): v is KubeObject => v !== null);
}

/** Every YAML object of a package directory (skips the rendered output and READMEs). */
export function packageObjects(dir: string, skipDirs: readonly string[] = []): { file: string; object: KubeObject }[] {
  return packageFiles(dir, skipDirs).flatMap(({ file, text }) => parseObjects(text).map((object) => ({ file, object })));
}

const asItem = (doc: string) => {
  const lines = doc.replace(/\n$/, '').split('\n');
  return `${lines.map((l, i) => (i === 0 ? `- ${l}` : l === '' ? '' : `  ${l}`)).join('\n')}\n`;
};

/** The head of a v1 ResourceList, up to its (block) items. */
export const HEADER = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n';

/** `functionConfig:` with the config's text under it, indented two spaces (blank lines stay empty), ending in one newline. */
export function functionConfigBlock(text: string): string {
  return (
    'functionConfig:\n' +
    text
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => (l ? `  ${l}` : l))
      .join('\n') +
    '\n'
  );
}

/** A ResourceList as kpt sends it: compact `- ` items, the function config last. */
export function resourceList(docs: readonly string[], functionConfig?: string): string {
  let out = HEADER + docs.map(asItem).join('');
  if (functionConfig !== undefined) out += functionConfigBlock(functionConfig);
  return out;
}

/** A deterministic shuffle (so a failure can be reproduced). */
export function shuffled<T>(items: readonly T[], seed = 7): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
