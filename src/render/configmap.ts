import type { KubeObject } from './object.js';
import { configMapName } from './object.js';
import { clusterLabels } from './labels.js';

/**
 * node:crypto is loaded on first use: it pulls in the whole stream stack, a tenth of the KRM
 * function's cold start, and a run without clusters never hashes anything.
 */
export const sha256 = (text: string): string =>
  (process.getBuiltinModule('node:crypto') as typeof import('node:crypto')).createHash('sha256').update(text).digest('hex');

export interface ConfigMapFiles {
  'valkey.conf': string;
  'users.acl': string;
  'probe.sh': string;
}

export function renderConfigMap(cluster: string, namespace: string, files: ConfigMapFiles): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: configMapName(cluster), namespace, labels: clusterLabels(cluster) },
    data: { ...files },
  };
}
