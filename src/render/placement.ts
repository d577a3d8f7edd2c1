import type { ValkeyClusterSpec, ZoneSpread } from '../api/index.js';
import { clusterSelector, shardSelector } from './labels.js';

export const ZONE_KEY = 'topology.kubernetes.io/zone';
export const HOSTNAME_KEY = 'kubernetes.io/hostname';

/** The scheduling part of a shard's pod spec; keys are omitted when they would be empty. */
export interface NodeRules {
  /** The render config's `nodeSpread`. */
  nodeSpread: 'required' | 'bestEffort';
  /** More than one pod per shard: only then can two of them share a node. */
  replicas: boolean;
}

/**
 * The scheduling part of a shard's pod spec; keys are omitted when they would be empty. A shard with
 * replicas gets required pod anti-affinity on the hostname (no two of its pods on one node: losing
 * a node never loses a shard's data, an emptyDir, or takes its slots offline) unless the render
 * config relaxes it to a ScheduleAnyway hostname spread (`nodeSpread: bestEffort`).
 */
export function renderPlacement(
  cluster: string,
  shard: number,
  placement: ValkeyClusterSpec['placement'],
  defaultSpread: ZoneSpread,
  nodes: NodeRules,
) {
  const spread = placement?.zoneSpread ?? defaultSpread;
  const out: Record<string, unknown> = {};
  if (placement?.nodeSelector && Object.keys(placement.nodeSelector).length > 0) out.nodeSelector = { ...placement.nodeSelector };
  const apart = nodes.replicas && nodes.nodeSpread === 'required';
  const affinity: Record<string, unknown> = {};
  if (placement?.zones) {
    affinity.nodeAffinity = {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [...placement.zones] }] }],
      },
    };
  }
  if (apart) {
    affinity.podAntiAffinity = {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { topologyKey: HOSTNAME_KEY, labelSelector: { matchLabels: shardSelector(cluster, shard) } },
      ],
    };
  }
  if (Object.keys(affinity).length) out.affinity = affinity;
  const constraints: Record<string, unknown>[] = [
    {
      maxSkew: 1,
      topologyKey: ZONE_KEY,
      whenUnsatisfiable: spread === 'required' ? 'DoNotSchedule' : 'ScheduleAnyway',
      labelSelector: { matchLabels: shardSelector(cluster, shard) },
    },
    // Required anti-affinity already keeps the shard's pods apart; otherwise spread them where possible.
    ...(apart
      ? []
      : [
          {
            maxSkew: 1,
            topologyKey: HOSTNAME_KEY,
            whenUnsatisfiable: 'ScheduleAnyway',
            labelSelector: { matchLabels: shardSelector(cluster, shard) },
          },
        ]),
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
