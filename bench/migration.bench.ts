// npx tsx bench/migration.bench.ts: slot migration on this machine, the classic protocol and Valkey
// 9's atomic one side by side in one run. For each path a fresh Valkey 9.1.2 cluster (the rendered
// users.acl) is loaded with BENCH_KEYS small keys (default 1000000), grows from 3 to 6 shards and
// shrinks back to 3 with the controller's planner and executor at their shipped step sizes (64
// slots a classic step, ATOMIC_BATCH_SLOTS an atomic one), steps back to back as a reconcile pass
// runs them, while an iovalkey Cluster client writes and reads. Prints per direction: slots/s,
// keys/s, the client's longest wait for one command, ASK redirects it followed, and acknowledged
// writes lost. BENCH_PATHS (default "classic,atomic") picks the paths.
//
// The figures quoted in docs/controller.md ("Slot migration: measured") come from this bench.
import { ATOMIC_BATCH_SLOTS } from '../src/controller/reconcile/rebalance-cluster.js';
import { clusterClient, loadKeys, startWorkload } from '../test/support/client-workload.js';
import { rebalance, startSlotCluster } from '../test/support/slot-cluster.js';

const keys = Number(process.env.BENCH_KEYS ?? 1_000_000);
const paths = (process.env.BENCH_PATHS ?? 'classic,atomic').split(',') as ('classic' | 'atomic')[];
const CLASSIC_BATCH_SLOTS = 64; // the planner's default (cluster/rebalance.ts)

interface Row {
  path: string;
  direction: string;
  slots: number;
  keys: number;
  seconds: number;
  steps: number;
  pauseMs: number;
  ask: number;
  lost: number;
  errors: string;
}

const rows: Row[] = [];

for (const path of paths) {
  const cluster = await startSlotCluster({ nodes: 6, shards: 3, appendonly: false });
  try {
    const port = cluster.nodes[0]?.port as number;
    const loadStart = performance.now();
    const loader = clusterClient(port, cluster.appPassword, true);
    await loadKeys(loader, keys, 10_000);
    loader.disconnect();
    console.log(`[${path}] loaded ${keys} keys in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);
    const opts = {
      plan: { batchSlots: path === 'atomic' ? ATOMIC_BATCH_SLOTS : CLASSIC_BATCH_SLOTS },
      migrate: { keysPerBatch: 100, path: path === 'atomic' ? ('auto' as const) : ('classic' as const) },
    };
    for (const [direction, shards] of [
      ['3 → 6', 6],
      ['6 → 3', 3],
    ] as const) {
      const workload = startWorkload(port, cluster.appPassword, keys);
      const run = await rebalance(cluster, shards, opts);
      const report = await workload.stop();
      if (run.paths[path] !== run.steps) throw new Error(`${path}: ${JSON.stringify(run.paths)} of ${run.steps} steps`);
      const row: Row = {
        path,
        direction,
        slots: run.slotsMoved,
        keys: run.keysMoved,
        seconds: run.seconds,
        steps: run.steps,
        pauseMs: report.maxPauseMs,
        ask: report.askRedirects,
        lost: report.lostWrites,
        errors: JSON.stringify(report.errors),
      };
      rows.push(row);
      console.log(
        `[${path}] ${direction}: ${row.slots} slots, ${row.keys} keys in ${row.seconds.toFixed(1)} s (${row.steps} steps); ` +
          `client ${report.writes} writes, longest pause ${row.pauseMs.toFixed(0)} ms, ASK ${row.ask}, lost ${row.lost}, errors ${row.errors}`,
      );
    }
  } finally {
    await cluster.stop();
  }
}

console.log(`\n${keys.toLocaleString('en-US')} small keys, Valkey 9.1.2, 6 nodes on loopback, a client writing and reading throughout:`);
console.log('| path | change | slots/s | keys/s | time | steps | longest client pause | ASK redirects | acknowledged writes lost |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(
    `| ${r.path} | ${r.direction} | ${(r.slots / r.seconds).toFixed(0)} | ${(r.keys / r.seconds).toFixed(0)} | ${r.seconds.toFixed(1)} s | ` +
      `${r.steps} | ${r.pauseMs.toFixed(0)} ms | ${r.ask} | ${r.lost} |`,
  );
