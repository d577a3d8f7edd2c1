import type * as Yaml from 'yaml';
import type { CST, Document, Node, Tags } from 'yaml';

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

// Read plain scalars the way kubectl, Argo CD and Flux do (go-yaml v2, YAML 1.1): an unquoted
// yes/no/on/off is a boolean there and 0755 an octal number, so they must not pass here as strings.
// Unlike go-yaml v2, the `yaml` 1.1 schema also reads 12:30 as a number and 2024-06-01 as a date:
// drop those two.
const kubectlScalars = (tags: Tags): Tags =>
  tags.filter((t) => typeof t !== 'object' || !(('format' in t && t.format === 'TIME') || t.tag === 'tag:yaml.org,2002:timestamp'));
export const PARSE_OPTIONS = {
  prettyErrors: false,
  uniqueKeys: true,
  strict: true,
  version: '1.1',
  customTags: kubectlScalars,
  logLevel: 'error',
} as const;

function lineColumn(text: string, offset: number): string {
  let line = 1;
  let lastNewline = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lastNewline = i;
    }
  }
  return `line ${line}, column ${offset - lastNewline}`;
}

/** A document's syntax errors, each named by `where` and its line and column. */
export function documentErrors(text: string, doc: Document, where: string): Array<{ message: string }> {
  return doc.errors.map((e) => ({ message: `${where}: invalid YAML at ${lineColumn(text, e.pos[0])}: ${e.message.split('\n')[0]}` }));
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
