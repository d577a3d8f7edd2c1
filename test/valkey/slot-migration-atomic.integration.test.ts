// Atomic slot migration (Valkey 9's CLUSTER MIGRATESLOTS) on real servers: a Valkey 9.1.2 cluster
// with the rendered users.acl, the controller's planner and executor (valkey/migrate-slots.ts,
// which takes the atomic path because every node has it) running as the controller user, and an
// application (iovalkey's Cluster client) writing and reading throughout. Besides 3 → 5 → 3 it
// proves the replication user's grants for the import one by one, and what a FLUSHALL during an
// import, a controller that stopped watching its job, and a source or target restarted mid-job
// leave: each time the slots end on one node with every key, and the client lost no write.
import type { AtomicFailures } from '../../src/controller/cluster/migration-path.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_USERNAMES } from '../../src/api/index.js';
import { isMyself } from '../../src/controller/cluster/cluster-view.js';
import { keysInKeyspace } from '../../src/controller/cluster/retire.js';
import { planRebalance } from '../../src/controller/cluster/rebalance.js';
import { TOTAL_SLOTS, countSlots, type SlotRange } from '../../src/api/contract/slots.js';
import { parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';
import { isFinished } from '../../src/controller/valkey/migrate-slots-atomic.js';
import { migrateSlots } from '../../src/controller/valkey/migrate-slots.js';
import type { SlotMigrationJob } from '../../src/controller/valkey/node-session.js';
import { connectResp, type RespConnection } from '../../src/controller/valkey/resp-connection.js';
import { systemClock } from '../../src/controller/runtime/clock.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { REPLICATION_RULES } from '../../src/render/acl.js';
import { clusterClient, loadKeys, startWorkload, type Workload, type WorkloadReport } from '../support/client-workload.js';
import { keySlot } from '../support/controller/cluster-writer.js';
import {
  APP_USER,
  answeredOf,
  controllerRebalancePass,
  migrationNodes,
  observePrimaries,
  rebalance,
  sessionsOf,
  startSlotCluster,
  type SlotCluster,
} from '../support/slot-cluster.js';

const KEYS = 100_000;
const STEP = { plan: { batchSlots: 1024 } };

let cluster: SlotCluster;
let workload: Workload;
let bulkSeq = 0;

const slotCounts = async (): Promise<number[]> => (await observePrimaries(cluster)).map((p) => countSlots(p.self.slots));

function expectBalanced(counts: number[], shards: number): void {
  const per = TOTAL_SLOTS / shards;
  for (const [i, n] of counts.entries()) {
    if (i < shards) expect(Math.abs(n - per), `node ${i} holds ${n}`).toBeLessThan(1 + 1e-9);
    else expect(n, `node ${i}`).toBe(0);
  }
}

async function appConnection(port: number): Promise<RespConnection> {
  const conn = await connectResp({ host: '127.0.0.1', port, connectTimeoutMs: 2000, commandTimeoutMs: 30_000 });
  await conn.call(['AUTH', APP_USER, cluster.appPassword]);
  return conn;
}

/** Keys a node holds in slots it does not own: what a half-done import must never leave behind. */
async function strayKeys(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const n of cluster.nodes) {
    const self = parseClusterNodes(await n.session.clusterNodes()).find(isMyself);
    const owned = new Set((self?.slots ?? []).flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i)));
    const foreign = Array.from({ length: TOTAL_SLOTS }, (_, s) => s).filter((s) => !owned.has(s));
    const counts = await Promise.all(foreign.map((s) => n.session.countKeysInSlot(s)));
    const stray = counts.reduce((a, c) => a + c, 0);
    if (stray > 0) out[`node-${n.index}`] = stray;
  }
  return out;
}

/** The next step 3 → 5 would take, as planned for the atomic path. */
async function nextMove() {
  const d = planRebalance({ shards: 5, replicasPerShard: 0, primaries: await observePrimaries(cluster), options: STEP.plan });
  if (d.kind !== 'move') throw new Error(`expected a move, got ${d.kind}`);
  const from = cluster.nodes.find((n) => n.id === d.from.id);
  const to = cluster.nodes.find((n) => n.id === d.to.id);
  if (!from || !to) throw new Error('step names an unknown node');
  return { d, from, to };
}

/**
 * Makes the import of `ranges` take a while: `count` values of 4 KiB in those slots (hash tags
 * found by CRC16), written through the cluster client. Not the workload's keys: these are only
 * checked for count.
 */
async function bulkInto(ranges: readonly SlotRange[], count: number): Promise<number> {
  const client = clusterClient(cluster.nodes[0]?.port as number, cluster.appPassword, true);
  const [[a, b]] = ranges as [SlotRange];
  const value = 'v'.repeat(4096);
  const sets: Promise<unknown>[] = [];
  while (sets.length < count) {
    const key = `bulk:${bulkSeq++}`;
    const slot = keySlot(key);
    if (slot >= a && slot <= b) sets.push(client.set(key, value));
  }
  await Promise.all(sets);
  client.disconnect();
  return count;
}

/** Waits until `node` reports a running job of `operation`, and returns it. */
async function runningJob(node: SlotCluster['nodes'][number], operation: 'IMPORT' | 'EXPORT'): Promise<SlotMigrationJob> {
  const until = Date.now() + 10_000;
  for (;;) {
    const job = (await node.session.slotMigrations()).find((j) => j.operation === operation && !isFinished(j));
    if (job) return job;
    if (Date.now() > until) throw new Error(`node-${node.index} never reported a running ${operation}`);
    await new Promise((r) => setTimeout(r, 2));
  }
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

describe('atomic slot migration on Valkey 9.1.2, with a client writing and reading throughout', () => {
  it('the controller may start, watch and cancel slot migrations, as rendered', async () => {
    const conn = await appConnection(cluster.nodes[0]?.port as number);
    const dryrun = (user: string, ...command: string[]) => conn.call(['ACL', 'DRYRUN', user, ...command]);
    try {
      const controller = cluster.controller.username;
      expect(await dryrun(controller, 'CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', '0', '1', 'NODE', 'x'.repeat(40))).toBe('OK');
      expect(await dryrun(controller, 'CLUSTER', 'GETSLOTMIGRATIONS')).toBe('OK');
      expect(await dryrun(controller, 'CLUSTER', 'CANCELSLOTMIGRATIONS')).toBe('OK');
      // The replication user writes what the import sends and reads nothing.
      expect(await dryrun(SYSTEM_USERNAMES.replication, 'GET', 'k')).toMatch(/no permissions/);
    } finally {
      conn.close();
    }
  });

  // What the import runs on the target as the replication user: the handshake (cluster|syncslots),
  // SELECT, and the keys' writes (the snapshot as commands, then the writes made meanwhile).
  const grants = [
    ['+cluster|syncslots', '-cluster|syncslots'],
    ['+select', '-select'],
    ['+@write', '-@write'],
    ['~*', 'resetkeys'],
  ] as const;
  it.each(grants)(
    'without %s the import fails and the slots stay on the source',
    async (grant, revoke) => {
      expect(REPLICATION_RULES.split(' ')).toContain(grant);
      const { d, from, to } = await nextMove();
      const conn = await appConnection(to.port);
      try {
        expect(await conn.call(['ACL', 'SETUSER', SYSTEM_USERNAMES.replication, revoke])).toBe('OK');
        const out = await migrateSlots({ from: d.from.id, to: d.to.id, slots: d.slots }, migrationNodes(cluster));
        process.stdout.write(`without ${grant}: ${out.error}\n`);
        expect(out.path).toBe('atomic');
        expect(out.error).toMatch(/ended failed/);
        expect(out.error).toMatch(/rolled back/);
        const owner = parseClusterNodes(await from.session.clusterNodes()).find(isMyself);
        expect(countSlots(owner?.slots ?? [])).toBeGreaterThanOrEqual(countSlots(d.slots));
      } finally {
        await to.session.aclLoad();
        conn.close();
      }
      expect(await strayKeys()).toEqual({});
    },
    60_000,
  );

  it('a FLUSHALL on the target during an import fails it; nothing is lost and the next step moves the slots', async () => {
    const { d, from, to } = await nextMove();
    // A FLUSHALL empties the whole node: "nothing is lost" holds only for a target that holds none
    // of the workload's keys yet, so this case comes before any step that leaves some on one.
    expect(keysInKeyspace(await to.session.infoKeyspace())).toBe(0);
    const bulk = await bulkInto(d.slots, 8_000);
    const conn = await appConnection(to.port);
    try {
      const step = migrateSlots({ from: d.from.id, to: d.to.id, slots: d.slots }, migrationNodes(cluster));
      const { state } = await runningJob(to, 'IMPORT');
      expect(await conn.call(['FLUSHALL'])).toBe('OK');
      const out = await step;
      process.stdout.write(`FLUSHALL on the target while its import was ${state}: ${out.error}\n`);
      expect(out.error).toMatch(/ended failed/);
      expect(out.error).toMatch(/rolled back/);
    } finally {
      conn.close();
    }
    const onSource = (
      await Promise.all(d.slots.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => from.session.countKeysInSlot(a + i))))
    ).reduce((n, c) => n + c, 0);
    expect(onSource).toBeGreaterThanOrEqual(bulk);
    expect(await strayKeys()).toEqual({});
    const run = await rebalance(cluster, 5, { ...STEP, stopAfterSteps: 1 });
    expect(run.paths.atomic).toBe(1);
    expect(run.keysMoved).toBeGreaterThanOrEqual(bulk);
  }, 120_000);

  it('the controller moves the step after a failed atomic step with the classic protocol, then goes back to atomic', async () => {
    const { to } = await nextMove();
    const events: { reason: string; message: string }[] = [];
    const atomicFailures = new Map<string, AtomicFailures>();
    const deps = {
      events: { record: (_a: unknown, _t: unknown, reason: string, message: string) => events.push({ reason, message }) },
      clock: systemClock,
      log: jsonLogger({ level: 'error' }),
      metrics: controllerMetrics(),
      atomicFailures,
      passBudgetMs: 0,
    };
    const about = { apiVersion: 'valkey.gomomento.com/v1alpha1', kind: 'ValkeyCluster', namespace: 'default', name: 'c' };
    const pass = async () =>
      controllerRebalancePass(
        { key: 'default/c', about, shards: 5, replicasPerShard: 0, answered: await answeredOf(cluster), sessions: sessionsOf(cluster) },
        deps,
      );
    const conn = await appConnection(to.port);
    try {
      expect(await conn.call(['ACL', 'SETUSER', SYSTEM_USERNAMES.replication, '-@write'])).toBe('OK');
      const failed = await pass();
      process.stdout.write(`failed atomic step, status: ${failed?.message}\n`);
      expect(failed?.message).toMatch(
        /the last step \(atomic\) failed .*ended failed.*rolled back.*retrying with the classic protocol, then the atomic path again$/,
      );
      expect(atomicFailures.get('default/c')).toMatchObject({ count: 1, classicNext: true });
    } finally {
      await to.session.aclLoad();
      conn.close();
    }
    const before = await slotCounts();
    const next = await pass();
    process.stdout.write(`next step, status: ${next?.message}\n`);
    expect(next?.message).toMatch(/\(classic protocol: an atomic step failed: /);
    const third = await pass();
    process.stdout.write(`the step after, status: ${third?.message}\n`);
    expect(third?.message).not.toMatch(/classic protocol/);
    expect(events.map((e) => e.reason)).toEqual(['SlotMigrationFailed', 'SlotsMoved', 'SlotsMoved']);
    expect(events[1]?.message).toMatch(/\(classic\)/);
    expect(events[2]?.message).toMatch(/\(atomic\)/);
    expect(await slotCounts()).not.toEqual(before);
    expect(await strayKeys()).toEqual({});
  }, 120_000);

  it('a job whose controller stopped watching it is waited for, then the scaling goes on', async () => {
    const { d, from } = await nextMove();
    await bulkInto(d.slots, 4_000);
    // What a controller killed right after sending the step leaves: the job, running on its own.
    await from.session.migrateSlotsTo(d.to.id, d.slots);
    const run = await rebalance(cluster, 5, { ...STEP, stopAfterSteps: 1 });
    process.stdout.write(`controller gone mid-job: waited for ${run.adopted} running job(s), then ${run.steps} step(s)\n`);
    expect(run.adopted).toBe(1);
    const owner = await observePrimaries(cluster);
    expect(owner.find((p) => p.self.id === d.to.id)?.self.slots).toEqual(expect.arrayContaining([...d.slots]));
    expect(await strayKeys()).toEqual({});
  }, 120_000);

  it.each(['source', 'target'] as const)(
    'the %s is killed mid-job and restarts: nothing keeps running, every slot keeps one owner with its keys, and the scaling goes on',
    async (which) => {
      const { d, from, to } = await nextMove();
      await bulkInto(d.slots, 8_000);
      await from.session.migrateSlotsTo(d.to.id, d.slots);
      const { state, name } = await runningJob(from, 'EXPORT');
      const node = which === 'source' ? from : to;
      await cluster.restart(node.index, { kill: true });
      const other = which === 'source' ? to : from;
      // 9.1.2 keeps an importing node's job log across a restart (the job that ran is marked failed,
      // "Process restarted"); an exporting node comes back with none. Either way nothing runs.
      const jobs = await node.session.slotMigrations();
      const stillRunning = jobs.filter((j) => !isFinished(j));
      const own = jobs.find((j) => j.name === name);
      const until = Date.now() + 30_000;
      let peer = (await other.session.slotMigrations()).filter((j) => !isFinished(j));
      while (peer.length && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        peer = (await other.session.slotMigrations()).filter((j) => !isFinished(j));
      }
      const theirs = (await other.session.slotMigrations()).find((j) => j.name === name);
      const owners = await observePrimaries(cluster);
      const targetOwns = countSlots(owners.find((p) => p.self.id === d.to.id)?.self.slots ?? []);
      process.stdout.write(
        `${which} killed and restarted while the job was ${state}: after restart it reports ${jobs.length} job(s)` +
          `${own ? `, this one ${own.state} (${own.message})` : ''}; the ${which === 'source' ? 'target' : 'source'} says ` +
          `${theirs ? `${theirs.state} (${theirs.message})` : 'nothing of it (the job never reached it)'}; the target owns ${targetOwns} slot(s)\n`,
      );
      expect(stillRunning).toEqual([]);
      expect(peer).toEqual([]);
      expect(await strayKeys()).toEqual({});
      const run = await rebalance(cluster, 5, { ...STEP, stopAfterSteps: 1 });
      expect(run.steps).toBe(1);
      expect(await strayKeys()).toEqual({});
    },
    180_000,
  );

  it('3 → 5 shards: balanced, every step atomic, the client following no ASK', async () => {
    const ask = workload.askRedirects();
    const run = await rebalance(cluster, 5, STEP);
    expect(workload.askRedirects()).toBe(ask);
    process.stdout.write(
      `3 → 5 (atomic): ${run.slotsMoved} slots, ${run.keysMoved} keys in ${run.seconds.toFixed(1)} s (${run.steps} steps)\n`,
    );
    expect(run.last.kind).toBe('balanced');
    expect(run.paths).toEqual({ atomic: run.steps, classic: 0 });
    expectBalanced(await slotCounts(), 5);
    expect(await strayKeys()).toEqual({});
  }, 600_000);

  it('5 → 3 shards: the removed shards hold no slot and no key, the client following no ASK', async () => {
    const ask = workload.askRedirects();
    const run = await rebalance(cluster, 3, STEP);
    expect(workload.askRedirects()).toBe(ask);
    process.stdout.write(
      `5 → 3 (atomic): ${run.slotsMoved} slots, ${run.keysMoved} keys in ${run.seconds.toFixed(1)} s (${run.steps} steps)\n`,
    );
    expect(run.last).toMatchObject({ kind: 'balanced', drained: [{ shard: 4 }, { shard: 3 }] });
    expect(run.paths.classic).toBe(0);
    expectBalanced(await slotCounts(), 3);
    for (const n of cluster.nodes.slice(3)) {
      const conn = await appConnection(n.port);
      expect(await conn.call(['DBSIZE'])).toBe(0);
      conn.close();
    }
  }, 600_000);

  it('the client lost no acknowledged write', async () => {
    const report: WorkloadReport = await workload.stop();
    process.stdout.write(
      `client: ${report.writes} writes, ${report.reads} reads, lost writes ${report.lostWrites}, stale reads ${report.staleReads}, ` +
        `ASK redirects ${report.askRedirects} (the classic step's), MOVED ${report.movedRedirects}, longest pause ${report.maxPauseMs.toFixed(0)} ms, ` +
        `errors other than MOVED/ASK ${JSON.stringify(report.errors)}\n`,
    );
    expect(report.writes).toBeGreaterThan(0);
    expect(report.lostWrites).toBe(0);
    expect(report.staleReads).toBe(0);
  }, 120_000);
});
