import {
  CLOSED_REASON,
  gbHoursText,
  METERING_MAX_GAPS,
  METERING_MAX_SEGMENTS,
  monthEndMs,
  monthOf,
  monthStartMs,
  type ClosedReason,
  type MeteringGap,
  type MeteringMemory,
  type MeteringRecordStatus,
  type MeteringSegment,
} from '../../api/valkey-metering-record.js';

/**
 * Usage metering, pure: a cluster's open record plus what is provisioned now gives the record(s)
 * to write. Time is whole seconds and figures are integer byte-seconds (BigInt), so a figure is
 * the same however many samples it was added up from, and never goes down.
 *
 * The interval since the record's `lastSampleAt` is counted at the shape the record holds (what
 * was provisioned when it was last confirmed); a new shape starts at the sample that sees it, so
 * a change is counted at most one sample period late. An interval longer than `gapMs` had no
 * controller watching: it is counted the same way (the StatefulSets and the ConfigMap do not
 * change by themselves; only the API server changes them) and listed as a gap, with
 * `shapeChanged` when the shape at its end differs, so a reader can price it otherwise.
 */

export interface MeteringShape {
  shards: number;
  pods: number;
  memory: MeteringMemory;
}

export interface MeteringSample {
  /** This sample's time, ms (cut to whole seconds here). */
  nowMs: number;
  shape: MeteringShape;
  /** The cluster's deletionTimestamp: counted up to it, then closed. */
  deletedAtMs?: number;
}

export interface MeteringPolicy {
  /** An interval since the last sample longer than this had no controller watching: a gap. */
  gapMs: number;
  /** Write an unchanged record at most this often. */
  checkpointMs: number;
}

/** A record to write: its month, the new status, and whether it is new. */
export interface RecordWrite {
  month: string;
  status: MeteringRecordStatus;
  create: boolean;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);
const iso = (s: number): string => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const secondsOf = (text: string): number => seconds(Date.parse(text));

export const sameShape = (a: MeteringShape, b: MeteringShape): boolean =>
  a.shards === b.shards && a.pods === b.pods && a.memory.podBytes === b.memory.podBytes && a.memory.source === b.memory.source;

/** A segment's shape; its memory's reason is the record's (status.memory), which segments do not repeat. */
const shapeOf = (s: MeteringSegment, reason = ''): MeteringShape => ({ shards: s.shards, pods: s.pods, memory: { ...s.memory, reason } });
const segment = (fromS: number, toS: number, shape: MeteringShape): MeteringSegment => ({
  from: iso(fromS),
  to: iso(toS),
  shards: shape.shards,
  pods: shape.pods,
  memory: { source: shape.memory.source, podBytes: shape.memory.podBytes },
});
const segmentByteSeconds = (s: MeteringSegment): bigint =>
  BigInt(s.pods) * BigInt(s.memory.podBytes) * BigInt(secondsOf(s.to) - secondsOf(s.from));

/** A fresh record of `month` counting from `fromS`, at `shape`. */
function openRecord(fromS: number, shape: MeteringShape): MeteringRecordStatus {
  return {
    byteSeconds: '0',
    gbHours: gbHoursText(0n),
    from: iso(fromS),
    lastSampleAt: iso(fromS),
    memory: shape.memory,
    segments: [segment(fromS, fromS, shape)],
    closed: false,
  };
}

/** Counts [lastSampleAt, toS] at the open segment's shape. */
function extend(status: MeteringRecordStatus, toS: number): MeteringRecordStatus {
  const last = status.segments[status.segments.length - 1];
  const fromS = secondsOf(status.lastSampleAt);
  if (!last || toS <= fromS) return status;
  const added = BigInt(last.pods) * BigInt(last.memory.podBytes) * BigInt(toS - fromS);
  const total = BigInt(status.byteSeconds) + added;
  return {
    ...status,
    byteSeconds: total.toString(),
    gbHours: gbHoursText(total),
    lastSampleAt: iso(toS),
    segments: [...status.segments.slice(0, -1), { ...last, to: iso(toS) }],
  };
}

/** A new shape from `atS`: a new segment, the oldest folded into `folded` past the bound. */
function reshape(status: MeteringRecordStatus, atS: number, shape: MeteringShape): MeteringRecordStatus {
  const last = status.segments[status.segments.length - 1];
  if (last && sameShape(shapeOf(last), shape)) return status;
  let segments = [...status.segments];
  // A segment of no length carries nothing: replaced, not kept.
  if (last && last.from === last.to) segments.pop();
  segments.push(segment(atS, atS, shape));
  let folded = status.folded;
  while (segments.length > METERING_MAX_SEGMENTS) {
    const [oldest, ...rest] = segments as [MeteringSegment, ...MeteringSegment[]];
    folded = {
      segments: (folded?.segments ?? 0) + 1,
      byteSeconds: (BigInt(folded?.byteSeconds ?? '0') + segmentByteSeconds(oldest)).toString(),
      from: folded?.from ?? oldest.from,
      to: oldest.to,
    };
    segments = rest;
  }
  return { ...status, memory: shape.memory, segments, ...(folded ? { folded } : {}) };
}

function addGap(status: MeteringRecordStatus, gap: MeteringGap): MeteringRecordStatus {
  const gaps = [...(status.gaps ?? []), gap];
  const over = Math.max(0, gaps.length - METERING_MAX_GAPS);
  return {
    ...status,
    gaps: gaps.slice(over),
    ...(over || status.gapsFolded ? { gapsFolded: (status.gapsFolded ?? 0) + over } : {}),
  };
}

const close = (status: MeteringRecordStatus, reason: ClosedReason): MeteringRecordStatus => ({
  ...status,
  closed: true,
  closedReason: reason,
});

/**
 * The writes one sample makes: the open record (month `month`, status `open`) carried to now,
 * closed at each month end it passes (a next month's record opens at the same shape), at the
 * cluster's deletion, or left open. No record yet (`open` undefined): one opens now, unless the
 * cluster is already being deleted (never seen provisioned, nothing to count).
 */
export function advanceMetering(
  open: { month: string; status: MeteringRecordStatus } | undefined,
  sample: MeteringSample,
  policy: MeteringPolicy,
): RecordWrite[] {
  const nowS = seconds(sample.nowMs);
  if (!open) {
    if (sample.deletedAtMs !== undefined) return [];
    const month = monthOf(nowS * 1000);
    return [{ month, status: openRecord(nowS, sample.shape), create: true }];
  }
  if (open.status.closed) return [];
  const writes: RecordWrite[] = [];
  let month = open.month;
  let status = open.status;
  let create = false;
  const lastS = secondsOf(status.lastSampleAt);
  // Never before what is counted already (a new leader's clock may be behind, a deletion seen late).
  const endS = Math.max(lastS, sample.deletedAtMs === undefined ? nowS : Math.min(nowS, seconds(sample.deletedAtMs)));
  const last = status.segments[status.segments.length - 1];
  const changed = !last || !sameShape(shapeOf(last), sample.shape);
  const gap = endS - lastS > seconds(policy.gapMs);
  // Month by month: each record is closed at its month's end, and the next opens there.
  for (;;) {
    const monthEndS = seconds(monthEndMs(month));
    const segmentEndS = Math.min(endS, monthEndS);
    const from = Math.max(lastS, seconds(monthStartMs(month)));
    status = extend(status, segmentEndS);
    if (gap && segmentEndS > from)
      status = addGap(status, { from: iso(from), to: iso(segmentEndS), ...(changed ? { shapeChanged: true } : {}) });
    if (endS < monthEndS) break;
    writes.push({ month, status: close(status, CLOSED_REASON.monthEnd), create });
    const carried = status.segments[status.segments.length - 1];
    month = monthOf(monthEndS * 1000);
    status = openRecord(monthEndS, carried ? shapeOf(carried, status.memory?.reason) : sample.shape);
    create = true;
    if (endS === monthEndS) break;
  }
  if (sample.deletedAtMs !== undefined) {
    writes.push({ month, status: close(status, CLOSED_REASON.clusterDeleted), create });
    return writes;
  }
  const reshaped = changed ? reshape(status, endS, sample.shape) : status;
  const due = create || changed || endS - lastS >= seconds(policy.checkpointMs) || gap;
  if (due) writes.push({ month, status: reshaped, create });
  return writes;
}

/**
 * The record after one closed at its month's end, when that next one was never written (the
 * process stopped between the two writes): it opens at the month's end at the shape carried over.
 */
export function nextMonthRecord(closed: { month: string; status: MeteringRecordStatus }): { month: string; status: MeteringRecordStatus } {
  const endS = seconds(monthEndMs(closed.month));
  const last = closed.status.segments[closed.status.segments.length - 1];
  const shape = last
    ? shapeOf(last)
    : { shards: 0, pods: 0, memory: closed.status.memory ?? { source: 'None' as const, podBytes: 0, reason: '' } };
  return { month: monthOf(endS * 1000), status: openRecord(endS, shape) };
}

/** A record whose cluster is gone without a deletion seen (its finalizer removed by hand): closed where it was last confirmed. */
export function closeGone(status: MeteringRecordStatus): MeteringRecordStatus | undefined {
  return status.closed ? undefined : close(status, CLOSED_REASON.clusterGone);
}

/** Total byte-seconds from the segments and the folded sum: equal to byteSeconds in a record this module wrote. */
export function segmentsTotal(status: MeteringRecordStatus): bigint {
  return status.segments.reduce((sum, s) => sum + segmentByteSeconds(s), BigInt(status.folded?.byteSeconds ?? '0'));
}

/** Whether `next` would lower anything `previous` holds: refused by the writer (and by the CRD's rule). */
export function lowers(previous: MeteringRecordStatus | undefined, next: MeteringRecordStatus): string | undefined {
  if (!previous) return undefined;
  if (BigInt(next.byteSeconds) < BigInt(previous.byteSeconds))
    return `byteSeconds would go from ${previous.byteSeconds} down to ${next.byteSeconds}`;
  if (secondsOf(next.lastSampleAt) < secondsOf(previous.lastSampleAt))
    return `lastSampleAt would go back from ${previous.lastSampleAt} to ${next.lastSampleAt}`;
  if (previous.closed) return 'the record is closed';
  return undefined;
}
