import { gbHoursText, MEMORY_SOURCE, METERING_FLOOR_BYTES } from '../api/index.js';
import { METERING_HOURS_PER_MONTH, type ClusterMetering, type MeteringSide, type PlanMetering } from './plan-schema.js';
import type { RenderedCluster } from './rendered-cluster.js';
import { counted } from './words.js';

/**
 * The metering consequence of a change: what the controller will record for each cluster
 * (docs/metering.md), per 30-day month, from the render on each side. The memory rule is the
 * controller's own (api/metering-memory.ts); only the observed peak is unknown before the cluster
 * runs, so such a figure is the 100 MB floor and said to be a lower bound.
 */

const MONTH_SECONDS = BigInt(METERING_HOURS_PER_MONTH * 3600);

const byteSecondsPerMonth = (pods: number, podBytes: number): bigint => BigInt(pods) * BigInt(podBytes) * MONTH_SECONDS;

/** One side's figure for a cluster. */
export function meteringFigure(c: RenderedCluster): MeteringSide {
  const { pods, configured } = c.metering;
  const podBytes = Math.max(configured?.bytes ?? 0, METERING_FLOOR_BYTES);
  const floored = configured !== undefined && configured.bytes < METERING_FLOOR_BYTES ? ', below the 100 MB floor: counted as 100 MB' : '';
  const memory =
    configured?.source === MEMORY_SOURCE.reserved
      ? `resources.memory ${configured.written}${floored}`
      : configured
        ? `maxmemory ${configured.written} (no resources.memory)${floored}`
        : 'observed peak (unknown at plan time), at least the 100 MB floor';
  return {
    pods,
    source: configured?.source ?? MEMORY_SOURCE.observed,
    memory,
    podBytes,
    gbHoursPerMonth: gbHoursText(byteSecondsPerMonth(pods, podBytes)),
    atLeast: configured === undefined,
  };
}

/** Before and after for one cluster, when the metered figure or its source changes. */
export function compareMetering(base: RenderedCluster | undefined, change: RenderedCluster | undefined): ClusterMetering | undefined {
  const before = base ? meteringFigure(base) : null;
  const after = change ? meteringFigure(change) : null;
  if (before && after && before.pods === after.pods && before.podBytes === after.podBytes && before.source === after.source)
    return undefined;
  return { before, after };
}

/** The cluster's sentence: "metering: 6 pods x resources.memory 2Gi -> 8 pods x ...: 9,277.129 -> 12,369.505 GB-hours per 30-day month". */
export function meteringReason(m: ClusterMetering): string {
  const shape = (s: MeteringSide | null, none: string) => (s ? `${counted(s.pods, 'pod')} x ${s.memory}` : none);
  return `metering: ${shape(m.before, 'none')} -> ${shape(m.after, 'none once the ValkeyCluster is deleted (StatefulSets left running are not metered)')}: ${gbHoursFigure(m.before)} -> ${gbHoursFigure(m.after)} GB-hours per 30-day month`;
}

/** Every namespace whose clusters' provisioned GB-hours per month change, by name; undefined when none does. */
export function namespaceMetering(
  base: ReadonlyMap<string, RenderedCluster>,
  change: ReadonlyMap<string, RenderedCluster>,
): PlanMetering | undefined {
  const totals = new Map<string, { before: Total; after: Total }>();
  const add = (clusters: ReadonlyMap<string, RenderedCluster>, side: 'before' | 'after') => {
    for (const c of clusters.values()) {
      const t = totals.get(c.namespace) ?? { before: { byteSeconds: 0n, atLeast: false }, after: { byteSeconds: 0n, atLeast: false } };
      const s = meteringFigure(c);
      t[side] = { byteSeconds: t[side].byteSeconds + byteSecondsPerMonth(s.pods, s.podBytes), atLeast: t[side].atLeast || s.atLeast };
      totals.set(c.namespace, t);
    }
  };
  add(base, 'before');
  add(change, 'after');
  const namespaces = [...totals]
    .filter(([, t]) => t.before.byteSeconds !== t.after.byteSeconds || t.before.atLeast !== t.after.atLeast)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([namespace, t]) => ({ namespace, before: totalOf(t.before), after: totalOf(t.after) }));
  return namespaces.length > 0 ? { hoursPerMonth: METERING_HOURS_PER_MONTH, namespaces } : undefined;
}

/** A namespace's line: "team-a: 9,277.129 -> 12,369.505". */
export const namespaceMeteringLine = (n: PlanMetering['namespaces'][number]): string =>
  `${n.namespace}: ${gbHoursFigure(n.before)} -> ${gbHoursFigure(n.after)}`;

/** The heading of the namespaces' section, in every format. */
export const METERING_HEADING = `metering: provisioned GB-hours per 30-day month (${METERING_HOURS_PER_MONTH} h), per namespace where it changes`;

interface Total {
  byteSeconds: bigint;
  atLeast: boolean;
}

const totalOf = (t: Total) => ({ gbHoursPerMonth: gbHoursText(t.byteSeconds), atLeast: t.atLeast });

/** "at least 1,234.567", "0" for nothing. */
function gbHoursFigure(f: { gbHoursPerMonth: string; atLeast: boolean } | null): string {
  if (!f || /^[0.]*$/.test(f.gbHoursPerMonth)) return f?.atLeast ? 'at least 0' : '0';
  const [whole = '0', frac] = f.gbHoursPerMonth.split('.');
  const grouped = `${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${frac ? `.${frac}` : ''}`;
  return f.atLeast ? `at least ${grouped}` : grouped;
}
