import { BUS_PORT, CLIENT_PORT, type RenderConfig } from '../api/index.js';
import type { KubeObject } from './object.js';
import { clusterLabels, clusterSelector } from './labels.js';

/** The label every namespace carries with its own name (set by the API server since Kubernetes 1.22). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

const port = (p: number) => ({ port: p, protocol: 'TCP' });

/**
 * Who may reach a cluster's pods (docs/operations.md, "NetworkPolicy"), where the CNI enforces
 * NetworkPolicy:
 * - both ports, from the cluster's own pods: the bus (gossip, failover votes) and the client port
 *   (replication and slot migration run over it);
 * - both ports, from the controller's pods in the controller's namespace;
 * - the client port, from every pod of the cluster's namespace and of the namespaces
 *   `clientNamespaces` selects.
 * Nothing else reaches the bus: a pod of another cluster that is given the address a dead pod of
 * this one had cannot gossip its way in (docs/security.md, "One cluster never joins another").
 * The probes run inside the container (exec), so no rule is needed for the kubelet. Egress is not
 * restricted: a NetworkPolicy that selects the pods only for Ingress leaves it as it was.
 */
export function renderNetworkPolicy(cluster: string, namespace: string, render: RenderConfig): KubeObject {
  const np = render.networkPolicy;
  const ownPods = { podSelector: { matchLabels: clusterSelector(cluster) } };
  const controller = {
    namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: np.controller.namespace } },
    podSelector: { matchLabels: { ...np.controller.podLabels } },
  };
  const clients: Record<string, unknown>[] = [{ podSelector: {} }];
  if (np.clientNamespaces) clients.push({ namespaceSelector: structuredClone(np.clientNamespaces) });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: cluster, namespace, labels: clusterLabels(cluster) },
    spec: {
      podSelector: { matchLabels: clusterSelector(cluster) },
      policyTypes: ['Ingress'],
      ingress: [
        { from: [ownPods, controller], ports: [port(CLIENT_PORT), port(BUS_PORT)] },
        { from: clients, ports: [port(CLIENT_PORT)] },
      ],
    },
  };
}
