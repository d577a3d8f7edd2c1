import { BUS_PORT, CLIENT_PORT } from '../api/index.js';
import type { KubeObject } from './object.js';
import { clusterLabels, clusterSelector } from './labels.js';
import { deepFreeze } from './frozen.js';

/** Shared frozen by every Service (frozen.ts). */
const PORTS = deepFreeze([
  { name: 'valkey', port: CLIENT_PORT, targetPort: 'valkey', protocol: 'TCP' },
  { name: 'cluster-bus', port: BUS_PORT, targetPort: 'cluster-bus', protocol: 'TCP' },
]);

/**
 * Headless, and publishing not-ready pods: nodes must find each other by DNS while the cluster
 * forms, before any of them is ready. Pods are `<pod>.<cluster>.<namespace>.svc.<domain>`.
 */
export function renderService(cluster: string, namespace: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: cluster, namespace, labels: clusterLabels(cluster) },
    spec: {
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: clusterSelector(cluster),
      ports: PORTS,
    },
  };
}
