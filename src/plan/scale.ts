import { TOTAL_SLOTS } from '../api/contract/slots.js';
import type { RenderedCluster } from './rendered-cluster.js';
import type { ScalePlan } from './plan-schema.js';

/**
 * Shards and replicas that come or go. Slots are spread evenly, so going from `a` to `b` shards
 * moves about |b - a| / max(a, b) of them: to the new shards, or off the retired ones (the
 * controller drains a shard before it deletes it). Replicas move no slots; they sync in full.
 */
export function planScale(base: RenderedCluster, change: RenderedCluster): ScalePlan | undefined {
  const from = base.shards.length;
  const to = change.shards.length;
  if (from === to && base.replicasPerShard === change.replicasPerShard) return undefined;
  let podsAdded = 0;
  let podsRemoved = 0;
  for (const after of change.shards) {
    const before = base.shards.find((s) => s.index === after.index);
    podsAdded += Math.max(0, after.pods - (before?.pods ?? 0));
  }
  for (const before of base.shards) {
    const after = change.shards.find((s) => s.index === before.index);
    podsRemoved += Math.max(0, before.pods - (after?.pods ?? 0));
  }
  const names = (c: RenderedCluster) => c.shards.map((s) => s.statefulSet);
  return {
    shards: { from, to },
    replicasPerShard: { from: base.replicasPerShard, to: change.replicasPerShard },
    slotsToMove: from === to ? 0 : Math.round((TOTAL_SLOTS * Math.abs(to - from)) / Math.max(from, to)),
    podsAdded,
    podsRemoved,
    shardsAdded: names(change).filter((n) => !names(base).includes(n)),
    shardsRemoved: names(base).filter((n) => !names(change).includes(n)),
  };
}
