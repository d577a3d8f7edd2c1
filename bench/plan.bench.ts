// npx tsx bench/plan.bench.ts: the plan of 1,000 clusters where one shared config changes, next
// to a single render of the same package (render-valkey's plain-files mode, in process, both
// reading the same files). The plan renders both sides and compares them; target: within 2.5x.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stringify } from 'yaml';
import { clusterObjects, menuObjects, renderConfig } from './generate.js';
import { runCli } from '../src/krm/cli/run-cli.js';
import { runPlanCommand } from '../src/krm/plan-command.js';
import { figureLog } from './figures.js';

const report = figureLog('plan');

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

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

  const best = async (label: string, fn: () => Promise<number>) => {
    await fn(); // warm-up: module loading and JIT are not what is measured
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now();
      const exit = await fn();
      times.push(performance.now() - start);
      if (exit !== 0) throw new Error(`${label} exited ${exit}`);
    }
    return Math.min(...times);
  };

  let summary = '';
  const render = await best('render', async () => (await runCli('render-valkey', [join(root, 'change')], io)).exitCode);
  const plan = await best('plan', async () => {
    const out = runPlanCommand(['--base', join(root, 'base'), join(root, 'change')], { cwd: root });
    summary = out.stdout.split('\n')[0] ?? '';
    return out.exitCode;
  });
  report.line(`plan benchmark (node ${process.version}), ${CLUSTERS} clusters, ValkeyConfig ${SHARED} edited, best of ${RUNS}`);
  report.line(`  ${summary}`);
  report.line(`  single render (plain files, in process): ${render.toFixed(0)} ms`);
  report.line(`  plan (two renders compared):             ${plan.toFixed(0)} ms`);
  report.line(`  ratio: ${(plan / render).toFixed(2)}x (target: within 2.5x)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
