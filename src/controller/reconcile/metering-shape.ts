import { configuredPodMemory, meteredPodMemory, type MeteredSet } from '../../api/metering-memory.js';
import type { MeteringShape } from '../cluster/metering.js';
import type { StatefulSet } from '../kube/types.js';

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
