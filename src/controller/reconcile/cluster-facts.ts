import type { ValkeyCluster, ValkeyClusterStatus } from '../../api/index.js';
import { isAnswered, type NodeObservation } from '../cluster/observation.js';
import type { TlsVerdict } from '../cluster/tls-secret.js';
import type { AutoscaleTimers } from '../cluster/autoscale.js';
import type { ClusterFacts } from '../runtime/metrics.js';

/**
 * What the per-cluster gauges show of one pass (runtime/metrics.ts): the status just written, the
 * replicas INFO replication found not in sync, the certificate's expiry and the autoscaler's
 * numbers. Pure: the alert rules in deploy/monitoring/ are written against these.
 */
export function clusterFacts(
  status: ValkeyClusterStatus,
  observations: readonly NodeObservation[],
  tls: TlsVerdict | undefined,
  spec: Pick<ValkeyCluster['spec'], 'shards' | 'autoscaling'>,
  autoscaler: { heldAtMaxShards?: boolean; timers?: AutoscaleTimers } = {},
): ClusterFacts {
  const nodes = new Map<string, number>();
  for (const n of status.nodes ?? []) {
    const label = `${n.health}/${n.role}`;
    nodes.set(label, (nodes.get(label) ?? 0) + 1);
  }
  const replicasNotInSync = observations.filter(
    (o) => isAnswered(o) && o.replication?.role === 'replica' && (!o.replication.linkUp || o.replication.syncing),
  ).length;
  const notAfter = tls?.notAfter === undefined ? Number.NaN : Date.parse(tls.notAfter);
  const a = spec.autoscaling;
  return {
    state: status.state,
    conditions: (status.conditions ?? []).map((c) => ({ type: c.type, status: c.status })),
    nodes,
    replicasNotInSync,
    ...(Number.isFinite(notAfter) ? { certificateNotAfterSeconds: Math.floor(notAfter / 1000) } : {}),
    ...(a
      ? {
          autoscale: {
            current: spec.shards,
            desired: status.autoscaling?.desiredShards ?? spec.shards,
            min: a.minShards,
            max: a.maxShards,
            heldAtMax: autoscaler.heldAtMaxShards === true,
            ...(autoscaler.timers ? { timers: autoscaler.timers } : {}),
          },
        }
      : {}),
  };
}
