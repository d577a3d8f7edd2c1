import { replicaInSync } from '../../api/contract/replica-sync.js';
import { isFailed, isMyself, isPrimary, type ClusterNode } from './cluster-view.js';
import { nodeLost, type KubeFacts, type PodFacts } from './kube-facts.js';
import type { Answered, NodeObservation } from './observation.js';

/**
 * When the controller may promote a replica without the vote (`CLUSTER FAILOVER TAKEOVER`).
 *
 * Valkey promotes a dead primary's replica only once a majority of the slot-owning primaries mark
 * it failed. A cluster that lost that majority (a node or zone holding half of its primaries or
 * more) never gets the flag and stays down. Pure: it reads this pass's observations and
 * Kubernetes' facts, and names, per dead primary, the replica that may take over and why, or why
 * not.
 *
 * Safe only when all of these hold:
 *   - the surviving slot-owning primaries are not a majority (otherwise Valkey votes, and a
 *     takeover beside its election could promote two replicas);
 *   - Kubernetes holds the dead primary's pod gone: no pod has its address any more (deleted or
 *     re-created: Kubernetes removes a pod only once its kubelet confirmed it stopped, or a person
 *     or the node controller asserted so by deleting the Node, the out-of-service taint, a forced
 *     delete), the pod at that address answers as another node (re-created), the pod is being
 *     deleted, or its Node is NotReady, Unknown, deleted or out-of-service. The first two are facts
 *     about the pod alone, so they count where the controller cannot read Nodes (a namespaced
 *     install): a shard of a one- or two-shard cluster whose primary was deleted while Valkey's own
 *     handover failed (no preStop hold ran, or it ran out) would otherwise stay unserved for good;
 *   - the controller cannot reach it, and the replica itself has lost its link to it;
 *   - the replica was in sync at the controller's last sight (or, with no sight kept, it finished
 *     its sync with that primary and is not syncing now).
 *
 * Unsafe, so never: the pod is Running on a Ready Node but does not answer the controller. That is
 * a partition, not a loss: the old primary may serve clients on its side, and a takeover would
 * leave two primaries for the same slots; the writes on the losing side would be lost when the
 * partition heals. Without Nodes nothing else counts: a pod being deleted on a Node that is cut
 * off stays Terminating while its server may still serve.
 */

export interface LastSight {
  /** The primary the replica followed. */
  primaryId: string;
  /** Its link was up and it was in sync with that primary. */
  inSync: boolean;
}

export interface LostPrimariesInput {
  observations: readonly NodeObservation[];
  kube: KubeFacts;
  /** Each replica pod's last sight as this process recorded it (reconcile/kube-facts.ts); lost with the process. */
  lastSight: ReadonlyMap<string, LastSight>;
}

export interface Takeover {
  shard: number;
  deadPrimaryId: string;
  deadAddress: string;
  /** The dead primary's pod, when one still has (or had) its address. */
  deadPod?: string;
  replica: string;
  /** Why the dead primary is held gone, for the Event and status. */
  why: string;
}

export interface LostPrimaries {
  /** Slot-owning primaries the cluster knows, and how many of them answer. */
  primaries: number;
  alive: number;
  /** By dead primary id. */
  takeovers: ReadonlyMap<string, Takeover>;
  /** Why a dead primary's replica is not promoted, one line each, with what a person can do. */
  refused: readonly string[];
}

const selfOf = (o: Answered): ClusterNode | undefined => o.view.find(isMyself);
const addressOf = (n: ClusterNode): string => `${n.ip}:${n.port}`;

/** The pod Kubernetes has at that address, if any. */
function podAt(kube: KubeFacts, address: string): PodFacts | undefined {
  for (const p of kube.pods.values()) if (p.endpoint && `${p.endpoint.host}:${p.endpoint.port}` === address) return p;
  return undefined;
}

/** Why the dead primary's pod is gone from Kubernetes, or why it may not be (refused). */
function judgeGone(
  dead: ClusterNode,
  answered: readonly Answered[],
  observations: readonly NodeObservation[],
  kube: KubeFacts,
): { gone: true; why: string; pod?: string } | { gone: false; why: string } {
  const address = addressOf(dead);
  const pod = podAt(kube, address);
  if (!pod) return { gone: true, why: `no pod has its address ${address} any more (deleted or re-created elsewhere)` };
  const now = answered.find((o) => o.pod === pod.pod);
  if (now && selfOf(now)?.id !== dead.id)
    return { gone: true, why: `pod ${pod.pod} was re-created and answers as another node`, pod: pod.pod };
  if (now) return { gone: false, why: `pod ${pod.pod} answers the controller` };
  const seen = observations.find((o) => o.pod === pod.pod);
  if (!kube.nodes)
    return {
      gone: false,
      why: `the controller cannot read Nodes (a namespaced install), so it cannot tell whether pod ${pod.pod}${pod.deleting ? ` (being deleted, deletionTimestamp ${pod.deleting})` : ''} is lost or cut off; it takes over once Kubernetes has removed or re-created the pod (on a node known down: kubectl delete pod ${pod.pod} --force --grace-period=0)`,
    };
  if (pod.deleting)
    return {
      gone: true,
      why: `pod ${pod.pod} is being deleted (deletionTimestamp ${pod.deleting}, the end of its grace period)`,
      pod: pod.pod,
    };
  const lost = nodeLost(kube, pod.node);
  if (lost) return { gone: true, why: `pod ${pod.pod} ran on a lost node: ${lost.why}`, pod: pod.pod };
  const state = seen?.state === 'unreachable' ? `does not answer (${seen.error})` : 'does not answer';
  return {
    gone: false,
    why: `pod ${pod.pod} on Ready Node ${pod.node ?? '(unscheduled)'} ${state}: a partition, not a loss, as far as Kubernetes knows`,
  };
}

export function judgeLostPrimaries({ observations, kube, lastSight }: LostPrimariesInput): LostPrimaries {
  const answered = observations.filter((o): o is Answered => o.state === 'answered');
  const selves = new Map(answered.flatMap((o) => (selfOf(o) ? [[selfOf(o)?.id as string, o] as const] : [])));
  // Every slot-owning primary any answering node knows, by id, as the first one that names it says.
  const owners = new Map<string, ClusterNode>();
  for (const o of answered) for (const n of o.view) if (isPrimary(n) && n.slots.length > 0 && !owners.has(n.id)) owners.set(n.id, n);
  const alive = [...owners.keys()].filter((id) => selves.has(id)).length;
  const result = { primaries: owners.size, alive, takeovers: new Map<string, Takeover>(), refused: [] as string[] };
  // A majority still votes: Valkey's own failover (and formation's FAIL-flag takeover) handles it.
  if (alive * 2 > owners.size) return result;

  for (const [id, dead] of owners) {
    if (selves.has(id)) continue;
    const followers = answered.filter((o) => selfOf(o)?.primaryId === id);
    if (followers.length === 0) continue; // nothing to promote: the shard's data is gone (data-loss.ts)
    const shard = (followers[0] as Answered).shard;
    // Failed by a majority: formation's own takeover on the FAIL flag applies.
    if (followers.some((f) => f.view.some((n) => n.id === id && isFailed(n)))) continue;
    const gone = judgeGone(dead, answered, observations, kube);
    const label = `shard ${shard}: primary ${id.slice(0, 8)} (${addressOf(dead)})`;
    if (!gone.gone) {
      result.refused.push(`${label} does not answer, but ${gone.why}; no takeover without the vote`);
      continue;
    }
    const cutOff = followers.filter((f) => {
      const seen = f.view.find((n) => n.id === id);
      return seen !== undefined && (seen.linkState === 'disconnected' || seen.flags.has('fail?'));
    });
    const inSync = cutOff.filter((f) => {
      const sight = lastSight.get(f.pod);
      if (sight) return sight.primaryId === id && sight.inSync;
      return f.replication?.role === 'replica' && !f.replication.syncing && f.replication.offset > 0;
    });
    const best = [...inSync].sort((a, b) => (b.replication?.offset ?? 0) - (a.replication?.offset ?? 0) || a.ordinal - b.ordinal)[0];
    if (!best) {
      result.refused.push(
        cutOff.length === 0
          ? `${label} is gone (${gone.why}), but its replicas still have a link to it; waiting`
          : `${label} is gone (${gone.why}), but no replica of it was in sync at last sight; no takeover would keep its data`,
      );
      continue;
    }
    result.takeovers.set(id, {
      shard,
      deadPrimaryId: id,
      deadAddress: addressOf(dead),
      ...('pod' in gone && gone.pod ? { deadPod: gone.pod } : {}),
      replica: best.pod,
      why: gone.why,
    });
  }
  return result;
}

/** What this pass saw of each replica, for the next passes' `lastSight`: a replica whose link is down keeps its earlier sight. */
export function recordSight(previous: ReadonlyMap<string, LastSight>, observations: readonly NodeObservation[]): Map<string, LastSight> {
  const next = new Map<string, LastSight>();
  const answered = observations.filter((o): o is Answered => o.state === 'answered');
  const offsets = new Map(answered.flatMap((o) => (selfOf(o) ? [[selfOf(o)?.id as string, o.replication?.offset] as const] : [])));
  for (const o of observations) {
    const before = previous.get(o.pod);
    if (o.state !== 'answered') {
      if (before) next.set(o.pod, before);
      continue;
    }
    const self = selfOf(o);
    if (!self?.primaryId || o.replication?.role !== 'replica') continue;
    if (!o.replication.linkUp) {
      if (before?.primaryId === self.primaryId) next.set(o.pod, before);
      continue;
    }
    // The primary's offset is read in the same pass; a primary that did not answer leaves the link as the judge.
    const primaryOffset = offsets.get(self.primaryId);
    next.set(o.pod, { primaryId: self.primaryId, inSync: replicaInSync(o.replication, primaryOffset) });
  }
  return next;
}
