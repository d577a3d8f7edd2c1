import type { Answered } from '../cluster/observation.js';
import { afterMigrationStep, nextMigrationPath, retryWords, type AtomicFailures } from '../cluster/migration-path.js';
import { EVENT } from '../../api/status-names.js';
import { planRebalance, slotsToCount, type PrimaryObservation, type RebalanceDecision } from '../cluster/rebalance.js';
import { describeMove, primaryObservations } from '../cluster/scaling.js';
import { countSlots } from '../../api/contract/slots.js';
import type { ScalingStatus } from '../cluster/status.js';
import type { EventRecorder, InvolvedObject } from '../kube/event-recorder.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import type { ControllerMetrics } from '../runtime/metrics.js';
import { isMyself } from '../cluster/cluster-view.js';
import { parseClusterInfo, parseClusterNodes } from '../valkey/cluster-nodes.js';
import { awaitRunningMigrations } from '../valkey/migrate-slots-atomic.js';
import { everyNodeHasAtomic, migrateSlots, repairSlots, type MigrationNode } from '../valkey/migrate-slots.js';
import { parseMemoryInfo } from '../valkey/memory-info.js';
import type { NodeSession } from '../valkey/node-session.js';

/**
 * The rebalancer's reads and its executor: what the primaries report (key counts of slots a marker
 * names, memory while a shrink runs), then, when the pass planner (cluster/pass-planner.ts, over
 * cluster/rebalance.ts) chose healing or moving slots, carrying that out: settling slots an
 * interrupted migration left marked, or moving bounded batches (valkey/migrate-slots.ts).
 *
 * A move keeps going within its pass: batch after batch, each planned by cluster/rebalance.ts from
 * the primaries' lines read again after the last, for up to `PASS_BUDGET_MS`; a pass that ends
 * mid-migration asks to run again at once. So the speed is the servers' and the data's, not the
 * controller's requeue interval. The executor never starts another operation: it stops when the
 * slots are balanced, a shrink would not fit, or a step fails, and the next pass's planner decides.
 */

/**
 * How long one pass keeps moving slots before it writes status and hands back (it is queued again
 * at once). Short enough that status shows a migration's progress every couple of seconds (an
 * atomic step takes 1-1.5 s here: with 10 s, a whole 3 -> 5 moved in one pass and status never
 * said "moving slots"), long enough that a pass's reads are a small part of the time.
 */
const PASS_BUDGET_MS = 2_000;
/** Slots per atomic step: one CLUSTER MIGRATESLOTS job each (the classic path keeps the planner's 64). */
export const ATOMIC_BATCH_SLOTS = 1024;

export interface RebalanceDeps {
  events: EventRecorder;
  clock: Clock;
  log: Logger;
  metrics: ControllerMetrics;
  /**
   * Slots a scaling had to move when it started, per cluster, for "n of m" in status. In memory
   * only: after a controller restart status says how many are left instead.
   */
  scalingTotals?: Map<string, number>;
  /** Slots per step (the planner's default when absent, ATOMIC_BATCH_SLOTS on the atomic path). */
  batchSlots?: number;
  /**
   * Atomic steps that failed in a cluster's scaling (cluster/migration-path.ts decides what the
   * next step takes): cluster key → the record. Cleared when the cluster is balanced. In memory only.
   */
  atomicFailures?: Map<string, AtomicFailures>;
  /** How long one pass keeps moving slots (default PASS_BUDGET_MS; 0: one step per pass). */
  passBudgetMs?: number;
  /** `classic`: never the atomic path (the controller's --slot-migration); default auto. */
  slotMigration?: 'auto' | 'classic';
}

/** What the rebalance executor needs about the cluster. */
export interface RebalanceTarget {
  key: string;
  about: InvolvedObject;
  shards: number;
  replicasPerShard: number;
  answered: readonly Answered[];
  sessions: ReadonlyMap<string, NodeSession>;
}

/** The primaries as the rebalance planner reads them. */
export interface RebalanceObservation {
  primaries: PrimaryObservation[];
  /** The smallest non-zero maxmemory of the kept primaries, read during a shrink. */
  maxmemoryBytes?: number;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** `CLUSTER COUNTKEYSINSLOT` for each slot a marker names, on each primary: what heal decides from. */
async function withKeyCounts(primaries: PrimaryObservation[], sessions: ReadonlyMap<string, NodeSession>): Promise<PrimaryObservation[]> {
  const slots = slotsToCount(primaries);
  if (slots.length === 0) return primaries;
  return Promise.all(
    primaries.map(async (p) => {
      const session = sessions.get(p.pod);
      if (!session) return p;
      // Sent at once on the node's connection: an interrupted step leaves a whole group (32) marked.
      const counts = await Promise.all(slots.map((slot) => session.countKeysInSlot(slot)));
      return { ...p, keysInSlots: new Map(slots.map((slot, i) => [slot, counts[i] ?? 0])) };
    }),
  );
}

/**
 * While a shrink is under way (a primary of a shard at or above `shards` still owns slots), each
 * primary's `INFO memory`: what the remaining ones use and allow, what the draining ones' keys take
 * (cluster/rebalance.ts holds a shrink that would not fit). Asked before every step, since the data
 * keeps changing; not asked otherwise, so a steady cluster costs no extra round trip.
 */
async function withMemory(
  primaries: PrimaryObservation[],
  shards: number,
  sessions: ReadonlyMap<string, NodeSession>,
): Promise<RebalanceObservation> {
  if (!primaries.some((p) => p.shard >= shards && p.self.slots.length > 0)) return { primaries };
  const read = await Promise.all(
    primaries.map(async (p) => {
      const session = sessions.get(p.pod);
      return { p, memory: session ? parseMemoryInfo(await session.infoMemory()) : undefined };
    }),
  );
  // 0 is unbounded, so the smallest bound is the smallest non-zero maxmemory; none at all: no check.
  const bounds = read.filter(({ p, memory }) => p.shard < shards && (memory?.maxmemoryBytes ?? 0) > 0);
  const maxmemoryBytes = bounds.length ? Math.min(...bounds.map(({ memory }) => memory?.maxmemoryBytes ?? 0)) : 0;
  return {
    primaries: read.map(({ p, memory }) => (memory ? { ...p, usedMemoryBytes: memory.usedBytes, keyMemoryBytes: memory.keyBytes } : p)),
    maxmemoryBytes,
  };
}

function migrationNodes(primaries: readonly PrimaryObservation[], input: RebalanceTarget): MigrationNode[] {
  return primaries.flatMap((p) => {
    const session = input.sessions.get(p.pod);
    const o = input.answered.find((a) => a.pod === p.pod);
    return session && o ? [{ id: p.self.id, endpoint: { host: o.endpoint.host, port: o.endpoint.port }, session }] : [];
  });
}

async function heal(
  d: Extract<RebalanceDecision, { kind: 'heal' }>,
  nodes: MigrationNode[],
  input: RebalanceTarget,
  deps: RebalanceDeps,
): Promise<ScalingStatus> {
  const out = await repairSlots(d.repairs, nodes);
  const failed = new Set(out.errors.map((e) => Number(/^slot (\d+)/.exec(e)?.[1])));
  for (const r of d.repairs) deps.metrics.slotRepairs.inc({ resolution: r.resolution, result: failed.has(r.slot) ? 'error' : 'ok' });
  const summary = d.repairs.map((r) => `slot ${r.slot}: ${r.resolution} (${r.why})`).join('; ');
  deps.events.record(
    input.about,
    out.errors.length ? 'Warning' : 'Normal',
    EVENT.slotsHealed,
    `Settled slots an interrupted migration left marked: ${summary}`,
  );
  deps.log.info('rebalance: healed', { repairs: summary, errors: out.errors });
  const errors = out.errors.length ? `; failed: ${out.errors.join('; ')}` : '';
  return { phase: 'healing', message: `settling ${d.repairs.length} slot(s) an interrupted migration left marked${errors}` };
}

async function move(
  d: Extract<RebalanceDecision, { kind: 'move' }>,
  nodes: MigrationNode[],
  input: RebalanceTarget,
  deps: RebalanceDeps,
): Promise<ScalingStatus & { ok: boolean }> {
  const totals = deps.scalingTotals;
  if (totals && !totals.has(input.key)) totals.set(input.key, d.remainingSlots);
  const total = totals?.get(input.key);
  const what = describeMove(d, total);
  const started = deps.clock.now();
  const failures = deps.atomicFailures?.get(input.key);
  const next = nextMigrationPath(failures, deps.slotMigration);
  const out = await migrateSlots(
    { from: d.from.id, to: d.to.id, slots: d.slots },
    nodes,
    next.path === 'classic' ? { path: 'classic' } : {},
  );
  const after = afterMigrationStep(failures, out.path, out.error);
  if (after) deps.atomicFailures?.set(input.key, after);
  deps.metrics.slotsMoved.inc(out.slotsMoved);
  deps.metrics.keysMoved.inc(out.keysMoved);
  deps.metrics.migrationSteps.inc({ result: out.error ? 'error' : 'ok' });
  deps.metrics.migrationSeconds.observe(Math.max(0, (deps.clock.now() - started) / 1000));
  const moved = `${out.slotsMoved} of ${countSlots(d.slots)} slot(s), ${out.keysMoved} key(s)`;
  if (out.error) {
    // An atomic step that failed: the next step is classic, then atomic again (migration-path.ts).
    const retry = retryWords(after, out.path);
    deps.events.record(
      input.about,
      'Warning',
      EVENT.slotMigrationFailed,
      `${what} (${out.path}): ${moved} moved, then: ${out.error}; ${retry}`,
    );
    deps.log.warn('rebalance: step failed', { step: what, path: out.path, error: out.error });
    return { phase: 'moving', message: `${what}; the last step (${out.path}) failed (${out.error}), ${retry}`, ok: false };
  }
  deps.events.record(
    input.about,
    'Normal',
    EVENT.slotsMoved,
    `Moved ${moved} from ${d.from.pod} (shard ${d.from.shard}) to ${d.to.pod} (shard ${d.to.shard}) (${out.path}); ${d.remainingSlots - out.slotsMoved} slot(s) left to move`,
  );
  deps.log.info('rebalance: moved', { step: what, path: out.path, slots: out.slotsMoved, keys: out.keysMoved, warnings: out.warnings });
  // Status after the step: its slots count as moved.
  const via = next.why ? ` (${next.why})` : '';
  return {
    phase: 'moving',
    message: `${describeMove({ ...d, remainingSlots: d.remainingSlots - out.slotsMoved }, total)}${via}`,
    ok: true,
  };
}

/** The primaries' own lines read again after a step: slots and markers move, replicas do not. */
async function refreshed(
  primaries: readonly PrimaryObservation[],
  sessions: ReadonlyMap<string, NodeSession>,
): Promise<PrimaryObservation[]> {
  return Promise.all(
    primaries.map(async (p) => {
      const session = sessions.get(p.pod);
      if (!session) return p;
      const [nodes, info] = await Promise.all([session.clusterNodes(), session.clusterInfo()]);
      const self = parseClusterNodes(nodes).find(isMyself);
      return { shard: p.shard, pod: p.pod, replicas: p.replicas, self: self ?? p.self, clusterState: parseClusterInfo(info).state };
    }),
  );
}

/** The primaries read again after a step or a job that ran on its own, with what the planner reads of them. */
async function reread(primaries: readonly PrimaryObservation[], input: RebalanceTarget): Promise<RebalanceObservation> {
  const again = await refreshed(primaries, input.sessions);
  return withMemory(await withKeyCounts(again, input.sessions), input.shards, input.sessions);
}

/** The primaries as the rebalance planner reads them: key counts of marked slots, memory during a shrink. */
export async function observeRebalance(
  answered: readonly Answered[],
  shards: number,
  sessions: ReadonlyMap<string, NodeSession>,
): Promise<RebalanceObservation> {
  const counted = await withKeyCounts(primaryObservations(answered), sessions);
  return withMemory(counted, shards, sessions);
}

/**
 * Carries out the pass planner's heal or move, from the observation it decided on. `again` asks
 * the caller to run the next pass at once: this one ran out of its time budget while slots still
 * move, or moved the last of them (the next pass sees the slots from fresh observations and
 * retires the removed shards).
 */
export async function executeRebalance(
  chosen: Extract<RebalanceDecision, { kind: 'heal' | 'move' }>,
  seen: RebalanceObservation,
  input: RebalanceTarget,
  deps: RebalanceDeps,
): Promise<ScalingStatus & { again?: boolean }> {
  const started = deps.clock.now();
  const budget = deps.passBudgetMs ?? PASS_BUDGET_MS;
  let observation: RebalanceObservation = seen;
  // The planner's choice acts first; each later step is planned from the primaries read again.
  let decision: RebalanceDecision | undefined = chosen;
  let last: ScalingStatus | undefined;
  try {
    for (;;) {
      const { primaries, maxmemoryBytes } = observation;
      const plan = (batchSlots?: number): RebalanceDecision =>
        planRebalance({
          shards: input.shards,
          replicasPerShard: input.replicasPerShard,
          primaries,
          ...(maxmemoryBytes ? { maxmemoryBytes } : {}),
          ...(batchSlots ? { options: { batchSlots } } : {}),
        });
      decision ??= plan(deps.batchSlots);
      const nodes = migrationNodes(primaries, input);
      if (decision.kind === 'move' || decision.kind === 'heal') {
        const atomic =
          nextMigrationPath(deps.atomicFailures?.get(input.key), deps.slotMigration).path === 'atomic' && (await everyNodeHasAtomic(nodes));
        if (atomic) {
          // A job started before (a controller since restarted, a step past its deadline) runs on
          // its own: nothing new starts until it ends, then the slots are read again.
          const left = Math.max(0, budget - (deps.clock.now() - started));
          const { waited, running } = await awaitRunningMigrations(nodes, left);
          if (running.length > 0) return { phase: 'moving', message: `waiting for ${running.join('; ')}`, again: true };
          if (waited) {
            observation = await reread(primaries, input);
            decision = undefined;
            continue;
          }
          if (decision.kind === 'move') decision = plan(deps.batchSlots ?? ATOMIC_BATCH_SLOTS);
        }
      }
      switch (decision.kind) {
        case 'balanced':
          deps.atomicFailures?.delete(input.key);
          return last ? { ...last, again: true } : { phase: 'moving', message: 'slots are balanced', again: true };
        case 'wait':
          return last ?? { phase: 'waiting', message: decision.reason };
        case 'hold':
          // Nothing moves and nothing is retired (the next pass's planner holds it too).
          deps.log.info('rebalance: held', { reason: decision.reason });
          return { phase: 'held', message: decision.reason };
        case 'heal':
          return await heal(decision, nodes, input, deps);
        case 'move': {
          const out = await move(decision, nodes, input, deps);
          const { ok, ...status } = out;
          last = status;
          if (!ok) return status;
          if (deps.clock.now() - started >= budget) return { ...status, again: true };
          observation = await reread(primaries, input);
          decision = undefined;
        }
      }
    }
  } catch (e) {
    deps.metrics.migrationSteps.inc({ result: 'error' });
    return { phase: 'waiting', message: `rebalancing could not read or move slots: ${message(e)}` };
  }
}

/** Once the slots are balanced: the "n of m" a finished scaling counted is dropped, and an Event says so. */
export function rebalanceFinished(
  input: Pick<RebalanceTarget, 'key' | 'about'>,
  deps: Pick<RebalanceDeps, 'events' | 'scalingTotals' | 'atomicFailures'>,
): void {
  deps.atomicFailures?.delete(input.key);
  if (deps.scalingTotals?.delete(input.key))
    deps.events.record(input.about, 'Normal', EVENT.slotsBalanced, `Every shard primary holds its share of the slots`);
}
