import { KUBE_LIMITS, error, utf8Length, valkeyRef, type Problem } from '../api/index.js';
import type { KubeObject } from './object.js';
import { configMapName } from './object.js';
import { clusterLabels } from './labels.js';

/**
 * node:crypto is loaded on first use: it pulls in the whole stream stack, a tenth of the KRM
 * function's cold start, and a run without clusters never hashes anything.
 */
let crypto: typeof import('node:crypto') | undefined;
export const sha256 = (text: string): string => {
  crypto ??= process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
  // crypto.hash (Node 20.12+): one call, no Hash object, for a digest of a string in one piece.
  return crypto.hash('sha256', text, 'hex');
};

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

/**
 * The API server refuses a ConfigMap whose data passes 1 MiB (KUBE_LIMITS.configMapData), so a
 * render that held one would be green in git and never applied. users.acl is what grows: every
 * permission of every binding repeats its role's commands and categories.
 */
export function configMapSizeProblem(cluster: string, namespace: string, files: ConfigMapFiles): Problem | undefined {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: files that short cannot pass the limit, and
  // counting their bytes one by one cost a few per cent of a large render.
  if ((files['valkey.conf'].length + files['users.acl'].length + files['probe.sh'].length) * 3 <= KUBE_LIMITS.configMapData)
    return undefined;
  const sizes = Object.entries(files).map(([file, text]) => [file, utf8Length(text)] as const);
  const total = sizes.reduce((sum, [, n]) => sum + n, 0);
  if (total <= KUBE_LIMITS.configMapData) return undefined;
  const acl = files['users.acl'].length > files['valkey.conf'].length;
  return error(
    `ValkeyCluster ${namespace}/${cluster}${acl ? ': spec.acl' : ''}: ConfigMap ${configMapName(cluster)} would hold ${total} bytes of data (${sizes.map(([f, n]) => `${f} ${n}`).join(', ')}); the API server takes at most ${KUBE_LIMITS.configMapData} bytes (1 MiB) in a ConfigMap, so it would refuse it: ${
      acl
        ? "users.acl repeats a role's commands and categories in every permission of every binding: bind fewer users or permissions (users that share keys can share one binding's permissions), or give long-listed roles categories instead of single commands"
        : "valkey.conf holds the config chain's settings: shorten the longest values in the ValkeyConfigs"
    }`,
    valkeyRef('ValkeyCluster', cluster, namespace),
    acl ? 'spec.acl' : undefined,
  );
}
