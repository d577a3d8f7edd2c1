// Worst-case YAML (and JSON) input for the growth benchmark, through the bundled render-valkey: deep
// nesting, one mapping with many keys (JSON and CRLF input go to the full parser), long scalars.
// Every input of n bytes must cost O(n log n) time: doubling the input should about double the
// time; a ratio above RATIO_LIMIT is flagged, and so is a crash (an exit other than 0 or 1).
//
// Measured by bench/growth.bench.ts, with the menu's cases (npm run bench).
import { emitYaml } from '../src/krm/yaml/emitter.js';
import { renderConfig } from './generate.js';
import type { GrowthCase } from './growth.bench.js';

const HEAD = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n';
const FUNCTION_CONFIG = `functionConfig:\n${emitYaml(renderConfig).replace(/^(?=.)/gm, '  ')}`;
const JSON_HEAD = `{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "functionConfig": ${JSON.stringify(renderConfig)}, "items": [`;
/** A foreign ConfigMap item (passed through unchanged) whose `data` value is `body` (YAML, after `data:`). */
const configMap = (body: string, eol = '\n') =>
  `${HEAD}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: big\n  data:${body}${FUNCTION_CONFIG}`.replace(/\n/g, eol);
const keys = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('');

export const yamlCases: GrowthCase[] = [
  { name: 'YAML: flow sequences n deep', make: (n) => configMap(` ${'['.repeat(n)}${']'.repeat(n)}\n`) },
  {
    name: 'JSON: arrays n deep',
    make: (n) =>
      `${JSON_HEAD}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": ${'['.repeat(n)}${']'.repeat(n)}}]}`,
  },
  {
    // Indentation makes block nesting quadratic in bytes: √(25n) levels is about 12n bytes.
    name: 'YAML: block mappings √(25n) deep',
    make: (n) => configMap(`\n${keys(Math.floor(Math.sqrt(25 * n)), (i) => `${' '.repeat(i + 4)}k:\n`)}`),
  },
  {
    name: 'YAML: block sequences √(25n) deep',
    make: (n) => configMap(`\n${keys(Math.floor(Math.sqrt(25 * n)), (i) => `${' '.repeat(i + 4)}-\n`)}`),
  },
  {
    name: 'JSON: one mapping with 10n keys',
    make: (n) =>
      `${JSON_HEAD}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": {${keys(10 * n, (i) => `${i ? ', ' : ''}"k${i}": "v"`)}}}]}`,
  },
  { name: 'YAML CRLF: one mapping with 10n keys', make: (n) => configMap(`\n${keys(10 * n, (i) => `    k${i}: v\n`)}`, '\r\n') },
  { name: 'YAML: one mapping with 10n keys', make: (n) => configMap(`\n${keys(10 * n, (i) => `    k${i}: v\n`)}`) },
  { name: 'YAML: 10n repeats of one key', make: (n) => configMap(`\n${keys(10 * n, () => '    k: v\n')}`) },
  { name: 'YAML: a plain scalar of 100n characters', make: (n) => configMap(`\n    k: ${'ab '.repeat(33 * n)}x\n`) },
  { name: 'YAML: a quoted scalar of 100n characters', make: (n) => configMap(`\n    k: "${'a\\"\\n\\u00e9 '.repeat(10 * n)}"\n`) },
  { name: 'YAML: a literal block of 10n lines', make: (n) => configMap(`\n    k: |\n${keys(10 * n, (i) => `      line ${i}\n`)}`) },
  { name: 'YAML: a flow sequence of 10n scalars', make: (n) => configMap(`\n    k: [${keys(10 * n, (i) => `${i ? ', ' : ''}v${i}`)}]\n`) },
];
