import { parseDocuments } from '../../src/krm/read-input.js';

/** Splits multi-document YAML text into document texts (without `---`), comments kept. */
export function documentTexts(text: string): string[] {
  const { docs, errors } = parseDocuments(text, 'test input');
  if (errors.length) throw new Error(errors.map((e) => e.message).join('\n'));
  return docs.map((d) => d.text);
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
