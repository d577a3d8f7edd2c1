import { ZONE_LABEL, OUT_OF_SERVICE_TAINT, type KubeFacts, type NodeFacts, type PodFacts } from '../cluster/kube-facts.js';
import { holdsForHandover } from '../kube/pod-hooks.js';
import type { ApiObject, Pod } from '../kube/types.js';
import type { EndpointOf } from '../valkey/observe-node.js';

/**
 * Kubernetes' facts about one cluster's pods (cluster/kube-facts.ts) from the caches: each pod's
 * Node, deletionTimestamp and endpoint, and the Nodes it names, read from the Node cache of a
 * cluster-wide install. A namespaced install (no Node access) or a cache not filled yet gives no
 * Nodes, and nothing is decided from them.
 */

/** A Node as the controller reads it. */
export interface Node extends ApiObject {
  spec?: { unschedulable?: boolean; taints?: { key: string; value?: string; effect: string }[] };
  status?: { conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[] };
}

export function nodeFacts(n: Node): NodeFacts {
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
  const status = ready?.status === 'True' || ready?.status === 'False' || ready?.status === 'Unknown' ? ready.status : undefined;
  const zone = n.metadata.labels?.[ZONE_LABEL];
  return {
    name: n.metadata.name,
    ...(zone ? { zone } : {}),
    ...(status ? { ready: status } : {}),
    ...(ready?.lastTransitionTime ? { readySince: ready.lastTransitionTime } : {}),
    ...(ready?.reason ? { readyReason: ready.reason } : {}),
    outOfService: (n.spec?.taints ?? []).some((t) => t.key === OUT_OF_SERVICE_TAINT),
    ...(n.spec?.unschedulable === true ? { cordoned: true } : {}),
  };
}

export function gatherKubeFacts(
  pods: readonly Pod[],
  endpointOf: EndpointOf,
  nodes: ((name: string) => Node | undefined) | undefined,
): KubeFacts {
  const byPod = new Map<string, PodFacts>();
  const named = new Set<string>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    const endpoint = endpointOf(pod);
    if (node) named.add(node);
    byPod.set(pod.metadata.name, {
      pod: pod.metadata.name,
      ...(node ? { node } : {}),
      ...(pod.metadata.deletionTimestamp ? { deleting: pod.metadata.deletionTimestamp } : {}),
      ...(endpoint ? { endpoint: { host: endpoint.host, port: endpoint.port } } : {}),
      ...(holdsForHandover(pod) ? { holdsForHandover: true } : {}),
    });
  }
  if (!nodes) return { pods: byPod };
  const byNode = new Map<string, NodeFacts>();
  for (const name of named) {
    const n = nodes(name);
    if (n) byNode.set(name, nodeFacts(n));
  }
  return { pods: byPod, nodes: byNode };
}
