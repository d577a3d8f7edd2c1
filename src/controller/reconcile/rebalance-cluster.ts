import type { Answered } from '../cluster/observation.js';
import { EVENT } from '../../api/status-names.js';
import { slotsToCount, type PrimaryObservation, type RebalanceDecision } from '../cluster/rebalance.js';
import { describeMove, primaryObservations } from '../cluster/scaling.js';
import { countSlots } from '../cluster/slots.js';
import type { ScalingStatus } from '../cluster/status.js';
import type { EventRecorder, InvolvedObject } from '../kube/event-recorder.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import type { ControllerMetrics } from '../runtime/metrics.js';
import { migrateSlots, repairSlots, type MigrationNode } from '../valkey/migrate-slots.js';
import { parseMemoryInfo } from '../valkey/memory-info.js';
import type { NodeSession } from '../valkey/node-session.js';

/**
 * The rebalancer's reads and its two executors: what the primaries report (key counts of slots a
 * marker names, memory while a shrink runs), then, when the pass planner (cluster/pass-planner.ts,
 * over cluster/rebalance.ts) chose it, settling slots an interrupted migration left marked or
 * moving one bounded batch of slots (valkey/migrate-slots.ts). The planners decide from what the
 * primaries report right now, so a restarted controller picks up where the cluster is, not where
 * it thought it was.
 */

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
  /** Slots per step (the planner's default when absent). */
  batchSlots?: number;
}

/** What the heal and move executors need about the cluster. */
export interface RebalanceTarget {
  key: string;
  about: InvolvedObject;
  answered: readonly Answered[];
  sessions: ReadonlyMap<string, NodeSession>;
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
): Promise<{ primaries: PrimaryObservation[]; maxmemoryBytes?: number }> {
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

function migrationNodes(primaries: readonly PrimaryObservation[], input: Pick<RebalanceTarget, 'answered' | 'sessions'>): MigrationNode[] {
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
): Promise<ScalingStatus> {
  const totals = deps.scalingTotals;
  if (totals && !totals.has(input.key)) totals.set(input.key, d.remainingSlots);
  const total = totals?.get(input.key);
  const what = describeMove(d, total);
  const started = deps.clock.now();
  const out = await migrateSlots({ from: d.from.id, to: d.to.id, slots: d.slots }, nodes);
  deps.metrics.slotsMoved.inc(out.slotsMoved);
  deps.metrics.keysMoved.inc(out.keysMoved);
  deps.metrics.migrationSteps.inc({ result: out.error ? 'error' : 'ok' });
  deps.metrics.migrationSeconds.observe(Math.max(0, (deps.clock.now() - started) / 1000));
  const moved = `${out.slotsMoved} of ${countSlots(d.slots)} slot(s), ${out.keysMoved} key(s)`;
  if (out.error) {
    deps.events.record(input.about, 'Warning', EVENT.slotMigrationFailed, `${what}: ${moved} moved, then: ${out.error}`);
    deps.log.warn('rebalance: step failed', { step: what, error: out.error });
    return { phase: 'moving', message: `${what}; the last step failed (${out.error}), retrying` };
  }
  deps.events.record(
    input.about,
    'Normal',
    EVENT.slotsMoved,
    `Moved ${moved} from ${d.from.pod} (shard ${d.from.shard}) to ${d.to.pod} (shard ${d.to.shard}); ${d.remainingSlots - out.slotsMoved} slot(s) left to move`,
  );
  deps.log.info('rebalance: moved', { step: what, slots: out.slotsMoved, keys: out.keysMoved, warnings: out.warnings });
  // Status after the step: its slots count as moved.
  return { phase: 'moving', message: describeMove({ ...d, remainingSlots: d.remainingSlots - out.slotsMoved }, total) };
}

/** The primaries as the rebalance planner reads them: key counts of marked slots, memory during a shrink. */
export async function observeRebalance(
  answered: readonly Answered[],
  shards: number,
  sessions: ReadonlyMap<string, NodeSession>,
): Promise<{ primaries: PrimaryObservation[]; maxmemoryBytes?: number }> {
  const counted = await withKeyCounts(primaryObservations(answered), sessions);
  return withMemory(counted, shards, sessions);
}

/** Carries out the pass planner's heal or move; what status shows afterwards. */
export async function executeRebalance(
  decision: Extract<RebalanceDecision, { kind: 'heal' | 'move' }>,
  primaries: readonly PrimaryObservation[],
  input: RebalanceTarget,
  deps: RebalanceDeps,
): Promise<ScalingStatus> {
  try {
    const nodes = migrationNodes(primaries, input);
    return decision.kind === 'heal' ? await heal(decision, nodes, input, deps) : await move(decision, nodes, input, deps);
  } catch (e) {
    deps.metrics.migrationSteps.inc({ result: 'error' });
    return { phase: 'waiting', message: `rebalancing could not read or move slots: ${message(e)}` };
  }
}

/** Once the slots are balanced: the "n of m" a finished scaling counted is dropped, and an Event says so. */
export function rebalanceFinished(
  input: Pick<RebalanceTarget, 'key' | 'about'>,
  deps: Pick<RebalanceDeps, 'events' | 'scalingTotals'>,
): void {
  if (deps.scalingTotals?.delete(input.key))
    deps.events.record(input.about, 'Normal', EVENT.slotsBalanced, `Every shard primary holds its share of the slots`);
}
