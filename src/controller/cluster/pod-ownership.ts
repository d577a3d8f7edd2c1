import { STATEFULSET_REVISION_LABEL } from '../../api/contract/annotations.js';
import { LABELS } from '../../api/index.js';

/** What ownership is proven from: the slices of a Pod and a StatefulSet the API server sends. */
export interface OwnedObjectMeta {
  name: string;
  uid?: string;
  labels?: Record<string, string>;
  ownerReferences?: readonly { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
}
export interface PodLike {
  metadata: OwnedObjectMeta;
}

/**
 * Which pods the controller may talk to. Labels prove nothing: anyone who may create a pod in the
 * namespace may give it a cluster's labels, and the controller's first words to a pod are its
 * credential (AUTH). So a pod is dialled only when it is provably its shard StatefulSet's own, as
 * the StatefulSet controller made it:
 * - its name is `<cluster>-<shard>-<ordinal>` and its shard label says the same shard;
 * - its controller ownerReference is that StatefulSet, by the UID of the live object (a pod left
 *   over from a deleted and re-created StatefulSet, or one naming a guessed owner, fails);
 * - it carries the labels the StatefulSet controller sets: `statefulset.kubernetes.io/pod-name`
 *   equal to its name and a `controller-revision-hash` of that StatefulSet (`<set>-<hash>`);
 * - it is scheduled on a node (`spec.nodeName`): the kubelet there, not its creator, reports its IP.
 *
 * A tenant who may create pods in the namespace can copy all of that from the StatefulSet (the UID is
 * readable); docs/security.md says what the per-namespace controller credential leaves such a tenant.
 */
export const STATEFULSET_LABELS = {
  podName: 'statefulset.kubernetes.io/pod-name',
  revision: STATEFULSET_REVISION_LABEL,
} as const;

/** Where a proven pod sits: `<cluster>-<shard>-<ordinal>`. */
export interface OwnedPod<P extends PodLike = PodLike> {
  pod: P;
  shard: number;
  ordinal: number;
}

/** A pod that carries the cluster's labels but is not proven its own, with why. */
export interface ForeignPod {
  pod: string;
  reason: string;
}

export interface PodOwnership<P extends PodLike = PodLike> {
  owned: OwnedPod<P>[];
  foreign: ForeignPod[];
}

const DECIMAL = /^(0|[1-9]\d{0,5})$/;

/**
 * Which shards the cluster has: those below `spec.shards`, and those the controller itself saw
 * as this cluster's (status.nodes, which only the controller writes) while a scale-in retires them.
 * A StatefulSet named like a shard beyond both (`<cluster>-7` added by a pull request, with the
 * cluster's labels) is not one the render wrote for it, and its pods are never dialled.
 */
export interface ClusterShards {
  shards: number;
  /** Shards status.nodes lists a pod of. */
  known: ReadonlySet<number>;
}

function verdict<P extends PodLike>(
  pod: P,
  cluster: string,
  sets: ReadonlyMap<string, PodLike>,
  shape?: ClusterShards,
): OwnedPod<P> | string {
  const name = pod.metadata.name;
  const prefix = `${cluster}-`;
  const rest = name.startsWith(prefix) ? name.slice(prefix.length).split('-') : [];
  if (rest.length !== 2 || !DECIMAL.test(rest[0] as string) || !DECIMAL.test(rest[1] as string))
    return `its name is not ${cluster}-<shard>-<ordinal>`;
  const [shard, ordinal] = rest.map(Number) as [number, number];
  const labels = pod.metadata.labels ?? {};
  if (labels[LABELS.shard] !== String(shard)) return `its ${LABELS.shard} label is not ${shard}, as its name says`;
  const setName = `${cluster}-${shard}`;
  if (shape && shard >= shape.shards && !shape.known.has(shard))
    return `StatefulSet ${setName} is beyond spec.shards (${shape.shards}) and was never a shard of this cluster the controller saw, so the render did not write it`;
  const set = sets.get(setName);
  if (!set?.metadata.uid) return `StatefulSet ${setName} does not exist`;
  const controllers = (pod.metadata.ownerReferences ?? []).filter((r) => r.controller === true);
  const owner = controllers[0];
  if (controllers.length !== 1 || !owner) return `it is not controlled by StatefulSet ${setName}`;
  if (owner.kind !== 'StatefulSet' || owner.apiVersion !== 'apps/v1' || owner.name !== setName)
    return `its controller is ${owner.kind} ${owner.name}, not StatefulSet ${setName}`;
  if (owner.uid !== set.metadata.uid) return `its controller reference is to an earlier StatefulSet ${setName} (another UID)`;
  if (labels[STATEFULSET_LABELS.podName] !== name) return `its ${STATEFULSET_LABELS.podName} label is not its name`;
  if (!labels[STATEFULSET_LABELS.revision]?.startsWith(`${setName}-`))
    return `its ${STATEFULSET_LABELS.revision} label is not a revision of StatefulSet ${setName}`;
  return { pod, shard, ordinal };
}

/** Sorts the pods listed by a cluster's labels into the StatefulSets' own and the rest. */
export function provePodOwnership<P extends PodLike>(
  cluster: string,
  pods: readonly P[],
  statefulSets: readonly PodLike[],
  shape?: ClusterShards,
): PodOwnership<P> {
  const sets = new Map(statefulSets.map((s) => [s.metadata.name, s]));
  const owned: OwnedPod<P>[] = [];
  const foreign: ForeignPod[] = [];
  for (const pod of pods) {
    const v = verdict(pod, cluster, sets, shape);
    if (typeof v === 'string') foreign.push({ pod: pod.metadata.name, reason: v });
    else owned.push(v);
  }
  foreign.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
  return { owned, foreign };
}

/** The status and Event line for a foreign pod. */
export const foreignPodMessage = (f: ForeignPod): string =>
  `pod ${f.pod} carries this cluster's labels but is not its StatefulSet's (${f.reason}); the controller does not talk to it`;
