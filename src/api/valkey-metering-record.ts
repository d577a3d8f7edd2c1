import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { type API_VERSION, GROUP } from './group.js';
import { celRules, type CelRule } from './common.js';

/**
 * ValkeyMeteringRecord: the provisioned memory of one cluster incarnation (its uid) over one
 * calendar month (UTC), written by the controller in its own namespace and read by whoever charges
 * teams back (docs/metering.md). Figures are exact integers: byte-seconds as a decimal string, so
 * nothing drifts however many samples are added; GB-hours (10^9 bytes × 3600 s) is derived for reading.
 */

export const METERING_RECORD_KIND = 'ValkeyMeteringRecord';
/** Holds a record until someone releases it (the annotation below); the controller adds it at creation. */
export const METERING_RECORD_FINALIZER = `${GROUP}/metering-record`;
/** Set to "true" on a closed record: the controller drops its finalizer so it can be deleted. */
export const METERING_RELEASE_ANNOTATION = `${GROUP}/release`;
/** Holds a ValkeyCluster until its record is closed at the deletion time the API server stamped. */
export const METERING_CLUSTER_FINALIZER = `${GROUP}/metering`;
/** On each record, for selecting by namespace with `-l`. */
export const METERING_LABELS = { namespace: `${GROUP}/cluster-namespace`, cluster: `${GROUP}/cluster-name` } as const;

/** Where the per-pod memory figure comes from, in the model's order. */
export const MEMORY_SOURCE = { reserved: 'Reserved', maxmemory: 'Maxmemory', observed: 'Observed', none: 'None' } as const;
/** The model's floor: no pod is counted at less than 100 MB. */
export const METERING_FLOOR_BYTES = 100_000_000;
/** Why a record stopped counting. */
export const CLOSED_REASON = { monthEnd: 'MonthEnd', clusterDeleted: 'ClusterDeleted', clusterGone: 'ClusterGone' } as const;
export type ClosedReason = (typeof CLOSED_REASON)[keyof typeof CLOSED_REASON];

/** At most this many shape segments and gaps a record keeps; older ones fold into a sum (the total stays exact). */
export const METERING_MAX_SEGMENTS = 32;
export const METERING_MAX_GAPS = 16;

const UINT_PATTERN = '^(0|[1-9][0-9]*)$';
const MONTH_PATTERN = '^[0-9]{4}-(0[1-9]|1[0-2])$';
const TIME = () => z.string().check(z.meta({ format: 'date-time' }));
const uint = () =>
  z.string().check(z.maxLength(40), z.regex(new RegExp(UINT_PATTERN), { error: 'must be a whole number of byte-seconds' }));

/** A decimal string never goes down: longer is larger, and equal lengths compare as text. */
const notLowered = (what: string): CelRule => ({
  rule: 'self.size() > oldSelf.size() || (self.size() == oldSelf.size() && self >= oldSelf)',
  message: `${what} never goes down: an update that would lower it is refused`,
});

export const meteringRecordSpec = lazy(() =>
  z
    .strictObject({
      cluster: z
        .strictObject({ namespace: z.string(), name: z.string(), uid: z.string() })
        .check(
          z.meta({ description: 'The ValkeyCluster metered: a cluster deleted and created again has another uid, so another record.' }),
        ),
      month: z
        .string()
        .check(z.regex(new RegExp(MONTH_PATTERN)), z.meta({ description: 'The calendar month (UTC) the record covers, YYYY-MM.' })),
    })
    .check(
      z.meta(celRules({ rule: 'self == oldSelf', message: 'spec is immutable: a record belongs to one cluster incarnation and month' })),
    ),
);

const memorySource = lazy(() => z.enum([MEMORY_SOURCE.reserved, MEMORY_SOURCE.maxmemory, MEMORY_SOURCE.observed, MEMORY_SOURCE.none]));

export const meteringMemory = lazy(() =>
  z.strictObject({
    source: memorySource(),
    /** Bytes per pod as counted (the floor applied). */
    podBytes: z.number().check(z.int(), z.gte(0)),
    reason: z.string().check(z.maxLength(200)),
  }),
);

export const meteringSegment = lazy(() =>
  z.strictObject({
    from: TIME(),
    to: TIME(),
    shards: z.number().check(z.int(), z.gte(0)),
    /** Pods of all the cluster's StatefulSets (spec.replicas summed): shards × (replicas + 1) when settled. */
    pods: z.number().check(z.int(), z.gte(0)),
    /** The source and figure only; why is in status.memory (kept short: a record holds up to 32 segments). */
    memory: z.strictObject({ source: memorySource(), podBytes: z.number().check(z.int(), z.gte(0)) }),
  }),
);

export const meteringGap = lazy(() =>
  z.strictObject({
    from: TIME(),
    to: TIME(),
    /** The shape at the end differed from the one at the start: the change is counted from the end. */
    shapeChanged: z.optional(z.boolean()),
  }),
);

export const meteringRecordStatus = lazy(() =>
  z
    .object({
      byteSeconds: uint().check(z.meta(celRules(notLowered('status.byteSeconds')))),
      gbHours: z.string().check(z.meta({ description: 'byteSeconds / (10^9 × 3600), three decimals, for reading.' })),
      from: TIME(),
      lastSampleAt: TIME(),
      memory: z.optional(meteringMemory()),
      segments: z.array(meteringSegment()).check(z.maxLength(METERING_MAX_SEGMENTS)),
      folded: z.optional(z.strictObject({ segments: z.number().check(z.int(), z.gte(0)), byteSeconds: uint(), from: TIME(), to: TIME() })),
      gaps: z.optional(z.array(meteringGap()).check(z.maxLength(METERING_MAX_GAPS))),
      gapsFolded: z.optional(z.number().check(z.int(), z.gte(0))),
      closed: z.boolean(),
      closedReason: z.optional(z.enum([CLOSED_REASON.monthEnd, CLOSED_REASON.clusterDeleted, CLOSED_REASON.clusterGone])),
    })
    .check(
      z.meta(
        celRules({
          rule: '!oldSelf.closed || (self.closed && self.byteSeconds == oldSelf.byteSeconds && self.lastSampleAt == oldSelf.lastSampleAt)',
          message: 'a closed record is final: it is never reopened and its figures never change',
        }),
      ),
    ),
);

export type MeteringRecordSpec = z.infer<ReturnType<typeof meteringRecordSpec>>;
export type MeteringRecordStatus = z.infer<ReturnType<typeof meteringRecordStatus>>;
export type MeteringSegment = z.infer<ReturnType<typeof meteringSegment>>;
export type MeteringMemory = z.infer<ReturnType<typeof meteringMemory>>;
export type MeteringGap = z.infer<ReturnType<typeof meteringGap>>;

export interface ValkeyMeteringRecord {
  apiVersion: typeof API_VERSION;
  kind: typeof METERING_RECORD_KIND;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    finalizers?: string[];
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec: MeteringRecordSpec;
  status?: MeteringRecordStatus;
}

/** `YYYY-MM` of an instant, in UTC. */
export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);
/** The first instant of the month after `month`, in ms. */
export function monthEndMs(month: string): number {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return Date.UTC(y, m, 1);
}
export const monthStartMs = (month: string): number => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return Date.UTC(y, m - 1, 1);
};

/** FNV-1a, 32 bits, hex: enough to keep two long names apart in a record's name; no crypto needed. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

const NAME_MAX = 253;

/**
 * `<namespace>.<cluster>.<uid8>.<yyyy-mm>`: one name per incarnation and month, the same whichever
 * controller computes it. Namespaces and cluster names are DNS labels (≤63 and ≤40), so it fits in
 * 253 today; a longer pair is cut and a hash of the whole added, so the name still differs.
 */
export function meteringRecordName(namespace: string, cluster: string, uid: string, month: string): string {
  const tail = `.${uid.replace(/-/g, '').slice(0, 8).toLowerCase()}.${month}`;
  const head = `${namespace}.${cluster}`;
  if (head.length + tail.length <= NAME_MAX) return head + tail;
  const hash = shortHash(head);
  const room = NAME_MAX - tail.length - hash.length - 1;
  return `${head.slice(0, room).replace(/[.-]+$/, '')}-${hash}${tail}`;
}

/** byte-seconds → GB-hours with three decimals, exact (no float). */
export function gbHoursText(byteSeconds: bigint): string {
  const milli = (byteSeconds * 1000n) / 3_600_000_000_000n;
  const whole = milli / 1000n;
  const frac = (milli % 1000n).toString().padStart(3, '0');
  return `${whole}.${frac}`;
}
