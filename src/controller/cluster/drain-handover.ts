import { planFailback, type FailbackDecision } from './failback.js';
import { leaving, type KubeFacts } from './kube-facts.js';
import { isMyself, isPrimary } from './cluster-view.js';
import type { LeaderPlan } from './leader-placement.js';
import type { Answered } from './observation.js';

/**
 * A primary on a cordoned Node hands its shard to an in-sync replica on another Node, with the
 * graceful `CLUSTER FAILOVER` the failback uses (the replica catches up with the paused primary
 * first, so nothing acknowledged is lost), before the drain's eviction stops it.
 *
 * Why: a primary stopped by an eviction relies on Valkey's own handover (`shutdown-on-sigterm
 * failover`), which measured on three nodes failed about one stop in five ("Unable to find a
 * replica to perform the auto failover on shutdown"), and the shard then waited for
 * `cluster-node-timeout` (21-28 s without writes). A cordon comes first in every drain (`kubectl
 * drain`, node-pool upgrades), so whatever time the eviction leaves (a PodDisruptionBudget that
 * refuses it until the shard is whole, an upgrade tool that cordons a pool before it drains it) is
 * used to move the primary while its pod still runs. A primary whose eviction comes at once still
 * has Valkey's handover.
 *
 * The replica taken is the one the leader placement chooses among the pods on Nodes that are not
 * cordoned (leader-placement.ts, pass-planner.ts leaderCandidates), so the spread holds; it must
 * be in sync and known as the primary's replica by every node (failback.ts checks both). Once the
 * Node is uncordoned, the failback moves primaries back to the spread layout. Pure.
 */
export function planDrainHandover(shards: number, answered: readonly Answered[], kube: KubeFacts, leaders: LeaderPlan): FailbackDecision {
  const draining = new Map<number, string>();
  const waits: string[] = [];
  for (let s = 0; s < shards; s++) {
    const primary = answered.find((o) => {
      const self = o.view.find(isMyself);
      return o.shard === s && self !== undefined && isPrimary(self) && self.slots.length > 0;
    });
    const why = primary ? leaving(kube, primary.pod) : undefined;
    if (!primary || !why) continue;
    const chosen = leaders.leaders.get(s);
    if (chosen === undefined || chosen === primary.pod || leaving(kube, chosen)) {
      waits.push(`shard ${s}: primary ${primary.pod} is leaving (${why}) and no replica that stays can take it over`);
      continue;
    }
    draining.set(s, why);
  }
  if (draining.size === 0) return waits.length ? { kind: 'wait', reason: waits.join('; ') } : { kind: 'none' };
  const only = new Map([...draining.keys()].map((s) => [s, leaders.leaders.get(s) as string]));
  const decision = planFailback(
    shards,
    answered.filter((o) => draining.has(o.shard)),
    only,
  );
  if (decision.kind === 'failover') return { ...decision, leaving: draining.get(decision.shard) as string };
  const reasons = [...waits, ...(decision.kind === 'wait' ? [decision.reason] : [])];
  return reasons.length ? { kind: 'wait', reason: reasons.join('; ') } : { kind: 'none' };
}
