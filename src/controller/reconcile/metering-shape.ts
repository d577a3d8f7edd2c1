import { quantityValue } from '../../api/quantity.js';
import { valkeyMemoryBytes } from '../../api/contract/valkey-memory.js';
import { directivesByName, readValkeyConf } from '../../api/contract/valkey-conf.js';
import { MEMORY_SOURCE, METERING_FLOOR_BYTES, type MeteringMemory } from '../../api/valkey-metering-record.js';
import type { MeteringShape } from '../cluster/metering.js';
import type { StatefulSet } from '../kube/types.js';

/**
 * What a cluster has provisioned, read from the objects the API server holds: its StatefulSets
 * (their spec.replicas, summed, and the Valkey container's memory) and the valkey.conf they mount.
 * The spec, not the pods: a pod that is being replaced is still provisioned, and a StatefulSet's
 * rolling update replaces pods one at a time without a surge pod, so the spec is the count.
 */
export function provisionedShape(sets: readonly StatefulSet[], valkeyConf: string | undefined, observedPeakBytes?: number): MeteringShape {
  const pods = sets.reduce((n, s) => n + (s.spec?.replicas ?? 1), 0);
  return { shards: sets.length, pods, memory: withFloor(memorySource(sets, valkeyConf, observedPeakBytes)) };
}

/** The model's order: Reserved (resources.memory), then maxmemory, then the observed peak. */
export function memorySource(sets: readonly StatefulSet[], valkeyConf: string | undefined, observedPeakBytes?: number): MeteringMemory {
  let reserved: { bytes: number; text: string; set: string } | undefined;
  for (const s of sets) {
    const r = s.spec?.template?.spec?.containers?.[0]?.resources;
    const q = r?.requests?.memory ?? r?.limits?.memory;
    const bytes = q === undefined ? undefined : quantityValue(q);
    // StatefulSets of one cluster carry one memory figure; while a change is applied, the larger counts.
    if (bytes !== undefined && bytes > 0 && (!reserved || bytes > reserved.bytes))
      reserved = { bytes: Math.ceil(bytes), text: String(q), set: s.metadata.name };
  }
  if (reserved)
    return {
      source: MEMORY_SOURCE.reserved,
      podBytes: reserved.bytes,
      reason: `resources.memory ${reserved.text} (StatefulSet ${reserved.set})`,
    };
  const maxmemory = valkeyConf === undefined ? undefined : directivesByName(readValkeyConf(valkeyConf)).get('maxmemory')?.at(-1)?.[0];
  const maxBytes = maxmemory === undefined ? undefined : valkeyMemoryBytes(maxmemory);
  if (maxBytes !== undefined && maxBytes > 0)
    return { source: MEMORY_SOURCE.maxmemory, podBytes: maxBytes, reason: `no resources.memory; maxmemory ${maxmemory} in valkey.conf` };
  if (observedPeakBytes !== undefined)
    return {
      source: MEMORY_SOURCE.observed,
      podBytes: observedPeakBytes,
      reason: 'no resources.memory and no maxmemory; the highest used_memory_peak of the nodes',
    };
  return { source: MEMORY_SOURCE.none, podBytes: 0, reason: 'no resources.memory, no maxmemory and no peak observed yet' };
}

function withFloor(m: MeteringMemory): MeteringMemory {
  if (m.podBytes >= METERING_FLOOR_BYTES) return m;
  return { ...m, podBytes: METERING_FLOOR_BYTES, reason: `${m.reason}; below the 100 MB floor, counted as 100 MB` };
}
