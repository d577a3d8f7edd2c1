import { compareStrings } from '../../api/order.js';
import { isFailed, isMyself, isPrimary } from './cluster-view.js';
import type { Answered } from './observation.js';
import type { PrimaryObservation, RebalanceDecision } from './rebalance.js';
import { TOTAL_SLOTS, countSlots, formatRanges } from '../../api/contract/slots.js';

/**
 * Between formation and the rebalance planner: which answering nodes are shard primaries (as
 * they see themselves), and whether every shard holds its share of the slots. Pure.
 */

/** Each answering node that calls itself a primary, with its replicas as its own view counts them. */
export function primaryObservations(answered: readonly Answered[]): PrimaryObservation[] {
  const out: PrimaryObservation[] = [];
  for (const o of answered) {
    const self = o.view.find(isMyself);
    if (!self || !isPrimary(self)) continue;
    const replicas = o.view.filter((n) => n.primaryId === self.id && !isFailed(n)).length;
    out.push({ shard: o.shard, pod: o.pod, self, replicas, clusterState: o.info.state });
  }
  return out.sort((a, b) => a.shard - b.shard || compareStrings(a.pod, b.pod));
}

/**
 * Why the slots are not spread as `shards` asks: a kept shard's primary off its share
 * (16384/shards, ±1), or a removed shard's primary still holding slots. Empty when balanced.
 */
export function shareProblems(shards: number, primaries: readonly PrimaryObservation[]): string[] {
  const problems: string[] = [];
  const base = Math.floor(TOTAL_SLOTS / shards);
  const top = Math.ceil(TOTAL_SLOTS / shards);
  for (const p of primaries) {
    const owned = countSlots(p.self.slots);
    if (p.shard >= shards) {
      if (owned > 0) problems.push(`shard ${p.shard} (being removed) still owns ${owned} slot(s)`);
    } else if (owned < base || owned > top) {
      problems.push(`shard ${p.shard}'s primary ${p.pod} owns ${owned} slot(s), its share is ${base === top ? base : `${base}-${top}`}`);
    }
  }
  return problems;
}

const ranges = (d: Extract<RebalanceDecision, { kind: 'move' }>): string =>
  formatRanges(d.slots)
    .split(',')
    .map((r) => r.replace('-', '–'))
    .join(', ');

/** Status wording for a move: "moving slots a–b from shard i to shard j: n of m slots left to move". */
export function describeMove(d: Extract<RebalanceDecision, { kind: 'move' }>, total?: number): string {
  const count = countSlots(d.slots);
  const left = d.remainingSlots;
  const of =
    total !== undefined && total >= left
      ? `${(total - left).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} slots moved`
      : `${left.toLocaleString('en-US')} slot(s) left to move`;
  return `moving slots ${ranges(d)} (${count}) from shard ${d.from.shard} to shard ${d.to.shard}: ${of}`;
}
