// npm run bench (after render.bench.ts): how the cost of generated worst-case inputs grows. Each
// case makes an input at n, 2n, 4n and 8n; every input of n bytes must cost O(n log n) time, so
// doubling the input should about double the time. A ratio above RATIO_LIMIT is flagged.
//
// To add a case, append `{ name, make }` to CASES (or to one of the arrays it spreads): `make(n)`
// returns the whole stdin for the bundled dist/render-valkey.cjs (a ResourceList in YAML or JSON),
// growing roughly linearly in n. `base` is the smallest n (default BASE).
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { menuCases } from './growth-cases-menu.js';
import { yamlCases } from './growth-cases-yaml.js';
import { figureLog } from './figures.js';

const report = figureLog('growth');

export interface GrowthCase {
  name: string;
  make(n: number): string;
  /** The smallest n; the input is measured at base, 2·base, 4·base and 8·base. */
  base?: number;
}

const CASES: GrowthCase[] = [...menuCases, ...yamlCases];

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

const fmt = (n: number, d = 1) => n.toFixed(d);
report.line(`growth benchmark (node ${process.version}): time per doubling of the input, flagged above ×${RATIO_LIMIT}`);
report.line('case                                   | n       | in KiB  | exit | ms       | ×prev');
let flagged = 0;
for (const c of CASES) {
  if (only && !only.includes(c.name)) continue;
  let previous: number | undefined;
  for (const factor of [1, 2, 4, 8]) {
    const n = (c.base ?? BASE) * factor;
    const input = c.make(n);
    const r = measure(input);
    const ratio = previous === undefined ? undefined : r.ms / previous;
    const flag = ratio !== undefined && ratio > RATIO_LIMIT ? '  <-- superlinear' : '';
    if (flag) flagged++;
    const crashed = r.exit !== 0 && r.exit !== 1 ? `  <-- crashed: ${r.stderr.split('\n').find((l) => l.trim()) ?? ''}` : '';
    if (crashed) flagged++;
    report.line(
      `${c.name.padEnd(38)} | ${String(n).padStart(7)} | ${fmt(Buffer.byteLength(input) / 1024, 0).padStart(7)} | ${String(r.exit).padStart(4)} | ${fmt(r.ms).padStart(8)} | ${ratio === undefined ? '' : `×${fmt(ratio, 2)}`}${flag}${crashed}`,
    );
    previous = r.ms;
  }
}
report.line(flagged ? `${flagged} measurement(s) flagged` : 'no case grew faster than ×2.5 per doubling');
