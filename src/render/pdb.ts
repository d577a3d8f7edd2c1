import { shardName } from '../api/index.js';
import type { KubeObject } from './object.js';
import { shardLabels, shardSelector } from './labels.js';

/**
 * One voluntary disruption at a time per shard, so a shard never loses its primary and replica
 * together. It counts Ready pods, and Ready means "holds a full copy of the shard's data" (the
 * readiness probe, probes.ts): a re-created, still empty pod does not count, so a drain waits for
 * it to sync instead of evicting the shard's last copy. `IfHealthyBudget` (Kubernetes' default,
 * written out because the guarantee rests on it): a pod that is not Ready may be evicted only
 * while the rest of the shard is within budget, so a shard whose only copy sits in a pod that
 * stopped answering its probe is not drained either; a person decides (docs/operations.md).
 */
export function renderShardPodDisruptionBudget(cluster: string, namespace: string, shard: number): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: shardName(cluster, shard), namespace, labels: shardLabels(cluster, shard) },
    spec: {
      maxUnavailable: 1,
      selector: { matchLabels: shardSelector(cluster, shard) },
      unhealthyPodEvictionPolicy: 'IfHealthyBudget',
    },
  };
}
