import { isMyself } from '../cluster/cluster-view.js';
import { isAnswered, type NodeObservation } from '../cluster/observation.js';
import type { ValkeyPodFacts } from '../runtime/valkey-metrics.js';
import type { NodeStats } from '../valkey/node-stats.js';

/**
 * Valkey's per-pod metrics from one pass (runtime/valkey-metrics.ts), pure: whether each pod
 * answered, its role, cluster_state and replication link from this pass's reads, and its figures
 * from the last INFO that asked for them. Lag is a replica's offset against the offset of the
 * primary its own view names, both read in this pass.
 */

/** One pod's last figures and when they were read (ms). */
export interface StatsSample {
  atMs: number;
  stats: NodeStats;
}

/** Whether a pod's figures are due this pass: never read, or read `everyMs` ago or longer. */
export const statsDue = (last: StatsSample | undefined, nowMs: number, everyMs: number): boolean =>
  last === undefined || nowMs - last.atMs >= everyMs;

/**
 * The samples to keep after a pass: this pass's where it read them, the last one of a pod that
 * answered without being asked; a pod that did not answer, or is gone, keeps none.
 */
export function keepSamples(
  kept: ReadonlyMap<string, StatsSample> | undefined,
  fresh: ReadonlyMap<string, NodeStats>,
  observations: readonly NodeObservation[],
  nowMs: number,
): Map<string, StatsSample> {
  const out = new Map<string, StatsSample>();
  for (const o of observations) {
    if (!isAnswered(o)) continue;
    const stats = fresh.get(o.pod);
    const last = stats ? { atMs: nowMs, stats } : kept?.get(o.pod);
    if (last) out.set(o.pod, last);
  }
  return out;
}

export function podFacts(observations: readonly NodeObservation[], samples: ReadonlyMap<string, StatsSample>): ValkeyPodFacts[] {
  const answered = observations.filter(isAnswered);
  // Each primary's offset by its node id, once (not a search per replica).
  const primaryOffset = new Map<string, number>();
  for (const o of answered) {
    const self = o.view.find(isMyself);
    if (self && o.replication?.role === 'primary') primaryOffset.set(self.id, o.replication.offset);
  }
  return observations.map((o): ValkeyPodFacts => {
    const base = { pod: o.pod, shard: o.shard };
    if (!isAnswered(o)) return { ...base, up: false };
    const r = o.replication;
    const sample = samples.get(o.pod);
    const primaryId = o.view.find(isMyself)?.primaryId;
    const primaryAt = primaryId === undefined ? undefined : primaryOffset.get(primaryId);
    return {
      ...base,
      up: true,
      ...(r ? { role: r.role } : {}),
      clusterStateOk: o.info.state === 'ok',
      ...(r?.role === 'replica'
        ? {
            replication: {
              linkUp: r.linkUp,
              syncing: r.syncing,
              ...(primaryAt !== undefined && r.linkUp ? { lagBytes: Math.max(0, primaryAt - r.offset) } : {}),
            },
          }
        : {}),
      ...(sample ? { stats: sample.stats, statsAtSeconds: Math.floor(sample.atMs / 1000) } : {}),
    };
  });
}
