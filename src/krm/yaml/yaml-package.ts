import type * as Yaml from 'yaml';
import type { CST, Document, Node, ScalarTag, Tags } from 'yaml';
import { resolveGoYamlScalar } from './go-scalars.js';

/** Defined (true) by scripts/build.mjs in the KRM bundle, where `yaml` ships as lib/yaml.cjs. */
declare const __KRM_BUNDLE__: boolean | undefined;

let lib: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded on first use. A ResourceList in plain block style never needs it
 * (fast-reader.ts reads those), and leaving it out of the KRM function's start-up saves a few
 * milliseconds on every run. In the bundle it is a file of its own next to krm.cjs, which the
 * launcher loads with a code cache of its own.
 */
export function yamlLib(): typeof Yaml {
  if (!lib) {
    lib =
      typeof __KRM_BUNDLE__ !== 'undefined'
        ? (require('./yaml.cjs') as typeof Yaml)
        : ((process.getBuiltinModule('node:module') as typeof import('node:module')).createRequire(import.meta.url)('yaml') as typeof Yaml);
  }
  return lib;
}

// Read plain scalars the way kubectl, Argo CD and Flux do (go-yaml v2, YAML 1.1; go-scalars.ts):
// an unquoted yes/no/on/off is a boolean there and 0755 an octal number, so they must not pass here
// as strings. The `yaml` 1.1 schema differs from go-yaml v2 on some (`e1` and `0o644`, 12:30 read
// as a number, 2024-06-01 as a date, `-0`): one tag resolves every plain scalar (but the merge key
// `<<`) with go-yaml's own rules, and the package's own scalar tags only serve explicit tags
// (`!!int 1`), which the fast reader leaves here and nobody writes in manifests.
const goYamlPlainScalar: ScalarTag = {
  tag: 'tag:valkey-krm.local,2025:go-yaml-v2-plain',
  default: true,
  test: /^(?!<<$)/,
  resolve: (source: string) => resolveGoYamlScalar(source),
};
const kubectlScalars = (tags: Tags): Tags => [
  goYamlPlainScalar,
  ...tags
    .filter((t) => typeof t !== 'object' || !(('format' in t && t.format === 'TIME') || t.tag === 'tag:yaml.org,2002:timestamp'))
    .map((t) => (typeof t === 'object' && t.default === true && 'test' in t && t.test ? { ...t, default: false } : t)),
];
export const PARSE_OPTIONS = {
  prettyErrors: false,
  // The package checks each key against every earlier key of its mapping: quadratic on one mapping
  // with many keys (40,000 keys took 30 s). duplicateKeyErrors below does the same in linear time.
  uniqueKeys: false,
  strict: true,
  version: '1.1',
  customTags: kubectlScalars,
  logLevel: 'error',
} as const;

/** Offsets to `line L, column C` (lineIndex below). */
function lineColumns(text: string): (offset: number) => string {
  const at = lineIndex(text);
  return (offset) => {
    const { line, column } = at(offset);
    return `line ${line}, column ${column}`;
  };
}

/**
 * go-yaml reads a comment right after a closing quote, bracket or block scalar header (`"x"#c`) as a
 * comment, and so does the `yaml` package, which still reports it: kubectl takes such input, so we do.
 */
const goYamlAccepts = (e: { code: string; message: string }): boolean =>
  e.code === 'MISSING_CHAR' && e.message.startsWith('Comments must be separated from other tokens by white space characters');

/**
 * Keys that repeat in one mapping, as the package reports them with `uniqueKeys: true`: scalar keys
 * by value, others by identity; one Set per mapping instead of a scan of all earlier keys per key.
 */
function duplicateKeyErrors(doc: Document): Array<{ pos: readonly [number, ...number[]]; message: string }> {
  const { isScalar, visit } = yamlLib();
  const out: Array<{ pos: readonly [number, ...number[]]; message: string }> = [];
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        const id = isScalar(key) ? key.value : key;
        if (typeof id === 'number' && Number.isNaN(id)) continue; // NaN equals nothing, as in the package
        if (!seen.has(id)) seen.add(id);
        else out.push({ pos: [(key as Node | null)?.range?.[0] ?? 0], message: 'Map keys must be unique' });
      }
    },
  });
  return out;
}

const SURROGATE_ESCAPE =
  'a \\u escape of a UTF-16 surrogate (D800-DFFF), which go-yaml (kpt, kustomize, kubectl) refuses, paired or not, and which alone is no character at all (JSON readers such as jq refuse it): write the character itself, or in YAML as \\U and its 8-digit code point';

/** What a surrogate escape looks like anywhere (a quoted scalar or not): the cheap test before the walk. */
const MAYBE_SURROGATE_ESCAPE = /\\(u[dD][89a-fA-F]|U0000[dD][89a-fA-F])/;

/**
 * Escapes of UTF-16 surrogates in double-quoted scalars (`"\ud800"`), which the package turns into
 * lone surrogates and go-yaml refuses ("found invalid Unicode character escape code"), keys and
 * values alike: one error at the backslash of the first such escape in each scalar.
 */
function surrogateEscapeErrors(text: string, doc: Document): Array<{ pos: readonly [number, ...number[]]; message: string }> {
  const { isScalar, visit } = yamlLib();
  const out: Array<{ pos: readonly [number, ...number[]]; message: string }> = [];
  visit(doc, (_key, node) => {
    if (!isScalar(node) || node.type !== 'QUOTE_DOUBLE' || !node.range) return;
    const [start, end] = node.range;
    for (let i = start + 1; i < end; i++) {
      if (text.charCodeAt(i) !== 92 /* \ */) continue;
      const kind = text[i + 1];
      const digits = kind === 'u' ? 4 : kind === 'U' ? 8 : 0;
      const code = digits ? Number.parseInt(text.slice(i + 2, i + 2 + digits), 16) : Number.NaN;
      if (code >= 0xd800 && code <= 0xdfff) {
        out.push({ pos: [i], message: SURROGATE_ESCAPE });
        return;
      }
      i++; // past the escaped character (an escaped backslash included)
    }
  });
  return out;
}

/**
 * The syntax errors of a stream's documents, each named by `whereOf(index)` and its line and
 * column. The text is searched for a surrogate escape once, not once per document: a stream of a
 * thousand documents would otherwise be read a thousand times.
 */
export function streamErrors(text: string, docs: readonly Document[], whereOf: (index: number) => string): Array<{ message: string }> {
  const maySurrogate = MAYBE_SURROGATE_ESCAPE.test(text);
  let lineColumn: ((offset: number) => string) | undefined;
  return docs.flatMap((doc, index) => {
    const errors = [
      ...doc.errors.filter((e) => !goYamlAccepts(e)),
      ...duplicateKeyErrors(doc),
      ...(maySurrogate ? surrogateEscapeErrors(text, doc) : []),
    ].sort((a, b) => a.pos[0] - b.pos[0]);
    if (errors.length === 0) return [];
    lineColumn ??= lineColumns(text);
    const at = lineColumn;
    const where = whereOf(index);
    return errors.map((e) => ({ message: `${where}: invalid YAML at ${at(e.pos[0])}: ${withoutSource(e.message)}` }));
  });
}

/**
 * The YAML reader's words without the piece of the file they quote (`Unexpected scalar token in
 * YAML stream: "…"`, `Unresolved alias …: name`): a file that is not YAML at all, such as a
 * credential a link pointed at, is named with the position of the problem and no more of it.
 */
export function withoutSource(message: string): string {
  return (message.split('\n')[0] as string)
    .replace(/:\s*".*$/, '')
    .replace(/^(Unresolved alias \(the anchor must be set before the alias\)):.*$/, '$1');
}

/** The CST tokens and composed documents of a YAML (or JSON) stream, parsed once. */
export function parseStream(text: string): { tokens: CST.Document[]; docs: Document[] } {
  const { Composer, Parser } = yamlLib();
  const tokens = [...new Parser().parse(text)];
  const docs = [...new Composer(PARSE_OPTIONS).compose(tokens)];
  return { tokens: tokens.filter((t): t is CST.Document => t.type === 'document'), docs };
}

/** A node's plain value (scalars, maps and sequences as JavaScript values). */
export const toJS = (doc: Document, node: unknown): unknown =>
  node && typeof node === 'object' && 'toJS' in node ? (node as Node).toJS(doc, { maxAliasCount: 1000 }) : node;

/** A line and column in a file, both from 1, as editors and compilers print them. */
export interface TextPosition {
  line: number;
  column: number;
}

/** Line and column of character offsets in `text`: the line starts are found once, then each offset by binary search. */
export function lineIndex(text: string): (offset: number) => TextPosition {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (starts[lo] as number) + 1 };
  };
}

/**
 * Where a field of a document is, by the dotted path problems name (`spec.acl[0].roleRef`,
 * `spec.valkey.maxmemory-policy`): the key of the deepest part of the path the document has
 * (a key with dots in it, an annotation's, is matched whole), else the document's first node.
 */
export function fieldOffset(doc: Document, field: string | undefined): number | undefined {
  const { isMap, isScalar, isSeq } = yamlLib();
  let node: unknown = doc.contents;
  let at = (node as Node | null)?.range?.[0];
  let rest = field ?? '';
  while (rest && node) {
    if (isMap(node)) {
      let best: { key: Node; value: unknown; length: number } | undefined;
      for (const pair of node.items) {
        const k = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (k === undefined || !(rest === k || rest.startsWith(`${k}.`) || rest.startsWith(`${k}[`))) continue;
        if (!best || k.length > best.length) best = { key: pair.key as Node, value: pair.value, length: k.length };
      }
      if (!best) break;
      at = best.key.range?.[0] ?? at;
      node = best.value;
      rest = rest.slice(best.length).replace(/^\./, '');
    } else if (isSeq(node)) {
      const m = /^\[(\d+)\]\.?/.exec(rest);
      const item = m ? node.items[Number(m[1])] : undefined;
      if (!m || !item) break;
      at = (item as Node).range?.[0] ?? at;
      node = item;
      rest = rest.slice(m[0].length);
    } else break;
  }
  return at;
}
