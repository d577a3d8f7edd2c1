import { isMyself } from './cluster-view.js';
import type { Answered, PodPlace } from './observation.js';
import { countSlots } from '../../api/contract/slots.js';

/**
 * Shards in: once the rebalance planner has drained the removed shards (those at or above
 * `spec.shards`, whose StatefulSets the renderer stopped rendering and prune protection keeps), they
 * are retired: forgotten by every remaining node, then their StatefulSet and PDB deleted. Pure;
 * nothing is retired while one of their nodes owns a slot, holds a key, or does not answer.
 */

export interface RetireInput {
  shards: number;
  /** Shard numbers whose StatefulSet still exists. */
  statefulSetShards: readonly number[];
  /** Each StatefulSet's `valkey.gomomento.com/shards` annotation: the shard count it was rendered for. */
  renderedShards?: readonly { shard: number; shards: number }[];
  /** Every pod of the cluster, with its observation when it answered. */
  pods: readonly PodPlace[];
  answered: readonly Answered[];
  /** Keys each removed pod holds (`INFO keyspace`), by pod; absent: not asked or no answer. */
  keys: ReadonlyMap<string, number>;
}

export type RetireDecision =
  | { kind: 'none' }
  | { kind: 'wait'; reason: string }
  | {
      kind: 'retire';
      shards: number[];
      /** The removed nodes' ids, forgotten on every remaining node. */
      nodeIds: string[];
      /** The remaining pods that answered: where CLUSTER FORGET is sent. */
      forgetOn: string[];
    };

/** `INFO keyspace` → keys in all databases (`db0:keys=12,expires=0,...`). */
export function keysInKeyspace(info: string): number {
  let total = 0;
  for (const m of info.matchAll(/^db\d+:keys=(\d+)/gm)) total += Number(m[1]);
  return total;
}

export function planRetirement(input: RetireInput): RetireDecision {
  const removed = [...new Set(input.statefulSetShards.filter((s) => s >= input.shards))].sort((a, b) => a - b);
  if (removed.length === 0) return { kind: 'none' };
  // The renderer writes `shards` on every StatefulSet it renders: the kept ones must already carry
  // the new count. Otherwise git is mid-apply, and a shard above spec.shards may be a new one whose
  // ValkeyCluster change has not arrived yet, not a removed one.
  const stale = (input.renderedShards ?? []).filter((r) => r.shard < input.shards && r.shards !== input.shards).map((r) => r.shard);
  if (stale.length)
    return { kind: 'wait', reason: `StatefulSets of shard(s) ${stale.join(', ')} were not rendered for ${input.shards} shards yet` };
  const removedPods = input.pods.filter((p) => removed.includes(p.shard));
  const podless = removed.filter((s) => !removedPods.some((p) => p.shard === s));
  if (podless.length) return { kind: 'wait', reason: `shard(s) ${podless.join(', ')} have no pod to drain and check` };
  const byPod = new Map(input.answered.map((o) => [o.pod, o]));
  const silent = removedPods.filter((p) => !byPod.has(p.pod)).map((p) => p.pod);
  if (silent.length) return { kind: 'wait', reason: `shard(s) ${removed.join(', ')} are retired once ${silent.join(', ')} answer` };
  const nodeIds: string[] = [];
  for (const p of removedPods) {
    const self = byPod.get(p.pod)?.view.find(isMyself);
    if (!self) return { kind: 'wait', reason: `pod ${p.pod} reports no node of its own` };
    const slots = countSlots(self.slots);
    if (slots > 0) return { kind: 'wait', reason: `shard ${p.shard} (being removed) still owns ${slots} slot(s)` };
    const keys = input.keys.get(p.pod);
    if (keys === undefined) return { kind: 'wait', reason: `the keys on ${p.pod} are not known yet` };
    if (keys > 0) return { kind: 'wait', reason: `${p.pod} (being removed) still holds ${keys} key(s)` };
    nodeIds.push(self.id);
  }
  const forgetOn = input.answered.filter((o) => o.shard < input.shards).map((o) => o.pod);
  return { kind: 'retire', shards: removed, nodeIds, forgetOn };
}
