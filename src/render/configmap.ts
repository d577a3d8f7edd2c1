import { createHash } from 'node:crypto';
import type { KubeObject } from './object.js';
import { configMapName } from './object.js';
import { clusterLabels } from './labels.js';

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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
