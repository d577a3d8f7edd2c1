// How the cost of worst-case YAML (and JSON) input grows, through the bundled render-valkey: deep
// nesting, one mapping with many keys (JSON and CRLF input go to the full parser), long scalars.
// Every input of n bytes must cost O(n log n) time: doubling the input should about double the
// time; a ratio above RATIO_LIMIT is flagged, and so is a crash (an exit other than 0 or 1).
//
// Run: npm run -s build && npx tsx bench/growth-yaml.bench.ts   (GROWTH_CASES=name,... GROWTH_BASE=n)
// The cases have the shape of bench/growth.bench.ts's (`{ name, make(n), base? }`), to be merged
// into its CASES.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { emitYaml } from '../src/krm/yaml/emitter.js';
import { renderConfig } from './generate.js';

export interface GrowthCase {
  name: string;
  /** The whole stdin of render-valkey, growing roughly linearly in n. */
  make(n: number): string;
  /** The smallest n; the input is measured at base, 2·base, 4·base and 8·base. */
  base?: number;
}

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

const EXE = 'dist/render-valkey.cjs';
const BASE = Number(process.env.GROWTH_BASE ?? 2000);
const RATIO_LIMIT = 2.5;
const only = process.env.GROWTH_CASES?.split(',');

/** Best of three wall times of one run of the executable on `input`. */
function measure(input: string): { ms: number; exit: number; stderr: string } {
  let best = { ms: Number.POSITIVE_INFINITY, exit: -1, stderr: '' };
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const r = spawnSync(process.execPath, [EXE], { input, maxBuffer: 2 ** 31 - 1, encoding: 'utf8' });
    const ms = performance.now() - start;
    if (ms < best.ms) best = { ms, exit: r.status ?? -1, stderr: r.stderr };
  }
  return best;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fmt = (n: number, d = 1) => n.toFixed(d);
  console.log(`YAML growth benchmark (node ${process.version}): time per doubling of the input, flagged above ×${RATIO_LIMIT}`);
  console.log('case                                   | n       | in KiB  | exit | ms       | ×prev');
  let flagged = 0;
  for (const c of yamlCases) {
    if (only && !only.includes(c.name)) continue;
    let previous: number | undefined;
    for (const factor of [1, 2, 4, 8]) {
      const n = (c.base ?? BASE) * factor;
      const input = c.make(n);
      const r = measure(input);
      const ratio = previous === undefined ? undefined : r.ms / previous;
      const flag = ratio !== undefined && ratio > RATIO_LIMIT ? '  <-- superlinear' : '';
      const crashed = r.exit !== 0 && r.exit !== 1 ? `  <-- crashed: ${r.stderr.split('\n').find((l) => l.trim()) ?? ''}` : '';
      if (flag) flagged++;
      if (crashed) flagged++;
      console.log(
        `${c.name.padEnd(38)} | ${String(n).padStart(7)} | ${fmt(Buffer.byteLength(input) / 1024, 0).padStart(7)} | ${String(r.exit).padStart(4)} | ${fmt(r.ms).padStart(8)} | ${ratio === undefined ? '' : `×${fmt(ratio, 2)}`}${flag}${crashed}`,
      );
      previous = r.ms;
    }
  }
  console.log(flagged ? `${flagged} measurement(s) flagged` : 'no case grew faster than ×2.5 per doubling');
}
