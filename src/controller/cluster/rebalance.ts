import type { ClusterNode } from './cluster-view.js';
import { TOTAL_SLOTS, countSlots, toRanges, type SlotRange } from '../../api/contract/slots.js';

/**
 * Slot rebalancing when `shards` changes, as a pure decision over what the primaries report: heal
 * a migration left half done, hold a shrink that would not fit, wait for a new shard's replicas,
 * or move one bounded batch of slots from one primary to another. One migration per cluster at a
 * time: the caller carries out the step (valkey/migrate-slots.ts), observes again, and asks again.
 */

/** One shard's primary as observed: its own `CLUSTER NODES` line carries its slots and markers. */
export interface PrimaryObservation {
  shard: number;
  pod: string;
  /** The primary's `myself` line. */
  self: ClusterNode;
  /** Replicas attached to it and linked (`CLUSTER NODES` lines naming it as primary, not failed). */
  replicas: number;
  /** Its `CLUSTER INFO` cluster_state: nothing moves while a node says the cluster is down (a node just restarted does). */
  clusterState?: string;
  /**
   * What `maxmemory` counts on it now (`INFO memory`: `used_memory` less what eviction does not
   * count; valkey/memory-info.ts). Read only while a shrink is under way, for its remaining primaries.
   */
  usedMemoryBytes?: number;
  /**
   * What its keys would take on another node (`used_memory_dataset` plus the keys' index). Read
   * only while a shrink is under way, for the primaries being drained.
   */
  keyMemoryBytes?: number;
  /**
   * `CLUSTER COUNTKEYSINSLOT` on this node for every slot some marker names (see
   * `slotsToCount`): whether keys already reached a migration's target decides finish or roll back.
   */
  keysInSlots?: ReadonlyMap<number, number>;
}

export interface RebalanceOptions {
  /** Slots per step (default 64). */
  batchSlots?: number;
  /** A shrink starts only if the data fits in this share of the remaining primaries' maxmemory (default 0.9). */
  shrinkFillRatio?: number;
}

export interface RebalanceInput {
  /** The desired shard count; primaries of shards at or above it are drained. */
  shards: number;
  replicasPerShard: number;
  /** Every shard's primary that answered, the removed shards' included. */
  primaries: readonly PrimaryObservation[];
  /**
   * The smallest `maxmemory` among the remaining primaries (shards below `shards`), in bytes, as
   * they report it (the ValkeyConfig's value, applied live); 0 or absent means unbounded (no check).
   */
  maxmemoryBytes?: number;
  options?: RebalanceOptions;
}

export interface NodeRef {
  id: string;
  pod: string;
  shard: number;
}

/** How to settle one slot an interrupted migration left marked. */
export interface SlotRepair {
  slot: number;
  source: NodeRef | { id: string };
  target: NodeRef | { id: string };
  resolution: 'finish' | 'rollback';
  why: string;
}

export type RebalanceDecision =
  | { kind: 'heal'; repairs: SlotRepair[] }
  | { kind: 'hold'; reason: string }
  | { kind: 'wait'; reason: string }
  | { kind: 'move'; from: NodeRef; to: NodeRef; slots: SlotRange[]; remainingSlots: number; summary: string }
  | { kind: 'balanced'; drained: NodeRef[] };

const DEFAULT_BATCH = 64;
const DEFAULT_FILL = 0.9;

const refOf = (p: PrimaryObservation): NodeRef => ({ id: p.self.id, pod: p.pod, shard: p.shard });

const ownsSlot = (node: ClusterNode, slot: number): boolean => node.slots.some(([a, b]) => slot >= a && slot <= b);

/** Slots whose key counts the planner needs: every slot a migrating or importing marker names. */
export function slotsToCount(primaries: readonly PrimaryObservation[]): number[] {
  const slots = new Set<number>();
  for (const p of primaries) for (const m of [...(p.self.migrating ?? []), ...(p.self.importing ?? [])]) slots.add(m.slot);
  return [...slots].sort((a, b) => a - b);
}

/**
 * Markers left by an interrupted migration. A slot is finished when its target already holds keys
 * of it or was already made its owner (rolling back would strand those keys); otherwise nothing
 * reached the target, and clearing the markers loses nothing.
 */
export function planRepairs(primaries: readonly PrimaryObservation[]): SlotRepair[] {
  const byId = new Map(primaries.map((p) => [p.self.id, p]));
  const pending = new Map<number, { source: string; target: string }>();
  for (const p of primaries) {
    for (const m of p.self.migrating ?? []) pending.set(m.slot, { source: p.self.id, target: m.nodeId });
    for (const m of p.self.importing ?? []) if (!pending.has(m.slot)) pending.set(m.slot, { source: m.nodeId, target: p.self.id });
  }
  const ref = (id: string): NodeRef | { id: string } => {
    const p = byId.get(id);
    return p ? refOf(p) : { id };
  };
  const repairs: SlotRepair[] = [];
  for (const [slot, { source, target }] of [...pending].sort(([a], [b]) => a - b)) {
    const t = byId.get(target);
    const keysOnTarget = t?.keysInSlots?.get(slot) ?? 0;
    let resolution: SlotRepair['resolution'] = 'rollback';
    let why = 'no key reached the target and it was never made the owner';
    if (!t) why = 'the target is not a primary that answered';
    else if (ownsSlot(t.self, slot)) {
      resolution = 'finish';
      why = 'the target already owns the slot';
    } else if (keysOnTarget > 0) {
      resolution = 'finish';
      why = `${keysOnTarget} key(s) already reached the target`;
    }
    repairs.push({ slot, source: ref(source), target: ref(target), resolution, why });
  }
  return repairs;
}

/** Each kept shard's slot count: 16384/shards, the odd slots going to those already holding the most. */
function targetCounts(kept: readonly PrimaryObservation[]): Map<string, number> {
  const base = Math.floor(TOTAL_SLOTS / kept.length);
  let extra = TOTAL_SLOTS % kept.length;
  const order = [...kept].sort((a, b) => countSlots(b.self.slots) - countSlots(a.self.slots) || a.shard - b.shard);
  const targets = new Map<string, number>();
  for (const p of order) {
    targets.set(p.self.id, base + (extra > 0 ? 1 : 0));
    extra--;
  }
  return targets;
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * A shrink is held when the remaining primaries could not hold the data. What they must hold is
 * what they use now (their own keys and fixed overhead, as `maxmemory` counts it) plus the keys
 * still to move off the removed shards; what they may use is `shrinkFillRatio` (0.9) of the
 * smallest remaining `maxmemory`, times their number. The sum assumes the keys spread over the
 * slots evenly (hash tags can defeat that), and the 10% left over absorbs a step's growth and a
 * table resize. Checked before every step, not only the first: the data keeps growing while a
 * shrink runs, so one already half done that stops fitting is held where it stands (every slot
 * keeps an owner; nothing is retired while the removed shards hold slots).
 */
function shrinkHold(
  input: RebalanceInput,
  kept: readonly PrimaryObservation[],
  removed: readonly PrimaryObservation[],
): string | undefined {
  const max = input.maxmemoryBytes ?? 0;
  const draining = removed.filter((p) => p.self.slots.length > 0);
  if (max <= 0 || draining.length === 0) return undefined;
  const unknown = [...kept.filter((p) => p.usedMemoryBytes === undefined), ...draining.filter((p) => p.keyMemoryBytes === undefined)].map(
    (p) => p.pod,
  );
  if (unknown.length > 0) return `shrinking to ${input.shards} shard(s) is held: memory use of ${unknown.join(', ')} is not known yet`;
  const inUse = kept.reduce((n, p) => n + (p.usedMemoryBytes ?? 0), 0);
  const toMove = draining.reduce((n, p) => n + (p.keyMemoryBytes ?? 0), 0);
  const ratio = input.options?.shrinkFillRatio ?? DEFAULT_FILL;
  const room = kept.length * max * ratio;
  if (inUse + toMove <= room) return undefined;
  const from = draining.map((p) => p.shard).join(', ');
  return (
    `shrinking to ${input.shards} shard(s) is held: the ${kept.length} remaining primaries would need ${mib(inUse + toMove)} ` +
    `(${mib(inUse)} in use + ${mib(toMove)} of keys still on shard(s) ${from}) but may use ${mib(room)} ` +
    `(${Math.round(ratio * 100)}% of ${kept.length} × maxmemory ${mib(max)}); ` +
    `raise maxmemory in the cluster's ValkeyConfig, or remove fewer shards`
  );
}

/**
 * Whether removing shards down to `input.shards` would be held for memory right now: the same check
 * as a shrink under way, asked before the autoscaler proposes one (cluster/autoscale.ts).
 */
export function shrinkWouldNotFit(input: RebalanceInput): string | undefined {
  const kept = input.primaries.filter((p) => p.shard < input.shards);
  const removed = input.primaries.filter((p) => p.shard >= input.shards);
  return shrinkHold(input, kept, removed);
}

/** The highest `count` slots of `ranges`: what a donor gives, so its remaining slots stay contiguous from the start. */
function highestSlots(ranges: readonly SlotRange[], count: number): SlotRange[] {
  const out: number[] = [];
  for (let i = ranges.length - 1; i >= 0 && out.length < count; i--) {
    const [a, b] = ranges[i] as SlotRange;
    for (let s = b; s >= a && out.length < count; s--) out.push(s);
  }
  return toRanges(out);
}

export function planRebalance(input: RebalanceInput): RebalanceDecision {
  const down = input.primaries.filter((p) => p.clusterState !== undefined && p.clusterState !== 'ok').map((p) => p.pod);
  if (down.length > 0) return { kind: 'wait', reason: `cluster_state is not ok on ${down.join(', ')}` };
  const repairs = planRepairs(input.primaries);
  if (repairs.length > 0) return { kind: 'heal', repairs };

  const kept = input.primaries.filter((p) => p.shard < input.shards).sort((a, b) => a.shard - b.shard);
  const removed = input.primaries.filter((p) => p.shard >= input.shards).sort((a, b) => b.shard - a.shard);
  const missing: number[] = [];
  for (let s = 0; s < input.shards; s++) if (!kept.some((p) => p.shard === s)) missing.push(s);
  if (missing.length > 0) return { kind: 'wait', reason: `no primary observed yet for shard(s) ${missing.join(', ')}` };
  const assigned = input.primaries.reduce((n, p) => n + countSlots(p.self.slots), 0);
  if (assigned !== TOTAL_SLOTS) return { kind: 'wait', reason: `${assigned} of ${TOTAL_SLOTS} slots are assigned; formation comes first` };

  const hold = shrinkHold(input, kept, removed);
  if (hold) return { kind: 'hold', reason: hold };

  const targets = targetCounts(kept);
  const surplus = (p: PrimaryObservation): number => countSlots(p.self.slots) - (targets.get(p.self.id) ?? 0);
  // Donors: the removed shards first (highest index first), then the fullest kept primaries.
  const donors = [
    ...removed.filter((p) => p.self.slots.length > 0),
    ...kept.filter((p) => surplus(p) > 0).sort((a, b) => surplus(b) - surplus(a) || a.shard - b.shard),
  ];
  const receivers = kept.filter((p) => surplus(p) < 0).sort((a, b) => surplus(a) - surplus(b) || a.shard - b.shard);
  const [donor] = donors;
  if (!donor || receivers.length === 0) return { kind: 'balanced', drained: removed.map(refOf) };

  // A shard without slots gets data only once its replicas are attached, so it never holds data alone.
  const ready = receivers.filter((p) => p.self.slots.length > 0 || p.replicas >= input.replicasPerShard);
  const [receiver] = ready;
  if (!receiver) {
    const pods = receivers.map((p) => `${p.pod} (${p.replicas} of ${input.replicasPerShard})`).join(', ');
    return { kind: 'wait', reason: `new shard primaries wait for their replicas before taking slots: ${pods}` };
  }
  const give = donor.shard >= input.shards ? countSlots(donor.self.slots) : surplus(donor);
  const count = Math.min(input.options?.batchSlots ?? DEFAULT_BATCH, give, -surplus(receiver));
  const slots = highestSlots(donor.self.slots, count);
  const remainingSlots = removed.reduce((n, p) => n + countSlots(p.self.slots), 0) + kept.reduce((n, p) => n + Math.max(0, surplus(p)), 0);
  return {
    kind: 'move',
    from: refOf(donor),
    to: refOf(receiver),
    slots,
    remainingSlots,
    summary: `moving ${count} slot(s) from shard ${donor.shard} to shard ${receiver.shard}; ${remainingSlots} slot(s) left to move`,
  };
}
