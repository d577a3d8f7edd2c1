// A real Valkey cluster on loopback for slot-migration tests and the migration benchmark: nodes of
// Valkey 9.1.2 with the rendered users.acl as it is, formed by hand (MEET, then
// contiguous slot ranges on the first `shards` nodes), and the controller's side: sessions as the
// controller user, observations for cluster/rebalance.ts, and a loop that plans and executes steps.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SYSTEM_USERNAMES } from '../../src/api/index.js';
import { isMyself, isPrimary } from '../../src/controller/cluster/cluster-view.js';
import {
  planRebalance,
  slotsToCount,
  type PrimaryObservation,
  type RebalanceDecision,
  type RebalanceOptions,
} from '../../src/controller/cluster/rebalance.js';
import { shardSlotRange } from '../../src/api/contract/slots.js';
import type { Answered } from '../../src/controller/cluster/observation.js';
import type { ScalingStatus } from '../../src/controller/cluster/status.js';
import {
  executeRebalance,
  observeRebalance,
  type RebalanceDeps,
  type RebalanceTarget,
} from '../../src/controller/reconcile/rebalance-cluster.js';
import { parseClusterInfo, parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';
import { parseInfo, serverIdentity } from '../../src/controller/valkey/info.js';
import { awaitRunningMigrations } from '../../src/controller/valkey/migrate-slots-atomic.js';
import {
  everyNodeHasAtomic,
  migrateSlots,
  repairSlots,
  type MigrateOptions,
  type MigrationNode,
} from '../../src/controller/valkey/migrate-slots.js';
import type { MigrationPath } from '../../src/controller/cluster/migration-path.js';
import { sessionOpener, type NodeSession } from '../../src/controller/valkey/node-session.js';
import { renderUsersAcl } from '../../src/render/acl.js';
import { freePorts, waitFor } from './process.js';
import type { RunningServer } from './servers.js';
import { SUPPORTED_BUILD, startValkey } from './valkey.js';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const pw = (): string => randomBytes(12).toString('hex');

export const APP_USER = 'app';

export interface SlotNode {
  index: number;
  port: number;
  busPort: number;
  dir: string;
  server: RunningServer;
  id: string;
  session: NodeSession;
}

export interface SlotCluster {
  nodes: SlotNode[];
  appPassword: string;
  controller: { username: string; password: string };
  /**
   * Stops node `i` (SIGTERM: the AOF is flushed; `kill`: SIGKILL at once, as a crash) and starts it
   * again on the same port and data dir.
   */
  restart(i: number, how?: { kill: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export interface SlotClusterOptions {
  nodes: number;
  /** The first `shards` nodes get slots; the others are met empty primaries. */
  shards: number;
  /** Persist with AOF so a restarted node keeps its keys (default true). */
  appendonly?: boolean;
  /** More users.acl lines, after the app user (users a test renders itself). */
  extraAclLines?: readonly string[];
}

export async function startSlotCluster(opts: SlotClusterOptions): Promise<SlotCluster> {
  const root = mkdtempSync(join(tmpdir(), 'valkey-krm-slots-'));
  const passwords = { replication: pw(), controller: pw(), app: pw() };
  const rendered = renderUsersAcl([], [], new Map(), {
    replication: sha256(passwords.replication),
    controller: [sha256(passwords.controller)],
  });
  const aclPath = join(root, 'users.acl');
  writeFileSync(
    aclPath,
    `${rendered}user ${APP_USER} on #${sha256(passwords.app)} resetchannels ~* &* +@all\n${(opts.extraAclLines ?? []).map((l) => `${l}\n`).join('')}`,
  );
  const controller = { username: SYSTEM_USERNAMES.controller, password: passwords.controller };
  const open = sessionOpener(async () => controller, { connectMs: 2_000, commandMs: 30_000 });

  const ports = await freePorts(opts.nodes * 2);
  const launch = (i: number, dir: string): Promise<RunningServer> =>
    startValkey({
      build: SUPPORTED_BUILD,
      port: ports[i * 2] as number,
      keepDir: true,
      args: [
        '--dir',
        dir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-port',
        String(ports[i * 2 + 1]),
        '--cluster-node-timeout',
        '5000',
        // As rendered: a primary that loses its last slot stays an empty primary, to be forgotten.
        '--cluster-allow-replica-migration',
        'no',
        '--aclfile',
        aclPath,
        '--masteruser',
        SYSTEM_USERNAMES.replication,
        '--masterauth',
        passwords.replication,
        '--appendonly',
        opts.appendonly === false ? 'no' : 'yes',
        '--appendfsync',
        'no',
      ],
    });
  const nodes: SlotNode[] = [];
  for (let i = 0; i < opts.nodes; i++) {
    const dir = join(root, `node-${i}`);
    mkdirSync(dir);
    const server = await launch(i, dir);
    const session = await open({ host: '127.0.0.1', port: server.port, busPort: ports[i * 2 + 1] as number }, undefined);
    const self = parseClusterNodes(await session.clusterNodes()).find(isMyself);
    nodes.push({ index: i, port: server.port, busPort: ports[i * 2 + 1] as number, dir, server, id: self?.id ?? '', session });
  }
  const [first, ...rest] = nodes as [SlotNode, ...SlotNode[]];
  for (const n of rest) await first.session.meet({ host: '127.0.0.1', port: n.port, busPort: n.busPort });
  for (let s = 0; s < opts.shards; s++) await nodes[s]?.session.addSlotsRange([shardSlotRange(s, opts.shards)]);
  await waitFor(
    'the cluster to form',
    async () => {
      for (const n of nodes) {
        const info = parseClusterInfo(await n.session.clusterInfo());
        if (info.state !== 'ok' || info.knownNodes !== nodes.length) return false;
      }
      return true;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );

  return {
    nodes,
    appPassword: passwords.app,
    controller,
    async restart(i, how) {
      const n = nodes[i] as SlotNode;
      n.session.close();
      await (how?.kill ? n.server.kill() : n.server.stop());
      rmSync(n.server.dir, { recursive: true, force: true });
      n.server = await launch(i, n.dir);
      n.session = await open({ host: '127.0.0.1', port: n.port, busPort: n.busPort }, undefined);
      await waitFor(
        'the restarted node to see the cluster ok',
        async () => parseClusterInfo(await n.session.clusterInfo()).state === 'ok',
        {
          timeoutMs: 30_000,
          intervalMs: 100,
        },
      );
    },
    async stop() {
      for (const n of nodes) {
        n.session.close();
        await n.server.stop();
        rmSync(n.server.dir, { recursive: true, force: true });
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** What the controller would observe: each node's own line, and key counts for marked slots. */
export async function observePrimaries(c: SlotCluster): Promise<PrimaryObservation[]> {
  const primaries: PrimaryObservation[] = [];
  for (const n of c.nodes) {
    const self = parseClusterNodes(await n.session.clusterNodes()).find(isMyself);
    if (!self) throw new Error(`node ${n.index}: no myself line`);
    if (!isPrimary(self)) continue;
    const clusterState = parseClusterInfo(await n.session.clusterInfo()).state;
    primaries.push({ shard: n.index, pod: `node-${n.index}`, self, replicas: 0, clusterState });
  }
  const marked = slotsToCount(primaries);
  for (const p of primaries) {
    const session = (c.nodes[p.shard] as SlotNode).session;
    const counts = new Map<number, number>();
    for (const slot of marked) counts.set(slot, await session.countKeysInSlot(slot));
    p.keysInSlots = counts;
  }
  return primaries;
}

/** What the controller's observation of each node would hold, every node its own shard's only pod. */
export async function answeredOf(c: SlotCluster): Promise<Answered[]> {
  return Promise.all(
    c.nodes.map(async (n): Promise<Answered> => {
      const identity = serverIdentity(parseInfo(await n.session.infoServer()));
      return {
        state: 'answered',
        pod: `node-${n.index}`,
        shard: n.index,
        ordinal: 0,
        identity,
        version: identity.kind === 'valkey' ? identity.version : 'unknown',
        endpoint: { host: '127.0.0.1', port: n.port, busPort: n.busPort },
        view: parseClusterNodes(await n.session.clusterNodes()),
        info: parseClusterInfo(await n.session.clusterInfo()),
      };
    }),
  );
}

export const sessionsOf = (c: SlotCluster): Map<string, NodeSession> => new Map(c.nodes.map((n) => [`node-${n.index}`, n.session]));

export const migrationNodes = (c: SlotCluster): MigrationNode[] =>
  c.nodes.map((n) => ({ id: n.id, endpoint: { host: '127.0.0.1', port: n.port }, session: n.session }));

export interface RebalanceRun {
  steps: number;
  slotsMoved: number;
  keysMoved: number;
  repaired: number;
  last: RebalanceDecision;
  seconds: number;
  /** Steps per protocol. */
  paths: Record<MigrationPath, number>;
  /** Atomic jobs found running before a step (started by someone else) and waited for. */
  adopted: number;
}

/** Plans and executes until balanced (or `stopAfterSteps`), as the reconcile loop would. */
export async function rebalance(
  c: SlotCluster,
  shards: number,
  opts: { plan?: RebalanceOptions; migrate?: MigrateOptions; stopAfterSteps?: number } = {},
): Promise<RebalanceRun> {
  const started = performance.now();
  const run: RebalanceRun = {
    steps: 0,
    slotsMoved: 0,
    keysMoved: 0,
    repaired: 0,
    last: { kind: 'balanced', drained: [] },
    seconds: 0,
    paths: { atomic: 0, classic: 0 },
    adopted: 0,
  };
  const patience = Date.now() + 60_000;
  const atomic = opts.migrate?.path !== 'classic' && (await everyNodeHasAtomic(migrationNodes(c)));
  for (;;) {
    // As the reconcile pass does: a job already running is waited for before anything is planned.
    if (atomic && (await awaitRunningMigrations(migrationNodes(c), 60_000)).waited) run.adopted++;
    const d = planRebalance({
      shards,
      replicasPerShard: 0,
      primaries: await observePrimaries(c),
      ...(opts.plan ? { options: opts.plan } : {}),
    });
    run.last = d;
    // A node that just restarted says the cluster is down until it has heard from its peers.
    if (d.kind === 'wait' && d.reason.startsWith('cluster_state') && Date.now() < patience) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    if (d.kind === 'balanced' || d.kind === 'hold' || d.kind === 'wait' || run.steps === opts.stopAfterSteps) break;
    run.steps++;
    if (d.kind === 'heal') {
      const r = await repairSlots(d.repairs, migrationNodes(c), opts.migrate);
      if (r.errors.length) throw new Error(r.errors.join('; '));
      run.repaired += r.repaired;
      continue;
    }
    const out = await migrateSlots({ from: d.from.id, to: d.to.id, slots: d.slots }, migrationNodes(c), opts.migrate);
    run.paths[out.path]++;
    run.slotsMoved += out.slotsMoved;
    run.keysMoved += out.keysMoved;
    if (out.error) throw new Error(out.error);
  }
  run.seconds = (performance.now() - started) / 1000;
  return run;
}

/**
 * What one controller pass does about slots when topology has the turn: the rebalancer's reads,
 * the rebalance planner, and its executor (reconcile/rebalance-cluster.ts), as reconcile-cluster.ts
 * wires them, without the rest of the pass. Undefined: the planner has nothing to heal or move.
 */
export async function controllerRebalancePass(
  target: RebalanceTarget,
  deps: RebalanceDeps,
): Promise<(ScalingStatus & { again?: boolean }) | undefined> {
  const seen = await observeRebalance(target.answered, target.shards, target.sessions);
  const decision = planRebalance({
    shards: target.shards,
    replicasPerShard: target.replicasPerShard,
    primaries: seen.primaries,
    ...(seen.maxmemoryBytes ? { maxmemoryBytes: seen.maxmemoryBytes } : {}),
    ...(deps.batchSlots ? { options: { batchSlots: deps.batchSlots } } : {}),
  });
  if (decision.kind === 'hold') return { phase: 'held', message: decision.reason };
  if (decision.kind === 'wait') return { phase: 'waiting', message: decision.reason };
  if (decision.kind !== 'heal' && decision.kind !== 'move') return undefined;
  return executeRebalance(decision, seen, target, deps);
}
