// npx tsx bench/plan.bench.ts: the plan of 1,000 clusters where one shared config changes, next
// to a single render of the same package (render-valkey's plain-files mode, in process, both
// reading the same files). The plan renders both sides and compares them; target: within 2.5x.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { clusterObjects, menuObjects, renderConfig } from './generate.js';
import { runCli } from '../src/krm/cli/run-cli.js';
import { runPlanCommand } from '../src/krm/plan-command.js';
import { figureLog } from './figures.js';

const report = figureLog('plan');

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

const yamlStream = (objects: unknown[]) => objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');

function writePackage(dir: string, menu: unknown[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'menu.yaml'), yamlStream(menu));
  writeFileSync(join(dir, 'clusters.yaml'), yamlStream(clusterObjects(CLUSTERS)));
  writeFileSync(join(dir, 'render-config.yaml'), yamlStream([renderConfig]));
}

// The change: the root of one chain (a config every cluster on that chain inherits) changes maxmemory.
const SHARED = 'chain0-level9';
const base = menuObjects();
const change = base.map((o) => {
  const obj = o as { kind: string; metadata: { name: string }; spec: { valkey?: Record<string, string> } };
  return obj.kind === 'ValkeyConfig' && obj.metadata.name === SHARED
    ? { ...obj, spec: { ...obj.spec, valkey: { ...obj.spec.valkey, maxmemory: '1400mb' } } }
    : obj;
});

const root = mkdtempSync(join(tmpdir(), 'plan-bench-'));
try {
  writePackage(join(root, 'base'), base);
  writePackage(join(root, 'change'), change);
  const io = { readStdin: async () => '', stdinIsTTY: true };

  // CPU time of this process (other work on the machine disturbs it least), render and plan
  // interleaved, medians of RUNS after a warm-up of each (module loading and JIT are not measured).
  const cpuMs = async (label: string, fn: () => Promise<number>): Promise<number> => {
    const before = process.cpuUsage();
    const exit = await fn();
    const used = process.cpuUsage(before);
    if (exit !== 0) throw new Error(`${label} exited ${exit}`);
    return (used.user + used.system) / 1000;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

  let summary = '';
  const renderOnce = async () => (await runCli('render-valkey', [join(root, 'change')], io)).exitCode;
  const planOnce = async () => {
    const out = runPlanCommand(['--base', join(root, 'base'), join(root, 'change')], { cwd: root });
    summary = out.stdout.split('\n')[0] ?? '';
    return out.exitCode;
  };
  await renderOnce();
  await planOnce();
  const renders: number[] = [];
  const plans: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    renders.push(await cpuMs('render', renderOnce));
    plans.push(await cpuMs('plan', planOnce));
  }
  const [render, plan] = [median(renders), median(plans)];
  report.line(
    `plan benchmark (node ${process.version}), ${CLUSTERS} clusters, ValkeyConfig ${SHARED} edited, CPU medians of ${RUNS} interleaved runs`,
  );
  report.line(`  ${summary}`);
  report.line(`  single render (plain files, in process): ${render.toFixed(0)} ms CPU`);
  report.line(`  plan (two renders compared):             ${plan.toFixed(0)} ms CPU`);
  report.line(`  ratio: ${(plan / render).toFixed(2)}x (target: within 2.5x)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
