import { ANNOTATIONS, podFqdn, type ValkeyCluster } from '../../api/index.js';
import { compareStrings } from '../../api/order.js';
import type { PassFacts } from '../cluster/pass-planner.js';
import { isAnswered, type NodeObservation, type PodPlace } from '../cluster/observation.js';
import { rollShards } from './roll-facts.js';
import type { Declared } from '../cluster/status.js';
import type { VersionPolicy } from '../cluster/version-gate.js';
import { provePodOwnership, type ForeignPod } from '../cluster/pod-ownership.js';
import { impostorReason } from '../cluster/foreign-nodes.js';
import { isMyself } from '../cluster/cluster-view.js';
import { judgeTlsSecret, type SecretFacts, type TlsVerdict } from '../cluster/tls-secret.js';
import { isApiError } from '../kube/client.js';
import type { Pod, Secret, StatefulSet } from '../kube/types.js';
import { mapLimit } from '../runtime/map-limit.js';
import type { NodeSession, OpenSession } from '../valkey/node-session.js';
import { observeNode, podPlace, type EndpointOf, type ObservedNode } from '../valkey/observe-node.js';
import type { TlsOptions } from '../valkey/resp-connection.js';
import type { NodeStats } from '../valkey/node-stats.js';
import { readSecretFacts } from '../valkey/certificate.js';
import { observeRebalance } from './rebalance-cluster.js';
import { removedShardKeys } from './retire-shards.js';
import { templatePrerequisites, type Prerequisite } from '../cluster/prerequisites.js';

/**
 * The observing half of a pass: what the API server's caches hold for one cluster (its pods, its
 * StatefulSets, the TLS Secret) and what each pod's node says, plus the few reads the planners need
 * only in some states (key counts of marked slots, memory during a shrink, keys left on removed
 * shards). Everything the pass planner decides from is gathered here, in this pass.
 */

/** How the controller reaches the nodes. */
export interface NodeAccess {
  open: OpenSession;
  policy: VersionPolicy;
  endpointOf: EndpointOf;
  clusterDomain: string;
}

export interface ObserveReads {
  pods(namespace: string, cluster: string): Pod[];
  statefulSets(namespace: string, cluster: string): StatefulSet[];
  readSecret(namespace: string, name: string): Promise<Secret>;
}

export interface ClusterObservation {
  statefulSets: StatefulSet[];
  /** The StatefulSets' own pods, each with its place (a retired shard's pods left out). */
  pods: { pod: Pod; place: PodPlace }[];
  /** Pods wearing the cluster's labels that no StatefulSet of it owns: named in status, never dialled. */
  foreign: ForeignPod[];
  /** A TLS cluster: the verdict on its Secret this pass. */
  tlsVerdict?: TlsVerdict;
  observations: NodeObservation[];
  /** Open sessions to the nodes that answered; the caller closes them. */
  sessions: Map<string, NodeSession>;
  /** The per-pod Valkey metrics' figures read this pass, by pod (only pods they were due on). */
  stats?: Map<string, NodeStats>;
  /** A TLS cluster: the Secret's certificate and a way to handshake with a pod again. */
  tls?: { certificate: string; reopen(pod: string): Promise<NodeSession | undefined> };
  declared?: Declared;
}

/** Pods of one cluster asked at once; each is bounded by the node timeouts. */
const NODES_IN_FLIGHT = 32;

const decode = (b64: string | undefined): string | undefined =>
  b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');

/**
 * The cluster's TLS Secret, judged (tls-secret.ts), and the TLS settings per pod when its CA can be
 * read: verified against its CA, its cert presented as our client cert. A Secret with a problem but
 * a CA (an expired or mismatched pair) still lets the controller see the pods, which keep serving
 * the pair they loaded.
 */
async function tlsSettings(
  cluster: ValkeyCluster,
  reads: ObserveReads,
  nodes: NodeAccess,
  nowMs: number,
): Promise<{ verdict: TlsVerdict; options?: (pod: string) => TlsOptions; certificate?: string }> {
  const namespace = cluster.metadata.namespace as string;
  const secretName = cluster.spec.tls?.secretRef as string;
  const which = `${namespace}/${secretName}`;
  let secret: Secret | undefined;
  let facts: SecretFacts;
  try {
    secret = await reads.readSecret(namespace, secretName);
    facts = readSecretFacts(secret.data);
  } catch (e) {
    facts = isApiError(e, 404) ? { kind: 'absent' } : { kind: 'denied', detail: e instanceof Error ? e.message : String(e) };
  }
  const verdict = judgeTlsSecret(which, facts, nowMs);
  const ca = decode(secret?.data?.['ca.crt']);
  if (!ca) return { verdict };
  const cert = decode(secret?.data?.['tls.crt']);
  const key = decode(secret?.data?.['tls.key']);
  const name = cluster.metadata.name;
  return {
    verdict,
    options: (pod) => ({ ca, ...(cert && key ? { cert, key } : {}), servername: podFqdn(pod, name, namespace, nodes.clusterDomain) }),
    ...(cert && !verdict.problem ? { certificate: cert } : {}),
  };
}

/** Each shard StatefulSet with the shard count it was rendered for (NaN when it carries none). */
export function renderedShardCounts(sets: readonly StatefulSet[], cluster: string): { shard: number; shards: number }[] {
  const prefix = `${cluster}-`;
  return sets.flatMap((s) => {
    const rest = s.metadata.name.startsWith(prefix) ? s.metadata.name.slice(prefix.length) : '';
    return /^\d+$/.test(rest) ? [{ shard: Number(rest), shards: Number(s.metadata.annotations?.[ANNOTATIONS.shards]) }] : [];
  });
}

/** What git declared for the pods: the first StatefulSet (by name) carrying the image-version annotation. */
export function declaredVersion(sets: readonly StatefulSet[]): Declared | undefined {
  for (const s of [...sets].sort((a, b) => compareStrings(a.metadata.name, b.metadata.name))) {
    const version = s.metadata.annotations?.[ANNOTATIONS.imageVersion];
    if (version) return { version, imageRef: s.metadata.annotations?.[ANNOTATIONS.imageRef] ?? '(unknown)' };
  }
  return undefined;
}

/**
 * A retired shard's pods (their StatefulSet deleted, shard at or above spec.shards) are on their
 * way out: formation must not meet them again after they were forgotten.
 */
export function podsToObserve(pods: readonly Pod[], shards: number, statefulSetShards: readonly number[]): { pod: Pod; place: PodPlace }[] {
  const retired = (shard: number): boolean => shard >= shards && !statefulSetShards.includes(shard);
  return pods.flatMap((pod) => {
    const place = podPlace(pod);
    return place && !retired(place.shard) ? [{ pod, place }] : [];
  });
}

/**
 * A node that answers at a pod's address but announces another pod's hostname (a pod of another
 * cluster given the address, a stale address) is not that pod: it counts as not answering, its
 * session is closed, and formation never meets it (cluster/foreign-nodes.ts).
 */
function notAnImpostor(o: ObservedNode, identity: { cluster: string; namespace: string }): ObservedNode {
  const obs = o.observation;
  if (obs.state !== 'answered') return o;
  const reason = impostorReason(obs.pod, obs.view.find(isMyself), identity);
  if (reason === undefined) return o;
  o.session?.close();
  const { pod, shard, ordinal, ip } = obs;
  return { observation: { pod, shard, ordinal, ...(ip !== undefined ? { ip } : {}), state: 'unreachable', error: reason } };
}

/**
 * `nowMs`: the pass's time, for judging the TLS certificate's validity; `statsDue`: the pods whose
 * Valkey metrics this pass reads (in the INFO it sends anyway: valkey/observe-node.ts).
 */
export async function observeCluster(
  cluster: ValkeyCluster,
  reads: ObserveReads,
  nodes: NodeAccess,
  nowMs: number,
  statsDue?: (pod: string) => boolean,
): Promise<ClusterObservation> {
  const namespace = cluster.metadata.namespace as string;
  const name = cluster.metadata.name;
  let open = nodes.open;
  let tls: Awaited<ReturnType<typeof tlsSettings>> | undefined;
  if (cluster.spec.tls) {
    tls = await tlsSettings(cluster, reads, nodes, nowMs);
    if (!tls.options) {
      const message = `the controller cannot verify the nodes: ${tls.verdict.problem?.message ?? 'no ca.crt'}`;
      open = () => Promise.reject(new Error(message));
    }
  }
  // One read of the shard StatefulSets per pass: which exist, the shard count each was rendered
  // for, and the UIDs that prove which pods are theirs.
  const statefulSets = reads.statefulSets(namespace, name);
  const statefulSetShards = renderedShardCounts(statefulSets, name).map((r) => r.shard);
  // Only the StatefulSets' own pods are dialled (the first words to a pod are the credential).
  // status is the controller's own (the status subresource): the shards it saw pods of.
  const seenNodes = (cluster.status as { nodes?: unknown } | undefined)?.nodes;
  const known = new Set<number>(
    Array.isArray(seenNodes) ? seenNodes.flatMap((n: { shard?: unknown }) => (typeof n?.shard === 'number' ? [n.shard] : [])) : [],
  );
  const ownership = provePodOwnership(name, reads.pods(namespace, name), statefulSets, { shards: cluster.spec.shards, known });
  const pods = podsToObserve(
    ownership.owned.map((o) => o.pod),
    cluster.spec.shards,
    statefulSetShards,
  );
  const options = tls?.options;
  const context = {
    open,
    policy: nodes.policy,
    endpointOf: nodes.endpointOf,
    interner: new Map(),
    ...(options ? { tls: options } : {}),
    ...(statsDue ? { statsDue } : {}),
  };
  const observed = (await mapLimit(pods, NODES_IN_FLIGHT, ({ pod, place }) => observeNode(pod, place, context))).map((o) =>
    notAnImpostor(o, { cluster: name, namespace }),
  );
  const sessions = new Map<string, NodeSession>();
  const stats = new Map<string, NodeStats>();
  for (const o of observed) {
    if (o.session) sessions.set(o.observation.pod, o.session);
    if (o.stats && o.session) stats.set(o.observation.pod, o.stats);
  }
  const reopen = async (podName: string): Promise<NodeSession | undefined> => {
    const pod = pods.find((p) => p.pod.metadata.name === podName)?.pod;
    const endpoint = pod ? nodes.endpointOf(pod) : undefined;
    return endpoint && options ? open(endpoint, options(podName), pod?.metadata.namespace) : undefined;
  };
  const declared = declaredVersion(statefulSets);
  return {
    statefulSets,
    pods,
    foreign: ownership.foreign,
    observations: observed.map((o) => o.observation),
    sessions,
    ...(stats.size ? { stats } : {}),
    ...(tls ? { tlsVerdict: tls.verdict } : {}),
    ...(tls?.certificate ? { tls: { certificate: tls.certificate, reopen } } : {}),
    ...(declared ? { declared } : {}),
  };
}

/** What answers whether a prerequisite exists: the ConfigMap cache, a Secret's metadata. */
export interface PrerequisiteReads {
  configMap(namespace: string, name: string): unknown;
  secretExists(namespace: string, name: string): Promise<boolean>;
}

/**
 * The Secrets and ConfigMaps the StatefulSets' pods need that do not exist yet (the TLS Secret
 * aside: its verdict covers it). ConfigMaps from the cache (the rendered one carries the managed
 * label the cache selects on), Secrets by their metadata only: the controller never reads what a
 * Secret holds to know it exists.
 */
export async function missingPrerequisites(
  cluster: ValkeyCluster,
  statefulSets: readonly StatefulSet[],
  reads: PrerequisiteReads,
): Promise<Prerequisite[]> {
  const namespace = cluster.metadata.namespace as string;
  const tlsSecret = cluster.spec.tls?.secretRef;
  const wanted = templatePrerequisites(statefulSets).filter((p) => !(p.kind === 'Secret' && p.name === tlsSecret));
  const present = await Promise.all(
    wanted.map((p) => (p.kind === 'ConfigMap' ? reads.configMap(namespace, p.name) !== undefined : reads.secretExists(namespace, p.name))),
  );
  return wanted.filter((_, i) => !present[i]);
}

/**
 * The pass planner's facts from one observation, with the reads only some states need: key counts
 * of slots a marker names, memory while a shrink runs, keys left on removed shards once drained.
 */
export async function passFacts(
  cluster: ValkeyCluster,
  seen: ClusterObservation,
  o: { rollSlotFree: boolean; retire: boolean; batchSlots?: number },
): Promise<PassFacts> {
  const shards = cluster.spec.shards;
  const answered = seen.observations.filter(isAnswered);
  const renderedShards = renderedShardCounts(seen.statefulSets, cluster.metadata.name);
  const statefulSetShards = renderedShards.map((r) => r.shard);
  let primaries: PassFacts['primaries'] = [];
  let maxmemoryBytes: number | undefined;
  let keys = new Map<string, number>();
  let unreadable: string | undefined;
  try {
    ({ primaries, maxmemoryBytes } = await observeRebalance(answered, shards, seen.sessions));
    const drained = statefulSetShards.some((s) => s >= shards) && !primaries.some((p) => p.shard >= shards && p.self.slots.length > 0);
    if (o.retire && drained) keys = await removedShardKeys({ shards, answered, sessions: seen.sessions });
  } catch (e) {
    unreadable = `rebalancing could not read the primaries: ${e instanceof Error ? e.message : String(e)}`;
  }
  return {
    ...(unreadable ? { topologyUnreadable: unreadable } : {}),
    identity: { cluster: cluster.metadata.name, namespace: cluster.metadata.namespace as string },
    shards,
    replicasPerShard: cluster.spec.replicasPerShard,
    observations: seen.observations,
    primaries,
    ...(maxmemoryBytes ? { maxmemoryBytes } : {}),
    ...(o.batchSlots ? { rebalance: { batchSlots: o.batchSlots } } : {}),
    ...(o.retire ? { retire: { statefulSetShards, renderedShards, pods: seen.pods.map((p) => p.place), keys } } : {}),
    roll: rollShards({
      statefulSets: seen.statefulSets,
      pods: seen.pods.map((p) => p.pod),
      observations: seen.observations,
      ...(cluster.metadata.annotations ? { clusterAnnotations: cluster.metadata.annotations } : {}),
    }),
    rollSlotFree: o.rollSlotFree,
    // A restarted pod would not start with a Secret that has a problem: no roll until it is fixed.
    ...(seen.tlsVerdict?.problem ? { rollProblems: [seen.tlsVerdict.problem.message] } : {}),
  };
}
