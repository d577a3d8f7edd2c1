import type { ValkeyClusterSpec, ZoneSpread } from '../api/index.js';
import { clusterSelector, shardSelector } from './labels.js';

export const ZONE_KEY = 'topology.kubernetes.io/zone';
export const HOSTNAME_KEY = 'kubernetes.io/hostname';

/** The scheduling part of a shard's pod spec; keys are omitted when they would be empty. */
export function renderPlacement(cluster: string, shard: number, placement: ValkeyClusterSpec['placement'], defaultSpread: ZoneSpread) {
  const spread = placement?.zoneSpread ?? defaultSpread;
  const out: Record<string, unknown> = {};
  if (placement?.nodeSelector && Object.keys(placement.nodeSelector).length > 0) out.nodeSelector = { ...placement.nodeSelector };
  if (placement?.zones) {
    out.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [...placement.zones] }] }],
        },
      },
    };
  }
  const constraints: Record<string, unknown>[] = [
    {
      maxSkew: 1,
      topologyKey: ZONE_KEY,
      whenUnsatisfiable: spread === 'required' ? 'DoNotSchedule' : 'ScheduleAnyway',
      labelSelector: { matchLabels: shardSelector(cluster, shard) },
    },
    {
      maxSkew: 1,
      topologyKey: HOSTNAME_KEY,
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: shardSelector(cluster, shard) },
    },
  ];
  if (spread === 'required') {
    constraints.push({
      maxSkew: 1,
      topologyKey: ZONE_KEY,
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: clusterSelector(cluster) },
    });
  }
  out.topologySpreadConstraints = constraints;
  return out;
}
