import { replicaInSync } from '../../api/contract/replica-sync.js';
import { isMyself, isPrimary } from './cluster-view.js';
import type { Answered } from './observation.js';

/**
 * Replicas down: the StatefulSet controller removes the highest ordinals, so each shard's primary
 * is kept at ordinal 0. After a failover moved it (a node restart, a roll), ordinal 0 takes it back
 * with a graceful `CLUSTER FAILOVER` once it is in sync. Pure; one failback per pass.
 *
 * Where the pods' Nodes are known, the pod each shard is led from is chosen by where it runs
 * (leader-placement.ts: no node or zone with half the primaries or more), ordinal 0 whenever that
 * keeps the spread; `leaders` carries that choice, and a shard it does not name goes to ordinal 0.
 */

export type FailbackDecision =
  | { kind: 'none' }
  | { kind: 'wait'; reason: string }
  | {
      kind: 'failover';
      on: string;
      from: string;
      shard: number;
      /** Why the primary's pod is leaving (its Node cordoned, its pod being evicted): a drain handover (drain-handover.ts), not a failback. */
      leaving?: string;
    };

export function planFailback(shards: number, answered: readonly Answered[], leaders?: ReadonlyMap<number, string>): FailbackDecision {
  const waits: string[] = [];
  for (let s = 0; s < shards; s++) {
    const inShard = answered.filter((o) => o.shard === s);
    const primary = inShard.find((o) => {
      const self = o.view.find(isMyself);
      return self !== undefined && isPrimary(self) && self.slots.length > 0;
    });
    const chosen = leaders?.get(s);
    const atTarget = (o: Answered): boolean => (chosen === undefined ? o.ordinal === 0 : o.pod === chosen);
    if (!primary || atTarget(primary)) continue;
    const primaryId = primary.view.find(isMyself)?.id;
    const first = inShard.find(atTarget);
    const where = chosen === undefined || first?.ordinal === 0 ? 'ordinal 0' : `${chosen} (primaries spread over nodes and zones)`;
    const firstSelf = first?.view.find(isMyself);
    // Ordinal 0 not answering (starting, unreachable, refused by the version gate) is formation's
    // to report; failback has nothing to add until it answers.
    if (!first || !firstSelf) continue;
    if (firstSelf.primaryId !== primaryId) {
      waits.push(
        `shard ${s}: primary ${primary.pod} is not at ${where}, and ${where === 'ordinal 0' ? 'ordinal 0' : chosen} does not replicate it yet`,
      );
      continue;
    }
    // The primary ignores a manual failover from a node it does not know as its replica, and the
    // other primaries deny their votes to a node they still see as a primary: right after a failover
    // (ordinal 0 just demoted) gossip lags by a second or so, and a CLUSTER FAILOVER then only times out.
    const firstId = firstSelf.id;
    const stale = answered.filter((o) => o !== first && o.view.some((n) => n.id === firstId && n.primaryId !== primaryId));
    if (!primary.view.some((n) => n.id === firstId && n.primaryId === primaryId) || stale.length) {
      waits.push(`shard ${s}: ${first.pod} takes the primary back from ${primary.pod} once every node sees it replicate ${primary.pod}`);
      continue;
    }
    if (!replicaInSync(first.replication, primary.replication?.offset)) {
      waits.push(`shard ${s}: ${first.pod} takes the primary back from ${primary.pod} once it is in sync`);
      continue;
    }
    return { kind: 'failover', on: first.pod, from: primary.pod, shard: s };
  }
  return waits.length ? { kind: 'wait', reason: waits.join('; ') } : { kind: 'none' };
}
