// npm run bench: the render's cost end to end through the bundled executable (stdin → stdout),
// and, measured in the same run, what it is compared against, so a regression shows as a ratio
// the day it lands:
//  - the JSON floor: a Node process that JSON.parse's the rendered ResourceList (as JSON) and
//    JSON.stringify's it back to stdout, the least a process that reads and writes these objects
//    can do (start-up included, as in the render);
//  - the `yaml` library's I/O alone: a Node process that parses the input with `yaml` and writes
//    the rendered ResourceList with `yaml`'s stringify (the objects read from JSON);
//  - 10,000 clusters: wall, CPU and peak RSS;
//  - the cold start next to `node -e 0`.
// CPU is user + system of the child (GNU time), the figure other work on the machine disturbs
// least; the runs of what is compared are interleaved and their medians taken.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterObjects, menuObjects, renderConfig, resourceListText } from './generate.js';
import { figureLog } from './figures.js';

const report = figureLog('render');

const EXE = 'dist/render-valkey.cjs';
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const sizes = (process.env.BENCH_SIZES ?? '10,100,1000').split(',').map(Number);
const BIG = Number(process.env.BENCH_BIG ?? 10_000);
const GOALS = { floorRatio: 1.3, yamlRatio: 0.25, bigSeconds: 5, bigMiB: 1024, coldRatio: 1.1 };

interface Measured {
  wallMs: number;
  cpuMs: number;
  maxRssMiB: number;
  stdout: string;
  exit: number;
}

/**
 * Runs `node args`: wall and peak RSS from GNU time, CPU (user + system, in ms) from the shell's
 * `times` for its child (GNU time rounds to 10 ms, too coarse for a start-up of 50 ms).
 */
function run(args: string[], input: string): Measured {
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '@@%e %M', 'bash', '-c', '"$@"; rc=$?; times >&2; exit $rc', '_', process.execPath, ...args],
    { input, maxBuffer: 2 ** 31 - 1, encoding: 'utf8' },
  );
  const lines = r.stderr.trim().split('\n');
  const m = /^@@([\d.]+) (\d+)$/.exec(lines.at(-1) ?? '');
  const t = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines.at(-2) ?? '');
  if (!m || !t) throw new Error(`no figures from GNU time and times for ${args.join(' ')}: ${r.stderr.slice(-500)}`);
  return {
    wallMs: Number(m[1]) * 1000,
    cpuMs: (Number(t[1]) * 60 + Number(t[2]) + Number(t[3]) * 60 + Number(t[4])) * 1000,
    maxRssMiB: Number(m[2]) / 1024,
    stdout: r.stdout,
    exit: r.status ?? -1,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (n: number, d = 1) => n.toFixed(d);
const verdict = (ok: boolean) => (ok ? 'goal met' : 'GOAL MISSED');

/** The input as kpt sends it, in YAML and the same ResourceList as JSON. */
function inputs(n: number): { yaml: string; json: string } {
  const objects = [...menuObjects(), ...clusterObjects(n)];
  return {
    yaml: resourceListText(objects),
    json: JSON.stringify({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: objects, functionConfig: renderConfig }),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'render-bench-'));
const yamlPath = createRequire(import.meta.url).resolve('yaml');
const FLOOR = join(dir, 'floor.cjs');
writeFileSync(
  FLOOR,
  `const c=[];process.stdin.on('data',(d)=>c.push(d)).on('end',()=>{process.stdout.write(JSON.stringify(JSON.parse(Buffer.concat(c).toString('utf8'))));});`,
);
const YAML_IO = join(dir, 'yaml-io.cjs');
writeFileSync(
  YAML_IO,
  `const yaml=require(${JSON.stringify(yamlPath)});const fs=require('node:fs');const c=[];` +
    `process.stdin.on('data',(d)=>c.push(d)).on('end',()=>{yaml.parse(Buffer.concat(c).toString('utf8'));` +
    `process.stdout.write(yaml.stringify(JSON.parse(fs.readFileSync(process.argv[2],'utf8'))));});`,
);

try {
  report.line(`render-valkey benchmark (node ${process.version}); CPU = user + system of the process, medians of ${RUNS}`);
  report.line('clusters | items out | out MiB | wall ms | CPU ms | peak RSS MiB | CPU µs/cluster');
  const cpuAt: Record<number, number> = {};
  for (const n of sizes) {
    const { yaml } = inputs(n);
    const runs = Array.from({ length: Math.min(RUNS, 5) }, () => run([EXE], yaml));
    const bad = runs.find((r) => r.exit !== 0);
    if (bad) throw new Error(`render of ${n} clusters failed with exit ${bad.exit}`);
    const objects = (runs[0]?.stdout.match(/\n {0,2}- apiVersion: /g) ?? []).length;
    cpuAt[n] = median(runs.map((r) => r.cpuMs));
    report.line(
      `${String(n).padStart(8)} | ${String(objects).padStart(9)} | ${fmt(Buffer.byteLength(runs[0]?.stdout ?? '') / 2 ** 20, 2).padStart(7)} | ${fmt(median(runs.map((r) => r.wallMs)), 0).padStart(7)} | ${fmt(cpuAt[n], 0).padStart(6)} | ${fmt(median(runs.map((r) => r.maxRssMiB))).padStart(12)} | ${fmt((cpuAt[n] * 1000) / n, 0).padStart(14)}`,
    );
  }

  // The ratios at 1,000 clusters: render, JSON floor and yaml I/O interleaved.
  const N = 1000;
  const { yaml, json } = inputs(N);
  const jsonOut = run([EXE], json);
  if (jsonOut.exit !== 0) throw new Error(`render of ${N} clusters (JSON) failed with exit ${jsonOut.exit}`);
  const outJsonPath = join(dir, 'out.json');
  writeFileSync(outJsonPath, jsonOut.stdout);
  const render: number[] = [];
  const floor: number[] = [];
  const yamlIo: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = run([EXE], yaml);
    if (r.exit !== 0) throw new Error(`render of ${N} clusters failed with exit ${r.exit}`);
    render.push(r.cpuMs);
    floor.push(run([FLOOR], jsonOut.stdout).cpuMs);
    yamlIo.push(run([YAML_IO, outJsonPath], yaml).cpuMs);
  }
  const [r, f, y] = [median(render), median(floor), median(yamlIo)];
  report.line('');
  report.line(
    `${N} clusters (${fmt(Buffer.byteLength(jsonOut.stdout) / 2 ** 20, 1)} MiB of JSON out), CPU medians of ${RUNS} interleaved runs:`,
  );
  report.line(`  render ${fmt(r, 0)} ms | JSON floor (parse + stringify of the output) ${fmt(f, 0)} ms | yaml library I/O ${fmt(y, 0)} ms`);
  report.line(`  render / JSON floor: ${fmt(r / f, 2)}x (goal ≤ ${GOALS.floorRatio}x: ${verdict(r / f <= GOALS.floorRatio)})`);
  report.line(`  render / yaml I/O:   ${fmt(r / y, 2)}x (goal ≤ ${GOALS.yamlRatio}x: ${verdict(r / y <= GOALS.yamlRatio)})`);

  // 10,000 clusters.
  const big = inputs(BIG).yaml;
  const bigRuns = Array.from({ length: 3 }, () => run([EXE], big));
  const badBig = bigRuns.find((b) => b.exit !== 0);
  if (badBig) throw new Error(`render of ${BIG} clusters failed with exit ${badBig.exit}`);
  const [bw, bc, bm] = [median(bigRuns.map((b) => b.wallMs)), median(bigRuns.map((b) => b.cpuMs)), median(bigRuns.map((b) => b.maxRssMiB))];
  report.line('');
  report.line(
    `${BIG} clusters (${fmt(Buffer.byteLength(bigRuns[0]?.stdout ?? '') / 2 ** 20, 0)} MiB out), medians of 3: wall ${fmt(bw / 1000, 2)} s, CPU ${fmt(bc / 1000, 2)} s, peak RSS ${fmt(bm, 0)} MiB (goal ≤ ${GOALS.bigSeconds} s and ≤ ${GOALS.bigMiB} MiB: ${verdict(bc <= GOALS.bigSeconds * 1000 && bw <= GOALS.bigSeconds * 1000 && bm <= GOALS.bigMiB)})`,
  );
  if (cpuAt[1000] !== undefined)
    report.line(`  growth 1,000 → ${BIG} clusters: ×${fmt(bc / cpuAt[1000], 2)} CPU for ×${fmt(BIG / 1000, 0)} clusters`);

  // kpt sends a package's earlier output back with the rest on every render after the first.
  const first = run([EXE], yaml);
  const functionConfig = yaml.split('\nfunctionConfig:\n')[1] as string;
  const again = `${first.stdout.replace(/\nresults:\n[\s\S]*$/, '\n')}functionConfig:\n${functionConfig}`;
  const reruns = Array.from({ length: 3 }, () => run([EXE], again));
  if (reruns.some((x) => x.exit !== 0)) throw new Error(`re-render of ${N} clusters failed`);
  report.line('');
  report.line(
    `re-render of ${N} clusters with their previous output in the input (${fmt(Buffer.byteLength(again) / 2 ** 20, 1)} MiB in): CPU ${fmt(median(reruns.map((x) => x.cpuMs)), 0)} ms, wall ${fmt(median(reruns.map((x) => x.wallMs)), 0)} ms, peak RSS ${fmt(median(reruns.map((x) => x.maxRssMiB)), 0)} MiB`,
  );

  // Start-up: the empty ResourceList next to Node running an empty script, interleaved.
  const empty = resourceListText([]);
  const starts: number[] = [];
  const nodeAlone: number[] = [];
  const startWall: number[] = [];
  const nodeWall: number[] = [];
  for (let i = 0; i < 31; i++) {
    const s = run([EXE], empty);
    starts.push(s.cpuMs);
    startWall.push(s.wallMs);
    const e = run(['-e', '0'], empty);
    nodeAlone.push(e.cpuMs);
    nodeWall.push(e.wallMs);
  }
  const [sc, nc] = [median(starts), median(nodeAlone)];
  report.line(
    `cold start (empty ResourceList, medians of 31): CPU ${fmt(sc, 0)} ms vs node -e 0 ${fmt(nc, 0)} ms = ${fmt(sc / nc, 2)}x (goal ≤ ${GOALS.coldRatio}x: ${verdict(sc / nc <= GOALS.coldRatio)}); wall ${fmt(median(startWall), 0)} vs ${fmt(median(nodeWall), 0)} ms`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
