import { valkeyRef, warning, type Problem, type ValkeyCluster } from '../api/index.js';

/**
 * The promise (DESIGN §6.2): losing one node or one zone leaves a majority of the primaries, so
 * Valkey can still mark the lost primaries failed and elect their replicas. With `shards`
 * primaries spread as evenly as possible over `domains` nodes or zones, the most in one is
 * ceil(shards / domains); the rest are a majority when that is fewer than half.
 */
export function holdsMajority(shards: number, domains: number): boolean {
  return domains > 0 && 2 * Math.ceil(shards / domains) < shards;
}

/**
 * The fewest nodes (or zones) that hold the promise for `shards` primaries: 3 for 3 shards and for
 * 5 or more, 4 for 4 shards; none below 3 shards (one lost primary of one or two is no minority).
 */
export function domainsNeeded(shards: number): number | undefined {
  for (let d = 1; d <= shards; d++) if (holdsMajority(shards, d)) return d;
  return undefined;
}

/**
 * What the render can tell about the promise from the ValkeyCluster alone (it does not know the
 * nodes): too few shards for any layout (said only where the cluster lists zones or requires a
 * zone spread), and too few listed zones. A cluster with no replica has
 * its own warning (rollout-warnings.ts): losing a node loses data there, whatever the vote.
 */
export function primaryPromiseFindings(cluster: ValkeyCluster): Problem[] {
  const { shards, replicasPerShard, placement } = cluster.spec;
  if (replicasPerShard === 0) return [];
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace as string;
  const who = `ValkeyCluster ${namespace}/${name}`;
  const ref = valkeyRef('ValkeyCluster', name, namespace);
  // Below 3 shards only where the cluster asks for zones: a small cluster is often small on purpose.
  if (shards < 3 && (placement?.zones !== undefined || placement?.zoneSpread === 'required')) {
    return [
      warning(
        `${who}: spec.shards: ${String(shards)} shard(s): losing the node or zone of a primary leaves no majority of the primaries, so Valkey cannot elect that shard's replica, whatever the placement; the shard is unserved until a failover without a vote (CLUSTER FAILOVER TAKEOVER, docs/operations.md "Kubernetes maintenance"). Use 3 shards or more where a node loss must heal by itself`,
        ref,
        'spec.shards',
      ),
    ];
  }
  if (shards < 3) return [];
  const zones = placement?.zones?.length;
  const needed = domainsNeeded(shards) as number;
  if (zones !== undefined && !holdsMajority(shards, zones)) {
    const most = Math.ceil(shards / zones);
    return [
      warning(
        `${who}: spec.placement.zones: ${String(zones)} zone(s) for ${String(shards)} shards: spread as evenly as they can be, ${String(most)} primaries share a zone, and losing it leaves ${String(shards - most)} of ${String(shards)}, no majority, so Valkey cannot elect their replicas; list at least ${String(needed)} zones${shards === 4 && zones === 3 ? ', or use 3 or 5 shards' : ''}`,
        ref,
        'spec.placement.zones',
      ),
    ];
  }
  return [];
}
