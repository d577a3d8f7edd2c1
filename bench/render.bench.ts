// npm run bench: prints wall time, peak memory, objects and bytes for renders of several sizes,
// end to end through the bundled executable (stdin → stdout), plus the cold start.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clusterObjects, menuObjects, resourceListText } from './generate.js';
import { parseResourceList } from '../src/krm/read-input.js';
import { runFunction } from '../src/krm/run-function.js';
import { runResourceList } from '../src/krm/resource-list.js';
import { figureLog } from './figures.js';

const report = figureLog('render');

const EXE = 'dist/render-valkey.cjs';
const sizes = (process.env.BENCH_SIZES ?? '10,100,1000,5000').split(',').map(Number);

interface Measured {
  ms: number;
  maxRssMiB: number;
  stdoutBytes: number;
  exit: number;
}

const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Runs the executable, under GNU time for the peak RSS when asked and it is there (else rss is NaN). */
function runExe(input: string, rss = true): Measured {
  const [cmd, args] = rss && GNU_TIME ? [GNU_TIME, ['-f', '%M', process.execPath, EXE]] : [process.execPath, [EXE]];
  const start = performance.now();
  const r = spawnSync(cmd, args, { input, maxBuffer: 2 ** 31 - 1, encoding: 'utf8' });
  const ms = performance.now() - start;
  const kib = rss && GNU_TIME ? Number(r.stderr.trim().split('\n').pop()) : NaN;
  return { ms, maxRssMiB: kib / 1024, stdoutBytes: Buffer.byteLength(r.stdout), exit: r.status ?? -1 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (n: number, d = 1) => n.toFixed(d);

report.line('render-valkey benchmark (node', `${process.version})`);
report.line('size   | e2e wall ms | peak RSS MiB | objects | out MiB | µs/cluster | in-process: parse / render / emit ms');
const menu = menuObjects();
const figures: Record<number, number> = {};
for (const n of sizes) {
  const input = resourceListText([...menu, ...clusterObjects(n)]);
  const runs = [runExe(input), runExe(input), runExe(input)];
  const best = runs.reduce((a, b) => (a.ms < b.ms ? a : b));
  if (best.exit !== 0) throw new Error(`render of ${n} clusters failed with exit ${best.exit}`);
  // Split the in-process time to see where it goes.
  const t0 = performance.now();
  const parsed = parseResourceList(input).list!;
  const t1 = performance.now();
  const outcome = runFunction(parsed.items, parsed.functionConfig, { validateOnly: false, dropLocalConfig: false });
  const t2 = performance.now();
  runResourceList(input, 'render-valkey');
  const t3 = performance.now();
  const emit = t3 - t2 - (t2 - t0);
  figures[n] = best.ms;
  report.line(
    `${String(n).padEnd(6)} | ${fmt(best.ms).padStart(11)} | ${fmt(best.maxRssMiB).padStart(12)} | ${String(outcome.generated.length).padStart(7)} | ${fmt(best.stdoutBytes / 2 ** 20, 2).padStart(7)} | ${fmt((best.ms * 1000) / n, 0).padStart(10)} | ${fmt(t1 - t0)} / ${fmt(t2 - t1)} / ${fmt(Math.max(emit, 0))}`,
  );
}
// kpt sends a package's earlier output back with the rest on every render after the first: a
// re-render reads the whole previous output too (and replaces it).
const rerenderSize = sizes.includes(1000) ? 1000 : sizes[0];
if (rerenderSize !== undefined) {
  const first = spawnSync(process.execPath, [EXE], {
    input: resourceListText([...menu, ...clusterObjects(rerenderSize)]),
    maxBuffer: 2 ** 31 - 1,
    encoding: 'utf8',
  });
  const functionConfig = resourceListText([]).split('\nfunctionConfig:\n')[1] as string;
  const again = `${first.stdout.replace(/\nresults:\n[\s\S]*$/, '\n')}functionConfig:\n${functionConfig}`;
  const runs = [runExe(again), runExe(again), runExe(again)];
  const best = runs.reduce((a, b) => (a.ms < b.ms ? a : b));
  if (best.exit !== 0) throw new Error(`re-render of ${rerenderSize} clusters failed with exit ${best.exit}`);
  report.line(
    `re-render of ${rerenderSize} clusters with their previous output in the input (${fmt(Buffer.byteLength(again) / 2 ** 20, 1)} MiB in): ${fmt(best.ms)} ms, peak RSS ${fmt(best.maxRssMiB)} MiB`,
  );
}

// Start-up: the same empty ResourceList many times, interleaved with Node running an empty
// script, so the figure can be read against what Node itself costs on this machine.
const empty = resourceListText([]);
const emptyScript = join(mkdtempSync(join(tmpdir(), 'bench-')), 'empty.cjs');
writeFileSync(emptyScript, '');
const starts: number[] = [];
const nodeAlone: number[] = [];
for (let i = 0; i < 31; i++) {
  starts.push(runExe(empty, false).ms);
  const t = performance.now();
  spawnSync(process.execPath, [emptyScript], { input: empty });
  nodeAlone.push(performance.now() - t);
}
report.line(
  `cold start (empty ResourceList, median of 31): ${fmt(median(starts))} ms; Node alone on an empty script: ${fmt(median(nodeAlone))} ms`,
);
const ks = Object.keys(figures)
  .map(Number)
  .sort((a, b) => a - b);
if (ks.length >= 2) {
  const [a, b] = [ks[ks.length - 2] as number, ks[ks.length - 1] as number];
  report.line(
    `growth ${a} → ${b} clusters: ×${fmt((figures[b] as number) / (figures[a] as number), 2)} time for ×${fmt(b / a, 0)} clusters`,
  );
}
