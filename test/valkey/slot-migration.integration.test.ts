// The classic slot migration path on real servers: a Valkey 9.1.2 cluster with the rendered
// users.acl, the controller's planner (cluster/rebalance.ts) and executor (valkey/migrate-slots.ts)
// running as the controller user on the classic SETSLOT/MIGRATE protocol (asked for: 9.1.2 has the
// atomic one, which slot-migration-atomic.integration.test.ts covers; the classic path is the
// fallback), and an application (iovalkey's Cluster client) writing and reading throughout. Counts
// of lost writes, stale reads and errors the client saw are printed and asserted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMyself } from '../../src/controller/cluster/cluster-view.js';
import { planRebalance } from '../../src/controller/cluster/rebalance.js';
import { TOTAL_SLOTS, countSlots } from '../../src/api/contract/slots.js';
import { parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';
import { migrateSlots } from '../../src/controller/valkey/migrate-slots.js';
import type { NodeSession } from '../../src/controller/valkey/node-session.js';
import { connectResp } from '../../src/controller/valkey/resp-connection.js';
import { clusterClient, loadKeys, startWorkload, type Workload, type WorkloadReport } from '../support/client-workload.js';
import { APP_USER, migrationNodes, observePrimaries, rebalance, startSlotCluster, type SlotCluster } from '../support/slot-cluster.js';

const KEYS = 100_000;
const STEP = { plan: { batchSlots: 256 }, migrate: { keysPerBatch: 100, path: 'classic' } } as const;

let cluster: SlotCluster;
let workload: Workload;

const slotCounts = async (): Promise<number[]> => (await observePrimaries(cluster)).map((p) => countSlots(p.self.slots));
const markers = async (): Promise<number> =>
  (await observePrimaries(cluster)).reduce((n, p) => n + (p.self.migrating?.length ?? 0) + (p.self.importing?.length ?? 0), 0);

/** A heal decision's repairs as [slot, resolution], in slot order. */
const repairsOf = (d: ReturnType<typeof planRebalance>): [number, string][] =>
  d.kind === 'heal' ? d.repairs.map((r): [number, string] => [r.slot, r.resolution]).sort((a, b) => a[0] - b[0]) : [];

function expectBalanced(counts: number[], shards: number): void {
  const per = TOTAL_SLOTS / shards;
  for (const [i, n] of counts.entries()) {
    if (i < shards) expect(Math.abs(n - per), `node ${i} holds ${n}`).toBeLessThan(1 + 1e-9);
    else expect(n, `node ${i}`).toBe(0);
  }
}

/** A session whose getKeysInSlot aborts the step on its n-th call: the controller dies mid-slot. */
function dyingAfter(session: NodeSession, calls: number, controller: AbortController): NodeSession {
  let n = 0;
  return {
    ...session,
    getKeysInSlot: async (slot, count) => {
      if (++n < calls) return session.getKeysInSlot(slot, count);
      controller.abort();
      return [];
    },
  };
}

/**
 * Runs one migration step that is abandoned at its `calls`-th GETKEYSINSLOT on the source (2 keys
 * per MIGRATE). The executor marks a group of slots at once, so every slot of the step (4) is left
 * marked on both nodes: `slot` (the first) with some keys moved or none, the others with none.
 */
async function abandonStep(calls: number): Promise<{ slot: number; keysOnTarget: number; group: number[] }> {
  const d = planRebalance({ shards: 5, replicasPerShard: 0, primaries: await observePrimaries(cluster), options: { batchSlots: 4 } });
  if (d.kind !== 'move') throw new Error(`expected a move, got ${d.kind}`);
  const controller = new AbortController();
  const nodes = migrationNodes(cluster).map((n) => (n.id === d.from.id ? { ...n, session: dyingAfter(n.session, calls, controller) } : n));
  const out = await migrateSlots({ from: d.from.id, to: d.to.id, slots: d.slots }, nodes, {
    keysPerBatch: 2,
    signal: controller.signal,
    path: 'classic',
  });
  expect(out.error).toMatch(/aborted/);
  const [slot] = d.slots[0] as readonly [number, number];
  const target = cluster.nodes.find((n) => n.id === d.to.id);
  const group = d.slots.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
  return { slot, keysOnTarget: (await target?.session.countKeysInSlot(slot)) ?? -1, group };
}

beforeAll(async () => {
  cluster = await startSlotCluster({ nodes: 5, shards: 3 });
  const loader = clusterClient(cluster.nodes[0]?.port as number, cluster.appPassword);
  await loadKeys(loader, KEYS);
  loader.disconnect();
  workload = startWorkload(cluster.nodes[0]?.port as number, cluster.appPassword, KEYS);
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('slot migration on real servers, with a client writing and reading throughout', () => {
  it('the controller user may MIGRATE and the target takes RESTORE-ASKING as it, and nothing more on keys', async () => {
    const [a] = cluster.nodes;
    const conn = await connectResp({ host: '127.0.0.1', port: a?.port as number, connectTimeoutMs: 2000, commandTimeoutMs: 2000 });
    const dryrun = (...command: string[]) => conn.call(['ACL', 'DRYRUN', cluster.controller.username, ...command]);
    try {
      await conn.call(['AUTH', APP_USER, cluster.appPassword]);
      expect(await dryrun('MIGRATE', 'h', '1', '', '0', '1', 'AUTH2', 'u', 'p', 'KEYS', 'k')).toBe('OK');
      expect(await dryrun('RESTORE-ASKING', 'k', '0', 'x')).toBe('OK');
      expect(await dryrun('SELECT', '0')).toBe('OK');
      expect(await dryrun('COMMAND', 'INFO', 'cluster|migrateslots')).toBe('OK');
      expect(await dryrun('CLUSTER', 'SETSLOT', '1', 'STABLE')).toBe('OK');
      // Nothing else reaches a key: not reading, writing, restoring outside a migration, or flushing.
      for (const command of [['GET', 'k'], ['SET', 'k', 'v'], ['DEL', 'k'], ['RESTORE', 'k', '0', 'x'], ['FLUSHALL'], ['KEYS', '*']]) {
        expect(await dryrun(...command), command.join(' ')).toMatch(/no permissions/);
      }
    } finally {
      conn.close();
    }
  });

  it('3 → 5 shards: balanced', async () => {
    const run = await rebalance(cluster, 5, STEP);
    process.stdout.write(`3 → 5: ${run.slotsMoved} slots, ${run.keysMoved} keys in ${run.seconds.toFixed(1)} s (${run.steps} steps)\n`);
    expect(run.paths).toEqual({ atomic: 0, classic: run.steps });
    expect(run.last.kind).toBe('balanced');
    expectBalanced(await slotCounts(), 5);
  }, 600_000);

  it('5 → 3 shards: the removed shards hold no slot and no key', async () => {
    const run = await rebalance(cluster, 3, STEP);
    process.stdout.write(`5 → 3: ${run.slotsMoved} slots, ${run.keysMoved} keys in ${run.seconds.toFixed(1)} s (${run.steps} steps)\n`);
    expect(run.last).toMatchObject({ kind: 'balanced', drained: [{ shard: 4 }, { shard: 3 }] });
    expectBalanced(await slotCounts(), 3);
    for (const n of cluster.nodes.slice(3)) {
      const own = parseClusterNodes(await n.session.clusterNodes()).find(isMyself);
      expect(own?.slots).toEqual([]);
      expect(await n.session.infoMemory()).toMatch(/used_memory_dataset:/);
    }
    for (const n of cluster.nodes.slice(3)) {
      const conn = await connectResp({ host: '127.0.0.1', port: n.port, connectTimeoutMs: 2000, commandTimeoutMs: 2000 });
      await conn.call(['AUTH', APP_USER, cluster.appPassword]);
      expect(await conn.call(['DBSIZE'])).toBe(0);
      conn.close();
    }
  }, 600_000);

  it('the controller dies before any key moved: the healer rolls the slot back', async () => {
    const { slot, keysOnTarget, group } = await abandonStep(1);
    expect(keysOnTarget).toBe(0);
    expect(await markers()).toBe(2 * group.length);
    const d = planRebalance({ shards: 5, replicasPerShard: 0, primaries: await observePrimaries(cluster) });
    expect(d.kind).toBe('heal');
    expect(repairsOf(d)).toEqual(group.map((g) => [g, 'rollback']));
    const run = await rebalance(cluster, 5, { ...STEP, stopAfterSteps: 1 });
    expect(run.repaired).toBe(group.length);
    expect(await markers()).toBe(0);
    process.stdout.write(`controller killed before a key moved: slot ${slot} rolled back\n`);
  }, 120_000);

  it('the controller dies mid-slot: the healer finishes the slot', async () => {
    const { slot, keysOnTarget, group } = await abandonStep(3);
    expect(keysOnTarget).toBeGreaterThan(0);
    expect(await markers()).toBe(2 * group.length);
    const d = planRebalance({ shards: 5, replicasPerShard: 0, primaries: await observePrimaries(cluster) });
    expect(d.kind).toBe('heal');
    expect(repairsOf(d)).toEqual(group.map((g) => [g, g === slot ? 'finish' : 'rollback']));
    const run = await rebalance(cluster, 5, { ...STEP, stopAfterSteps: 1 });
    expect(run.repaired).toBe(group.length);
    expect(await markers()).toBe(0);
    process.stdout.write(`controller killed mid-slot (${keysOnTarget} keys on the target): slot ${slot} finished\n`);
  }, 120_000);

  it.each([
    ['target', 'to', 3],
    ['source', 'from', undefined],
  ] as const)(
    'the %s node restarts mid-slot: healed, then 3 → 5 goes on',
    async (_name, which, stopAfterSteps) => {
      const d = planRebalance({ shards: 5, replicasPerShard: 0, primaries: await observePrimaries(cluster), options: { batchSlots: 4 } });
      if (d.kind !== 'move') throw new Error(`expected a move, got ${d.kind}`);
      const { slot, keysOnTarget } = await abandonStep(3);
      const node = cluster.nodes.find((n) => n.id === d[which].id);
      await cluster.restart(node?.index as number);
      const after = await observePrimaries(cluster);
      const left = after.flatMap((p) => [...(p.self.migrating ?? []), ...(p.self.importing ?? [])].map((m) => `${p.pod}:${m.slot}`));
      const decision = planRebalance({ shards: 5, replicasPerShard: 0, primaries: after });
      process.stdout.write(
        `${_name} restarted mid-slot ${slot} (${keysOnTarget} keys on the target): markers after restart ${JSON.stringify(left)}, ` +
          `decision ${decision.kind === 'heal' ? JSON.stringify(decision.repairs.map((r) => r.resolution)) : decision.kind}\n`,
      );
      expect(decision.kind).toBe('heal');
      const run = await rebalance(cluster, 5, { ...STEP, ...(stopAfterSteps ? { stopAfterSteps } : {}) });
      expect(run.repaired).toBeGreaterThan(0);
      expect(await markers()).toBe(0);
      if (stopAfterSteps === undefined) {
        expect(run.last.kind).toBe('balanced');
        expectBalanced(await slotCounts(), 5);
      }
    },
    600_000,
  );

  it('the client lost no acknowledged write', async () => {
    const report: WorkloadReport = await workload.stop();
    process.stdout.write(
      `client: ${report.writes} writes, ${report.reads} reads, lost writes ${report.lostWrites}, stale reads ${report.staleReads}, ` +
        `ASK redirects ${report.askRedirects}, longest pause ${report.maxPauseMs.toFixed(0)} ms, errors other than MOVED/ASK ${JSON.stringify(report.errors)}\n`,
    );
    expect(report.writes).toBeGreaterThan(0);
    expect(report.lostWrites).toBe(0);
    expect(report.staleReads).toBe(0);
  }, 120_000);
});
