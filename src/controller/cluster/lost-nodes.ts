import { nodeLost, OUT_OF_SERVICE_TAINT, type KubeFacts } from './kube-facts.js';
import type { NodeObservation } from './observation.js';

/**
 * Pods stuck on a lost node. Kubernetes never replaces a StatefulSet's pod on a node it cannot
 * reach: the pod may still run there, and two pods of one name must never run at once. Taint
 * eviction only marks such a pod Terminating; it stays so until a person says the node is gone
 * (the out-of-service taint, or deleting the Node). Until then the shard runs without that copy.
 * Pure: which lost node holds which of the cluster's pods that do not answer, and what to run.
 */

export interface LostNode {
  node: string;
  /** Why Kubernetes holds it lost (kube-facts.ts nodeLost). */
  why: string;
  since?: string;
  /** The cluster's pods on it that do not answer, in position order. */
  pods: string[];
  /** What a person runs so Kubernetes replaces them; absent when Kubernetes is already doing so. */
  fix?: string;
}

export function podsOnLostNodes(observations: readonly NodeObservation[], kube: KubeFacts): LostNode[] {
  const byNode = new Map<string, LostNode>();
  for (const o of observations) {
    if (o.state === 'answered') continue;
    const node = kube.pods.get(o.pod)?.node;
    const lost = nodeLost(kube, node);
    if (!lost) continue;
    const entry = byNode.get(lost.node) ?? { ...lost, pods: [] };
    entry.pods.push(o.pod);
    byNode.set(lost.node, entry);
  }
  return [...byNode.values()]
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0))
    .map((n) => {
      const info = kube.nodes?.get(n.node);
      // Deleted or out-of-service: Kubernetes deletes the pods itself and the StatefulSets re-create them.
      if (!info || info.outOfService) return n;
      return {
        ...n,
        fix: `kubectl taint node ${n.node} ${OUT_OF_SERVICE_TAINT}=nodeshutdown:NoExecute (once the machine is off; remove the taint when it is back) or kubectl delete node ${n.node}`,
      };
    });
}

/** One line per lost node for status: the node, since when, the pods, and the command. */
export function lostNodeMessage(n: LostNode): string {
  const pods = `pod(s) ${n.pods.join(', ')}`;
  if (!n.fix) return `${n.why}: Kubernetes deletes ${pods} and their StatefulSets re-create them`;
  return `${n.why}: ${pods} cannot be replaced until Kubernetes knows the node is gone: ${n.fix}`;
}
