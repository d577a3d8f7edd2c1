import { configuredPodMemory, meteredPodMemory, type MeteredSet } from '../../api/metering-memory.js';
import { MEMORY_SOURCE, type MeteringMemory } from '../../api/valkey-metering-record.js';
import type { MeteringShape } from '../cluster/metering.js';
import type { StatefulSet } from '../kube/types.js';
import type { StatsSample } from './pod-facts.js';

/**
 * What a cluster has provisioned, read from the objects the API server holds: its StatefulSets
 * (their spec.replicas, summed, and the Valkey container's memory) and the valkey.conf they mount.
 * The spec, not the pods: a pod that is being replaced is still provisioned, and a StatefulSet's
 * rolling update replaces pods one at a time without a surge pod, so the spec is the count.
 * The memory rule (Reserved, Maxmemory, Observed, the floor) is api/metering-memory.ts, shared with the plan.
 */
export function provisionedShape(sets: readonly StatefulSet[], valkeyConf: string | undefined, observedPeakBytes?: number): MeteringShape {
  const pods = sets.reduce((n, s) => n + (s.spec?.replicas ?? 1), 0);
  const metered: MeteredSet[] = sets.map((s) => {
    const r = s.spec?.template?.spec?.containers?.[0]?.resources;
    return { name: s.metadata.name, memory: r?.requests?.memory ?? r?.limits?.memory };
  });
  return { shards: sets.length, pods, memory: meteredPodMemory(configuredPodMemory(metered, valkeyConf), observedPeakBytes) };
}

const MIB = 2 ** 20;

/**
 * The Observed source: the highest used_memory_peak (used_memory where a node did not say it) of a
 * cluster's nodes, from the figures the per-pod Valkey metrics last read (pod-facts.ts). Each node's
 * used_memory_peak is already its high-water mark since it started. Rounded up to a whole MiB, so a
 * peak that creeps by a few bytes does not start a new segment at every sample.
 */
export function observedPeakBytes(samples: Iterable<StatsSample>): number | undefined {
  let peak: number | undefined;
  for (const { stats } of samples) {
    const bytes = stats.usedMemoryPeakBytes ?? stats.usedMemoryBytes;
    if (bytes !== undefined && (peak === undefined || bytes > peak)) peak = bytes;
  }
  return peak === undefined ? undefined : Math.ceil(peak / MIB) * MIB;
}

/**
 * The peak to meter: the highest of what the nodes say now and what the open record already counts
 * as Observed, so the figure is the highest seen in the record's life. A node that restarts starts
 * its used_memory_peak again, and a restarted controller knows no figure until its first pass reads
 * one; neither lowers the figure to the floor.
 */
export function highestPeak(now: number | undefined, recorded: MeteringMemory | undefined): number | undefined {
  const before = recorded?.source === MEMORY_SOURCE.observed ? recorded.podBytes : undefined;
  if (now === undefined) return before;
  return before === undefined ? now : Math.max(now, before);
}
