import { describe, expect, it } from 'vitest';
import {
  CLOSED_REASON,
  MEMORY_SOURCE,
  METERING_FLOOR_BYTES,
  METERING_MAX_SEGMENTS,
  meteringRecordName,
  meteringRecordStatus,
  gbHoursText,
  type MeteringRecordStatus,
} from '../../../src/api/valkey-metering-record.js';
import {
  advanceMetering,
  closeGone,
  lowers,
  nextMonthRecord,
  segmentsTotal,
  type MeteringShape,
  type RecordWrite,
} from '../../../src/controller/cluster/metering.js';

const GB = 1_000_000_000;
const H = 3_600_000;
const T0 = Date.UTC(2026, 11, 6, 10, 0, 0); // 2026-12-06T10:00:00Z
const policy = { gapMs: 180_000, checkpointMs: 60_000 };
const shape = (
  shards: number,
  replicas: number,
  podGb: number,
  source: MeteringShape['memory']['source'] = MEMORY_SOURCE.reserved,
): MeteringShape => ({
  shards,
  pods: shards * (replicas + 1),
  memory: { source, podBytes: podGb * GB, reason: 'test' },
});

/** A run of samples every `stepMs`, each sample's shape from `shapeAt`; the open record as the API server would hold it after each write. */
function run(
  fromMs: number,
  toMs: number,
  stepMs: number,
  shapeAt: (ms: number) => MeteringShape,
  start?: { month: string; status: MeteringRecordStatus },
) {
  let open = start;
  const closed: RecordWrite[] = [];
  let writes = 0;
  for (let t = fromMs; t <= toMs; t += stepMs) {
    for (const w of advanceMetering(open, { nowMs: t, shape: shapeAt(t) }, policy)) {
      writes++;
      // The record goes through JSON and the schema as the API server stores it.
      const status = meteringRecordStatus().parse(JSON.parse(JSON.stringify(w.status)));
      if (status.closed) closed.push({ ...w, status });
      else open = { month: w.month, status };
    }
  }
  return { open, closed, writes };
}

const bs = (s: MeteringRecordStatus | undefined) => BigInt(s?.byteSeconds ?? '-1');

describe('metering: accumulation', () => {
  it('the first sample opens a record at zero; an hour at 3 shards × 2 pods × 2 GB is 12 GB-hours', () => {
    const first = advanceMetering(undefined, { nowMs: T0, shape: shape(3, 1, 2) }, policy);
    expect(first).toEqual([
      expect.objectContaining({ month: '2026-12', create: true, status: expect.objectContaining({ byteSeconds: '0' }) }),
    ]);
    const { open } = run(T0, T0 + H, 60_000, () => shape(3, 1, 2));
    expect(open?.status.gbHours).toBe('12.000');
    expect(bs(open?.status)).toBe(6n * 2n * BigInt(GB) * 3600n);
    expect(segmentsTotal(open!.status)).toBe(bs(open?.status));
  });

  it.each([
    ['every 60 s', 60_000],
    ['every 7 s', 7_000],
    ['every 59 s', 59_000],
  ])('the same figure whatever the sample rate (%s): integers, no drift', (_name, step) => {
    const end = T0 + 10 * H;
    const { open } = run(T0, end, step, () => shape(2, 2, 1));
    // The last sample may fall short of `end`; carry it there.
    const [last] = advanceMetering(open, { nowMs: end, shape: shape(2, 2, 1) }, { ...policy, checkpointMs: 0 });
    expect(bs(last?.status)).toBe(6n * BigInt(GB) * 36_000n);
  });

  it('an unchanged shape is written at most once per checkpoint; a changed one at once', () => {
    const start = advanceMetering(undefined, { nowMs: T0, shape: shape(3, 1, 2) }, policy)[0]!;
    const open = { month: start.month, status: start.status };
    expect(advanceMetering(open, { nowMs: T0 + 30_000, shape: shape(3, 1, 2) }, policy)).toEqual([]);
    expect(advanceMetering(open, { nowMs: T0 + 30_000, shape: shape(5, 1, 2) }, policy)).toHaveLength(1);
    expect(advanceMetering(open, { nowMs: T0 + 60_000, shape: shape(3, 1, 2) }, policy)).toHaveLength(1);
  });

  it('scaling 3 → 5 shards mid-period: the old shape up to the sample that sees the change, the new one after', () => {
    const change = T0 + 2 * H;
    const { open } = run(T0, T0 + 4 * H, 60_000, (t) => (t < change ? shape(3, 1, 2) : shape(5, 1, 2)));
    expect(open?.status.segments.map((s) => [s.from, s.to, s.shards, s.pods])).toEqual([
      ['2026-12-06T10:00:00Z', '2026-12-06T12:00:00Z', 3, 6],
      ['2026-12-06T12:00:00Z', '2026-12-06T14:00:00Z', 5, 10],
    ]);
    expect(open?.status.gbHours).toBe(`${6 * 2 * 2 + 10 * 2 * 2}.000`);
  });

  it('a memory change (a config doubled) is a new segment with the new source and figure', () => {
    const { open } = run(T0, T0 + 2 * H, 60_000, (t) => (t < T0 + H ? shape(1, 0, 1, MEMORY_SOURCE.maxmemory) : shape(1, 0, 2)));
    expect(open?.status.segments.map((s) => [s.memory.source, s.memory.podBytes])).toEqual([
      ['Maxmemory', GB],
      ['Reserved', 2 * GB],
    ]);
    expect(open?.status.memory?.source).toBe('Reserved');
    expect(open?.status.gbHours).toBe('3.000');
  });

  it('a controller down for an hour: counted at the shape provisioned, and listed as a gap', () => {
    const before = run(T0, T0 + H, 60_000, () => shape(3, 1, 2)).open!;
    const [after] = advanceMetering(before, { nowMs: T0 + 2 * H, shape: shape(3, 1, 2) }, policy);
    expect(after?.status.gaps).toEqual([{ from: '2026-12-06T11:00:00Z', to: '2026-12-06T12:00:00Z' }]);
    expect(after?.status.gbHours).toBe('24.000');
  });

  it('a gap whose end shows another shape: the old shape to the end of the gap, marked shapeChanged', () => {
    const before = run(T0, T0 + H, 60_000, () => shape(3, 1, 2)).open!;
    const [after] = advanceMetering(before, { nowMs: T0 + 2 * H, shape: shape(5, 1, 2) }, policy);
    expect(after?.status.gaps).toEqual([{ from: '2026-12-06T11:00:00Z', to: '2026-12-06T12:00:00Z', shapeChanged: true }]);
    expect(after?.status.gbHours).toBe('24.000');
    expect(after?.status.segments.at(-1)).toMatchObject({ from: '2026-12-06T12:00:00Z', shards: 5 });
  });

  it('a restart or a new leader goes on from the record: the same figure as a process that never stopped', () => {
    const steady = run(T0, T0 + 3 * H, 60_000, () => shape(2, 1, 4)).open!;
    // The first process wrote its last checkpoint at +1h; the second starts 90 s later from that record.
    const firstHour = run(T0, T0 + H, 60_000, () => shape(2, 1, 4)).open!;
    const resumed = run(T0 + H + 90_000, T0 + 3 * H, 60_000, () => shape(2, 1, 4), firstHour).open!;
    const [a] = advanceMetering(steady, { nowMs: T0 + 3 * H + 30_000, shape: shape(2, 1, 4) }, { ...policy, checkpointMs: 0 });
    const [b] = advanceMetering(resumed, { nowMs: T0 + 3 * H + 30_000, shape: shape(2, 1, 4) }, { ...policy, checkpointMs: 0 });
    expect(b?.status.byteSeconds).toBe(a?.status.byteSeconds);
    expect(b?.status.gaps).toBeUndefined();
  });

  it('month end: the record is closed at midnight UTC and the next month opens there; the two add up exactly', () => {
    const end = Date.UTC(2027, 0, 1);
    const { open, closed } = run(end - 2 * H, end + 2 * H, 60_000, () => shape(1, 1, 3));
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({
      month: '2026-12',
      status: { closed: true, closedReason: 'MonthEnd', lastSampleAt: '2027-01-01T00:00:00Z' },
    });
    expect(open).toMatchObject({ month: '2027-01', status: { from: '2027-01-01T00:00:00Z' } });
    expect(closed[0]?.status.gbHours).toBe('12.000');
    expect(open?.status.gbHours).toBe('12.000');
  });

  it('an outage across two month ends: one record per month, each closed at its end, each marking its part of the gap', () => {
    const before = run(Date.UTC(2026, 10, 30, 22), Date.UTC(2026, 10, 30, 23), 60_000, () => shape(1, 0, 1)).open!;
    const writes = advanceMetering(before, { nowMs: Date.UTC(2027, 0, 1, 1), shape: shape(1, 0, 1) }, policy);
    expect(writes.map((w) => [w.month, w.status.closed, w.status.gaps?.[0]?.from, w.status.gaps?.[0]?.to])).toEqual([
      ['2026-11', true, '2026-11-30T23:00:00Z', '2026-12-01T00:00:00Z'],
      ['2026-12', true, '2026-12-01T00:00:00Z', '2027-01-01T00:00:00Z'],
      ['2027-01', false, '2027-01-01T00:00:00Z', '2027-01-01T01:00:00Z'],
    ]);
    expect(writes.map((w) => w.status.gbHours)).toEqual(['2.000', `${31 * 24}.000`, '1.000']);
  });

  it('a record closed at a month end whose next one was never written: the next opens at the month start', () => {
    const next = nextMonthRecord({ month: '2026-12', status: run(T0, T0 + H, 60_000, () => shape(1, 0, 1)).open!.status });
    expect(next).toMatchObject({ month: '2027-01', status: { from: '2027-01-01T00:00:00Z', byteSeconds: '0', closed: false } });
    expect(next.status.segments[0]).toMatchObject({ shards: 1, pods: 1 });
  });

  it('deleted mid-period: counted to the deletionTimestamp, then closed; a deletion seen late lowers nothing', () => {
    const open = run(T0, T0 + H, 60_000, () => shape(3, 1, 2)).open!;
    const [closed] = advanceMetering(open, { nowMs: T0 + H + 60_000, shape: shape(0, 0, 0), deletedAtMs: T0 + H + 30_000 }, policy);
    expect(closed?.status).toMatchObject({
      closed: true,
      closedReason: CLOSED_REASON.clusterDeleted,
      lastSampleAt: '2026-12-06T11:00:30Z',
    });
    expect(bs(closed?.status)).toBe(12n * BigInt(GB) * 3630n);
    const [late] = advanceMetering(open, { nowMs: T0 + 2 * H, shape: shape(3, 1, 2), deletedAtMs: T0 + 30 * 60_000 }, policy);
    expect(late?.status.lastSampleAt).toBe(open.status.lastSampleAt);
    expect(bs(late?.status)).toBe(bs(open.status));
    expect(advanceMetering(closed as RecordWrite, { nowMs: T0 + 3 * H, shape: shape(3, 1, 2) }, policy)).toEqual([]);
  });

  it('a cluster first seen while being deleted opens no record; one gone without a deletion is closed where last confirmed', () => {
    expect(advanceMetering(undefined, { nowMs: T0, shape: shape(1, 0, 1), deletedAtMs: T0 - 1000 }, policy)).toEqual([]);
    const open = run(T0, T0 + H, 60_000, () => shape(1, 0, 1)).open!;
    expect(closeGone(open.status)).toMatchObject({ closed: true, closedReason: 'ClusterGone', lastSampleAt: open.status.lastSampleAt });
  });

  it('a sample with a clock behind the record (a new leader) lowers nothing', () => {
    const open = run(T0, T0 + H, 60_000, () => shape(1, 0, 1)).open!;
    const writes = advanceMetering(open, { nowMs: T0, shape: shape(2, 0, 1) }, policy);
    for (const w of writes) expect(lowers(open.status, w.status)).toBeUndefined();
    expect(writes[0]?.status.lastSampleAt).toBe(open.status.lastSampleAt);
  });

  it('lowers() names what an update would lower, and a closed record refuses any', () => {
    const open = run(T0, T0 + H, 60_000, () => shape(1, 0, 1)).open!;
    expect(lowers(open.status, { ...open.status, byteSeconds: '1' })).toMatch(/byteSeconds would go from .* down to 1/);
    expect(lowers(open.status, { ...open.status, lastSampleAt: '2026-12-06T10:00:00Z' })).toMatch(/lastSampleAt would go back/);
    expect(lowers({ ...open.status, closed: true }, open.status)).toBe('the record is closed');
  });

  it('a shape that flips every minute for a month keeps the segments bounded and the total exact', () => {
    const { open } = run(T0, T0 + 24 * H, 60_000, (t) => shape(((t / 60_000) % 3) + 1, 1, 1));
    expect(open?.status.segments.length).toBeLessThanOrEqual(METERING_MAX_SEGMENTS);
    expect(open?.status.folded?.segments).toBeGreaterThan(1000);
    expect(segmentsTotal(open!.status)).toBe(bs(open?.status));
  });
});

describe('metering: names and figures', () => {
  it('a record name per incarnation and month, a DNS subdomain within 253 characters', () => {
    expect(meteringRecordName('team-a', 'cache', '8f2c1a9e-0b1d-4c5e-9f00-1234567890ab', '2026-12')).toBe('team-a.cache.8f2c1a9e.2026-12');
    const long = meteringRecordName('n'.repeat(63), 'c'.repeat(200), 'ABCDEF12-3456', '2026-12');
    expect(long.length).toBeLessThanOrEqual(253);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
    expect(long).not.toBe(meteringRecordName('n'.repeat(63), `${'c'.repeat(199)}d`, 'ABCDEF12-3456', '2026-12'));
  });

  it.each([
    [0n, '0.000'],
    [3_600_000_000_000n, '1.000'],
    [3_600_000_000_000n * 1234n + 1n, '1234.000'],
    [1_800_000_000_000n, '0.500'],
  ])('gbHoursText(%s) = %s, exactly', (byteSeconds, text) => {
    expect(gbHoursText(byteSeconds)).toBe(text);
  });

  it('the 100 MB floor is the smallest per-pod figure', () => {
    expect(METERING_FLOOR_BYTES).toBe(100_000_000);
  });
});
