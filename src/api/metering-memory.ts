import { directivesByName, readValkeyConf } from './contract/valkey-conf.js';
import { valkeyMemoryBytes } from './contract/valkey-memory.js';
import { quantityValue } from './quantity.js';
import { MEMORY_SOURCE, METERING_FLOOR_BYTES, type MeteringMemory } from './valkey-metering-record.js';

/**
 * The model's rule for one pod's metered memory, in one place for the controller (which meters
 * what the API server holds) and the plan (which predicts it from the render): Reserved
 * (`resources.memory`), else `maxmemory` in valkey.conf, else the observed peak, never below the
 * 100 MB floor. What the objects say is read here; the observed peak only the controller knows.
 */

/** A StatefulSet as far as the rule reads it: its name and the Valkey container's memory (requests, else limits). */
export interface MeteredSet {
  name: string;
  memory: string | number | undefined;
}

/** The figure the objects configure, if any: resources.memory or maxmemory, as written. */
export type ConfiguredPodMemory =
  | { source: typeof MEMORY_SOURCE.reserved; bytes: number; written: string; set: string }
  | { source: typeof MEMORY_SOURCE.maxmemory; bytes: number; written: string };

export function configuredPodMemory(sets: readonly MeteredSet[], valkeyConf: string | undefined): ConfiguredPodMemory | undefined {
  let reserved: Extract<ConfiguredPodMemory, { source: 'Reserved' }> | undefined;
  for (const s of sets) {
    const bytes = s.memory === undefined ? undefined : quantityValue(s.memory);
    // StatefulSets of one cluster carry one memory figure; while a change is applied, the larger counts.
    if (bytes !== undefined && bytes > 0 && (!reserved || bytes > reserved.bytes))
      reserved = { source: MEMORY_SOURCE.reserved, bytes: Math.ceil(bytes), written: String(s.memory), set: s.name };
  }
  if (reserved) return reserved;
  const maxmemory = valkeyConf === undefined ? undefined : directivesByName(readValkeyConf(valkeyConf)).get('maxmemory')?.at(-1)?.[0];
  const bytes = maxmemory === undefined ? undefined : valkeyMemoryBytes(maxmemory);
  // maxmemory 0 is "no limit": no figure, so the observed peak counts.
  if (maxmemory !== undefined && bytes !== undefined && bytes > 0) return { source: MEMORY_SOURCE.maxmemory, bytes, written: maxmemory };
  return undefined;
}

/** The figure the controller records: the configured one, else the observed peak, with the floor and the reason. */
export function meteredPodMemory(configured: ConfiguredPodMemory | undefined, observedPeakBytes?: number): MeteringMemory {
  const m: MeteringMemory =
    configured?.source === MEMORY_SOURCE.reserved
      ? {
          source: configured.source,
          podBytes: configured.bytes,
          reason: `resources.memory ${configured.written} (StatefulSet ${configured.set})`,
        }
      : configured
        ? {
            source: configured.source,
            podBytes: configured.bytes,
            reason: `no resources.memory; maxmemory ${configured.written} in valkey.conf`,
          }
        : observedPeakBytes !== undefined
          ? {
              source: MEMORY_SOURCE.observed,
              podBytes: observedPeakBytes,
              reason: 'no resources.memory and no maxmemory; the highest used_memory_peak of the nodes',
            }
          : { source: MEMORY_SOURCE.none, podBytes: 0, reason: 'no resources.memory, no maxmemory and no peak observed yet' };
  if (m.podBytes >= METERING_FLOOR_BYTES) return m;
  return { ...m, podBytes: METERING_FLOOR_BYTES, reason: `${m.reason}; below the 100 MB floor, counted as 100 MB` };
}
