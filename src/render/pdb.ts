import { shardName } from '../api/index.js';
import type { KubeObject } from './object.js';
import { shardLabels, shardSelector } from './labels.js';

/** One voluntary disruption at a time per shard, so a shard never loses its primary and replica together. */
export function renderShardPodDisruptionBudget(cluster: string, namespace: string, shard: number): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: shardName(cluster, shard), namespace, labels: shardLabels(cluster, shard) },
    spec: { maxUnavailable: 1, selector: { matchLabels: shardSelector(cluster, shard) } },
  };
}
