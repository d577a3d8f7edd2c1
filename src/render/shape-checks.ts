import { error, valkeyRef, warning, type Problem, type ValkeyCluster } from '../api/index.js';
import { canonicalSettingName } from '../api/valkey-table.js';

/**
 * Settings whose effect depends on the cluster's shape, checked per cluster (issue 32): a value
 * that starts fine can still make every shard refuse work on this cluster. Today:
 * `min-replicas-to-write` above `replicasPerShard` refuses every write (NOREPLICAS) for good, and
 * equal to it refuses writes whenever one replica of a shard is down or behind (each step of a
 * roll, a lost node). Valkey enforces it only while `min-replicas-max-lag` is not 0. The memory
 * limit against `maxmemory` is the config's lint (menu/lint.ts): it does not depend on the cluster.
 */
export function shapeFindings(
  cluster: ValkeyCluster,
  valkey: Readonly<Record<string, string>>,
  valkeyFrom: Readonly<Record<string, string>>,
  configName: string,
): Problem[] {
  let minReplicas: { key: string; value: string } | undefined;
  let maxLag: string | undefined;
  for (const [key, value] of Object.entries(valkey)) {
    const name = canonicalSettingName(key);
    if (name === 'min-replicas-to-write') minReplicas = { key, value };
    else if (name === 'min-replicas-max-lag') maxLag = value.trim();
  }
  if (!minReplicas || maxLag === '0') return [];
  const wanted = /^(0|[1-9][0-9]{0,9})$/.test(minReplicas.value.trim()) ? Number(minReplicas.value.trim()) : undefined;
  const replicas = cluster.spec.replicasPerShard;
  if (wanted === undefined || wanted === 0 || wanted < replicas) return [];
  const namespace = cluster.metadata.namespace as string;
  const who = `ValkeyCluster ${namespace}/${cluster.metadata.name}`;
  const ref = valkeyRef('ValkeyCluster', cluster.metadata.name, namespace);
  const from = valkeyFrom[minReplicas.key] ?? configName;
  const setting = `${minReplicas.key} ${minReplicas.value.trim()} (ValkeyConfig ${from})`;
  if (wanted > replicas)
    return [
      error(
        `${who}: spec.replicasPerShard: ${replicas} replica(s) per shard, but ${setting} makes each primary refuse every write until ${wanted} replica(s) acknowledge it, which this cluster never has (NOREPLICAS); set replicasPerShard to ${wanted} or more, or lower min-replicas-to-write to at most ${Math.max(replicas - 1, 0)} in the config`,
        ref,
        'spec.replicasPerShard',
      ),
    ];
  return [
    warning(
      `${who}: spec.replicasPerShard: ${replicas} replica(s) per shard and ${setting}: a shard refuses writes (NOREPLICAS) whenever one of its replicas is down or behind, which every roll does a replica at a time and a lost node does too; keep min-replicas-to-write below replicasPerShard`,
      ref,
      'spec.replicasPerShard',
    ),
  ];
}
