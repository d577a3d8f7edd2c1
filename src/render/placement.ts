import type { ValkeyClusterSpec, ZoneSpread } from '../api/index.js';
import { clusterSelector, shardSelector } from './labels.js';
import { frozenMemo } from './frozen.js';

export const ZONE_KEY = 'topology.kubernetes.io/zone';
export const HOSTNAME_KEY = 'kubernetes.io/hostname';
/** Set on every StatefulSet pod by the StatefulSet controller (Kubernetes 1.28 and later): its ordinal. */
export const POD_INDEX_KEY = 'apps.kubernetes.io/pod-index';

/**
 * Cluster-wide, per ordinal (DESIGN §6.2, docs/operations.md "Where primaries run"): each shard's
 * ordinal 0, its preferred primary (failback returns the primary there), prefers nodes and zones
 * without another ordinal 0 of the cluster, and so does each other ordinal among its own peers
 * (`matchLabelKeys` adds the incoming pod's own pod-index to the selector). So the scheduler
 * spreads the preferred primaries over nodes and zones, and losing one leaves a majority to vote.
 *
 * A preference (preferred pod anti-affinity, scored), never a filter: a required rule (or a
 * `DoNotSchedule` spread) wedges with the shard's required anti-affinity: it admits a pod only
 * where no (or the fewest) other ordinal of its kind runs, and when the shard's other pod sits on
 * each such node (a creation that placed the ordinals 1 first; a drain that left a node short) the
 * pod stays Pending, its shard has one copy, and its PDB stops every further drain. Anti-affinity
 * rather than a `ScheduleAnyway` spread: a pod may carry only one spread constraint per topology
 * key and `whenUnsatisfiable`, and the shard's own `ScheduleAnyway` spreads take those.
 */
export function primarySpread(cluster: string): Record<string, unknown>[] {
  return [HOSTNAME_KEY, ZONE_KEY].map((topologyKey) => ({
    weight: 100,
    podAffinityTerm: { labelSelector: { matchLabels: clusterSelector(cluster) }, matchLabelKeys: [POD_INDEX_KEY], topologyKey },
  }));
}

/** Required node affinity to a list of zones (by its JSON), shared frozen by the clusters that list them (frozen.ts). */
const zoneAffinity = frozenMemo((zones: string) => ({
  requiredDuringSchedulingIgnoredDuringExecution: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: JSON.parse(zones) as string[] }] }],
  },
}));

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
  if (placement?.zones) affinity.nodeAffinity = zoneAffinity(JSON.stringify(placement.zones));
  affinity.podAntiAffinity = {
    ...(apart
      ? {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: HOSTNAME_KEY, labelSelector: { matchLabels: shardSelector(cluster, shard) } },
          ],
        }
      : {}),
    preferredDuringSchedulingIgnoredDuringExecution: primarySpread(cluster),
  };
  out.affinity = affinity;
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
