/**
 * What Kubernetes says about where a cluster's pods run, as plain data: each pod's Node, whether
 * the pod is being deleted, and each Node's zone, Ready condition and taints. The decisions about
 * lost nodes (lost-primaries.ts, lost-nodes.ts) and about where primaries lead from
 * (leader-placement.ts) read them; reconcile/kube-facts.ts gathers them from the caches.
 */

/** The taint that tells Kubernetes a node is shut down, so its pods may be replaced elsewhere. */
export const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

export interface NodeFacts {
  name: string;
  zone?: string;
  /** The Ready condition's status; absent: the Node reports none. */
  ready?: 'True' | 'False' | 'Unknown';
  /** Since when the Ready condition has had that status (its lastTransitionTime). */
  readySince?: string;
  readyReason?: string;
  /** A person (or a tool) set node.kubernetes.io/out-of-service: the machine is known off. */
  outOfService: boolean;
  /**
   * `spec.unschedulable` (cordoned): what `kubectl drain`, `kubectl cordon` and node-pool upgrade
   * tools set before they evict the node's pods. Absent: not cordoned.
   */
  cordoned?: boolean;
}

/** Whether the pod runs on a cordoned Node (being drained, or about to be). */
export function onCordonedNode(facts: KubeFacts, pod: string): string | undefined {
  const node = facts.pods.get(pod)?.node;
  return node !== undefined && facts.nodes?.get(node)?.cordoned === true ? node : undefined;
}

/**
 * Why a pod is about to stop and should lead no shard: its Node is cordoned, or it is being deleted
 * (an eviction) while its preStop hook holds it for the handover. Undefined: it stays.
 */
export function leaving(facts: KubeFacts, pod: string): string | undefined {
  const p = facts.pods.get(pod);
  if (p?.deleting !== undefined && p.holdsForHandover) return `its pod is being deleted (its preStop hook waits for the handover)`;
  const node = onCordonedNode(facts, pod);
  return node ? `its node ${node} is cordoned` : undefined;
}

export interface PodFacts {
  pod: string;
  /** The Node it is bound to; absent: not scheduled. */
  node?: string;
  /** Its deletionTimestamp: Kubernetes is deleting it (terminating). */
  deleting?: string;
  /** Where its server listens, as the controller dials it (podIP and port). */
  endpoint?: { host: string; port: number };
  /**
   * Its preStop hook holds a stopping primary for the controller's handover (render/probes.ts
   * `probe.sh handover`): while it is being deleted its server still runs, and waits.
   */
  holdsForHandover?: boolean;
}

/**
 * The facts of one cluster. `nodes` is absent when the controller cannot read Nodes (a namespaced
 * install, or the Node cache not filled yet): then nothing is decided from where pods run.
 */
export interface KubeFacts {
  pods: ReadonlyMap<string, PodFacts>;
  /** By node name; a name the pods name but the map lacks is a deleted Node. */
  nodes?: ReadonlyMap<string, NodeFacts>;
}

/** Why Kubernetes holds a node lost, or undefined while it is Ready (or unknown). */
export function nodeLost(facts: KubeFacts, nodeName: string | undefined): { node: string; why: string; since?: string } | undefined {
  if (!facts.nodes || nodeName === undefined) return undefined;
  const node = facts.nodes.get(nodeName);
  if (!node) return { node: nodeName, why: `Node ${nodeName} was deleted` };
  if (node.outOfService) return { node: nodeName, why: `Node ${nodeName} has the ${OUT_OF_SERVICE_TAINT} taint` };
  if (node.ready === 'False' || node.ready === 'Unknown')
    return {
      node: nodeName,
      why: `Node ${nodeName} is ${node.ready === 'False' ? 'NotReady' : 'Unknown'}${node.readyReason ? ` (${node.readyReason})` : ''}${node.readySince ? ` since ${node.readySince}` : ''}`,
      ...(node.readySince ? { since: node.readySince } : {}),
    };
  return undefined;
}
