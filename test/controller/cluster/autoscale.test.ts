// The autoscaler's decision as a table (issue 26): one shard at a time, min/max, out on any
// primary past any scale-out threshold, in only when every node's window peak is below every
// scale-in threshold and the shrink fits, cooldowns per direction, nothing from a window that is
// not full or while another operation is due, and a decision git has not carried out yet stands.
import { describe, expect, it } from 'vitest';
import type { AutoscalingSpec } from '../../../src/api/autoscaling.js';
import {
  autoscaleTimers,
  autoscalingTimings,
  planAutoscale,
  SCALE_IN_MARGIN,
  type AutoscaleFacts,
  type AutoscaleRecord,
} from '../../../src/controller/cluster/autoscale.js';
import type { NodeRates } from '../../../src/controller/cluster/load-window.js';

const NOW = 10_000_000;
const MIN = 60_000;
const SPEC: AutoscalingSpec = {
  minShards: 2,
  maxShards: 4,
  scaleOut: { memoryPercent: 80, cpuPercent: 70 },
  scaleIn: { memoryPercent: 40, cpuPercent: 30 },
};
/** Two shards, each a primary and a replica, all at `load`, with overrides per pod. */
function nodes(load: Partial<NodeRates>, over: Record<string, Partial<NodeRates>> = {}): NodeRates[] {
  return ['c-0-0', 'c-0-1', 'c-1-0', 'c-1-1', 'c-2-0', 'c-2-1'].map((pod) => ({
    pod,
    shard: Number(pod[2]),
    primary: pod.endsWith('-0'),
    ...load,
    ...over[pod],
  }));
}
const calm = nodes({ memoryPercent: 20, cpuPercent: 10 });
const middling = nodes({ memoryPercent: 60, cpuPercent: 50 });
const facts = (o: Partial<AutoscaleFacts> & { latest?: NodeRates[]; peaks?: NodeRates[] }): AutoscaleFacts => {
  const { latest = middling, peaks = latest, ...rest } = o;
  return { shards: 3, spec: SPEC, window: { full: true, heldMs: 5 * MIN, latest, peaks }, nowMs: NOW, ...rest };
};
const record = (o: Partial<AutoscaleRecord>): AutoscaleRecord => ({
  direction: 'ScaleOut',
  fromShards: 3,
  desiredShards: 4,
  reason: 'r',
  atMs: NOW - 60 * MIN,
  ...o,
});
const hotPrimary = nodes({ memoryPercent: 60, cpuPercent: 50 }, { 'c-1-0': { memoryPercent: 91 } });

describe('planAutoscale', () => {
  it.each<[string, AutoscaleFacts, { desiredShards: number; decision?: 'ScaleOut' | 'ScaleIn'; message: string; heldAtMaxShards?: true }]>([
    [
      'a primary past memoryPercent: out by one, naming node, metric, value and threshold',
      facts({ latest: hotPrimary }),
      {
        desiredShards: 4,
        decision: 'ScaleOut',
        message: "ScaleOut to 4 shard(s): shard 1's primary c-1-0 at 91% of maxmemory, above memoryPercent 80",
      },
    ],
    [
      'the furthest past its threshold is named',
      facts({ latest: nodes({ memoryPercent: 60, cpuPercent: 50 }, { 'c-0-0': { memoryPercent: 85 }, 'c-2-0': { cpuPercent: 90 } }) }),
      {
        desiredShards: 4,
        decision: 'ScaleOut',
        message: "ScaleOut to 4 shard(s): shard 2's primary c-2-0 at 90% of its CPU limit, above cpuPercent 70",
      },
    ],
    [
      'a replica past a threshold does not scale out',
      facts({ latest: nodes({ memoryPercent: 60, cpuPercent: 50 }, { 'c-1-1': { cpuPercent: 99 } }) }),
      { desiredShards: 3, message: "within thresholds (c-0-0's peak is not below scale-in memoryPercent 40)" },
    ],
    [
      'at a threshold is not past it',
      facts({ latest: nodes({ memoryPercent: 80, cpuPercent: 70 }) }),
      { desiredShards: 3, message: "within thresholds (c-0-0's peak is not below scale-in memoryPercent 40)" },
    ],
    [
      'at maxShards: no scale-out',
      facts({ shards: 4, latest: hotPrimary }),
      {
        desiredShards: 4,
        message: "at maxShards 4: shard 1's primary c-1-0 at 91% of maxmemory, above memoryPercent 80",
        heldAtMaxShards: true,
      },
    ],
    [
      'within the scale-out cooldown: no second scale-out',
      facts({ latest: hotPrimary, record: record({ fromShards: 2, desiredShards: 3, lastOutMs: NOW - 2 * MIN }) }),
      {
        desiredShards: 3,
        message: "scale-out cooldown until 1970-01-01T02:47:40Z: shard 1's primary c-1-0 at 91% of maxmemory, above memoryPercent 80",
      },
    ],
    [
      'the scale-out cooldown passed: out again',
      facts({ latest: hotPrimary, record: record({ fromShards: 2, desiredShards: 3, lastOutMs: NOW - 3 * MIN }) }),
      {
        desiredShards: 4,
        decision: 'ScaleOut',
        message: "ScaleOut to 4 shard(s): shard 1's primary c-1-0 at 91% of maxmemory, above memoryPercent 80",
      },
    ],
    [
      'every peak below every scale-in threshold: in by one, naming the closest',
      facts({ latest: calm, peaks: nodes({ memoryPercent: 20, cpuPercent: 10 }, { 'c-2-1': { memoryPercent: 35 } }) }),
      {
        desiredShards: 2,
        decision: 'ScaleIn',
        message:
          "ScaleIn to 2 shard(s): every node's peak over the window is below the scale-in thresholds (c-2-1 peaked at 35% of maxmemory, below memoryPercent 40)",
      },
    ],
    [
      'one replica whose peak is not below: no scale-in (every node counts, not only primaries)',
      facts({ latest: calm, peaks: nodes({ memoryPercent: 20, cpuPercent: 10 }, { 'c-1-1': { cpuPercent: 30 } }) }),
      { desiredShards: 3, message: "within thresholds (c-1-1's peak is not below scale-in cpuPercent 30)" },
    ],
    [
      'a metric a node cannot measure (no CPU limit): no scale-in',
      facts({ latest: calm, peaks: nodes({ memoryPercent: 20 }) }),
      { desiredShards: 3, message: 'within thresholds (cpuPercent of c-0-0 cannot be measured (no maxmemory or no CPU limit))' },
    ],
    [
      'no scale-in thresholds: never in',
      facts({ spec: { ...SPEC, scaleIn: undefined }, latest: calm }),
      { desiredShards: 3, message: 'within thresholds (no scale-in thresholds are set)' },
    ],
    [
      'at minShards: no scale-in',
      facts({ shards: 2, latest: calm }),
      { desiredShards: 2, message: 'at minShards 2: c-0-0 peaked at 20% of maxmemory, below memoryPercent 40' },
    ],
    [
      'within the scale-in cooldown: no second scale-in',
      facts({ latest: calm, record: record({ direction: 'ScaleIn', fromShards: 4, desiredShards: 3, lastInMs: NOW - 10 * MIN }) }),
      {
        desiredShards: 3,
        message: 'scale-in cooldown until 1970-01-01T02:51:40Z: c-0-0 peaked at 20% of maxmemory, below memoryPercent 40',
      },
    ],
    [
      'within the scale-out cooldown: no scale-in either (flapping load gives no flapping decisions)',
      facts({ latest: calm, record: record({ fromShards: 2, desiredShards: 3, lastOutMs: NOW - MIN }) }),
      {
        desiredShards: 3,
        message:
          'no scale-in within the scale-out cooldown, until 1970-01-01T02:48:40Z: c-0-0 peaked at 20% of maxmemory, below memoryPercent 40',
      },
    ],
    [
      'the shrink would not fit: no scale-in',
      facts({ latest: calm, scaleInHold: 'shrinking to 2 shard(s) is held: …' }),
      { desiredShards: 3, message: 'no scale-in: shrinking to 2 shard(s) is held: …' },
    ],
    [
      'a window not full yet: nothing, whatever the load',
      facts({ latest: hotPrimary, window: { full: false, heldMs: 90_000, latest: hotPrimary, peaks: hotPrimary } }),
      { desiredShards: 3, message: 'collecting samples: the 300 s window is full at 1970-01-01T02:50:10Z' },
    ],
    [
      'another operation due: nothing',
      facts({ latest: hotPrimary, unsteady: 'roll waits: …' }),
      { desiredShards: 3, message: 'no decision while roll waits: …' },
    ],
    [
      'a decision git has not carried out stands, while the cluster is busy too',
      facts({ latest: calm, unsteady: 'x', record: record({ atMs: NOW - MIN, lastOutMs: NOW - MIN }) }),
      { desiredShards: 4, message: 'ScaleOut to 4 shard(s) decided, waiting for git: spec.shards is still 3' },
    ],
    [
      'a decision git has not carried out, past its cooldown: decided afresh from the window',
      facts({ latest: middling, record: record({ atMs: NOW - 3 * MIN, lastOutMs: NOW - 3 * MIN }) }),
      { desiredShards: 3, message: "within thresholds (c-0-0's peak is not below scale-in memoryPercent 40)" },
    ],
    [
      'git moved elsewhere (a hand edit): the pending decision is dropped, the cooldown still runs',
      facts({ shards: 2, latest: hotPrimary, record: record({ atMs: NOW - MIN, lastOutMs: NOW - MIN }) }),
      {
        desiredShards: 2,
        message: "scale-out cooldown until 1970-01-01T02:48:40Z: shard 1's primary c-1-0 at 91% of maxmemory, above memoryPercent 80",
      },
    ],
    [
      'git carried the decision out: within thresholds again',
      facts({ shards: 4, latest: middling, record: record({ atMs: NOW - MIN, lastOutMs: NOW - MIN }) }),
      { desiredShards: 4, message: "within thresholds (c-0-0's peak is not below scale-in memoryPercent 40)" },
    ],
    [
      'bandwidth past its threshold',
      facts({
        spec: { ...SPEC, scaleOut: { bandwidthMbps: 500 } },
        latest: nodes({ bandwidthMbps: 120 }, { 'c-0-0': { bandwidthMbps: 612.345 } }),
      }),
      {
        desiredShards: 4,
        decision: 'ScaleOut',
        message: "ScaleOut to 4 shard(s): shard 0's primary c-0-0 at 612.3 Mbps of network traffic, above bandwidthMbps 500",
      },
    ],
  ])('%s', (_name, f, expected) => {
    const out = planAutoscale(f);
    expect({
      desiredShards: out.desiredShards,
      message: out.message,
      ...(out.decision ? { decision: out.decision.direction } : {}),
      ...(out.heldAtMaxShards ? { heldAtMaxShards: true } : {}),
    }).toEqual(expected);
    if (out.decision) {
      expect(out.decision.desiredShards - f.shards).toBe(out.decision.direction === 'ScaleOut' ? 1 : -1);
      expect(out.decision.atMs).toBe(NOW);
    }
  });

  it('a decision keeps the other direction’s last time for its cooldown', () => {
    const out = planAutoscale(
      facts({
        latest: calm,
        record: record({ direction: 'ScaleOut', lastOutMs: NOW - 10 * MIN, lastInMs: NOW - 20 * MIN, fromShards: 2, desiredShards: 3 }),
      }),
    );
    expect(out.decision).toMatchObject({ direction: 'ScaleIn', lastInMs: NOW, lastOutMs: NOW - 10 * MIN });
  });

  it.each([
    ['the scale-out line', hotPrimary, middling],
    ['the scale-in line', nodes({ memoryPercent: 45, cpuPercent: 10 }), calm],
  ])('load flapping around %s every sample: one decision per cooldown at most, never in and out in turn', (_name, high, low) => {
    let r: AutoscaleRecord | undefined;
    let shards = 3;
    const seen: NodeRates[][] = [];
    const decisions: { i: number; direction: string }[] = [];
    for (let i = 0; i < 80; i++) {
      const now = NOW + i * 30_000;
      seen.push(i % 2 === 0 ? high : low);
      const window = seen.slice(-10); // 300 s of 30 s samples
      const peaks = (window[0] as NodeRates[]).map((n, k) => {
        const peak: NodeRates = { ...n };
        for (const m of ['memoryPercent', 'cpuPercent'] as const) peak[m] = Math.max(...window.map((w) => (w[k] as NodeRates)[m] ?? 0));
        return peak;
      });
      const out = planAutoscale({
        ...facts({ latest: seen.at(-1) as NodeRates[], peaks, ...(r ? { record: r } : {}) }),
        shards,
        nowMs: now,
        spec: { ...SPEC, maxShards: 8, minShards: 1 },
      });
      if (out.decision) {
        r = out.decision;
        decisions.push({ i, direction: out.decision.direction });
      }
      // The job commits a decision a minute later.
      if (r && r.desiredShards !== shards && now - r.atMs >= 60_000) shards = r.desiredShards;
    }
    const directions = new Set(decisions.map((d) => d.direction));
    expect(directions.size, JSON.stringify(decisions)).toBeLessThanOrEqual(1);
    for (let k = 1; k < decisions.length; k++)
      expect((decisions[k] as { i: number }).i - (decisions[k - 1] as { i: number }).i).toBeGreaterThanOrEqual(6);
  });
});

// Issue 32: a scale-in must land below every scale-out threshold, with a margin, or a steady load
// scales in and straight out again (4 shards at 65% -> 3 shards at 86.7% > 80%).
describe('a scale-in is predicted to land below every scale-out threshold (SCALE_IN_MARGIN)', () => {
  /** `shards` shards of a primary and a replica, every node at `load` of one metric. */
  const shape = (shards: number, m: 'memoryPercent' | 'cpuPercent', load: number): NodeRates[] =>
    Array.from({ length: shards }, (_, s) =>
      [0, 1].map((i) => ({ pod: `c-${s}-${i}`, shard: s, primary: i === 0, memoryPercent: 1, cpuPercent: 1, [m]: load })),
    ).flat();

  it('4 shards at 65% of maxmemory, scale-out at 80, scale-in at 70: no scale-in (3 shards would be at 86.7%), with the reason', () => {
    const spec: AutoscalingSpec = { minShards: 1, maxShards: 8, scaleOut: { memoryPercent: 80 }, scaleIn: { memoryPercent: 70 } };
    const load = shape(4, 'memoryPercent', 65);
    const out = planAutoscale({ ...facts({ latest: load }), shards: 4, spec });
    expect(out.decision).toBeUndefined();
    expect(out.desiredShards).toBe(4);
    expect(out.message).toBe(
      'no scale-in: with 3 shard(s) c-0-0 would be at about 87% of maxmemory (its peak 65% × 4/3), not below 72% (scaleOut.memoryPercent 80 less a 10% margin), so it would scale out again',
    );
  });

  const thresholds = [20, 50, 70, 80, 95];
  const shapes = [2, 3, 4, 8, 16];
  const loads = [1, 5, 10, 20, 30, 40, 45, 50, 55, 60, 65, 70, 75, 85, 90];
  const rows = thresholds.flatMap((out) =>
    shapes.flatMap((shards) => (['memoryPercent', 'cpuPercent'] as const).flatMap((m) => loads.map((load) => ({ out, shards, m, load })))),
  );
  it.each([[rows.length]])('%i rows of threshold × shards × metric × load: in only when it lands below, and then always', () => {
    let ins = 0;
    let held = 0;
    for (const { out, shards, m, load } of rows) {
      // The scale-in threshold just below the scale-out one: only the prediction stands between them.
      const spec: AutoscalingSpec = { minShards: 1, maxShards: 32, scaleOut: { [m]: out }, scaleIn: { [m]: out - 1 } };
      const peaks = shape(shards, m, load);
      const got = planAutoscale({ ...facts({ latest: peaks }), shards, spec });
      const quiet = load < out - 1;
      const lands = (load * shards) / (shards - 1) < out * (1 - SCALE_IN_MARGIN);
      const row = JSON.stringify({ out, shards, m, load, message: got.message });
      if (got.decision?.direction === 'ScaleIn') {
        ins++;
        expect(lands, row).toBe(true);
        // And the landing itself decides nothing: the load that scaled in does not scale out.
        const after = shape(shards - 1, m, (load * shards) / (shards - 1));
        expect(planAutoscale({ ...facts({ latest: after }), shards: shards - 1, spec }).decision?.direction, row).not.toBe('ScaleOut');
      } else if (quiet && lands && load <= out) expect.unreachable(`no scale-in where it lands below: ${row}`);
      else if (quiet && !lands) {
        held++;
        expect(got.message, row).toMatch(/^no scale-in: with \d+ shard\(s\) c-0-0 would be at about .* so it would scale out again$/);
      }
    }
    expect(ins).toBeGreaterThan(50);
    expect(held).toBeGreaterThan(50);
  });

  it('a scale-out metric with no scale-in twin counts too: cpu at 60% of 70 on 2 shards would land at 120%', () => {
    const spec: AutoscalingSpec = {
      minShards: 1,
      maxShards: 8,
      scaleOut: { memoryPercent: 80, cpuPercent: 70 },
      scaleIn: { memoryPercent: 40 },
    };
    const peaks = shape(2, 'cpuPercent', 60).map((n) => ({ ...n, memoryPercent: 10 }));
    const out = planAutoscale({ ...facts({ latest: peaks }), shards: 2, spec });
    expect(out.decision).toBeUndefined();
    expect(out.message).toContain('would be at about 120% of its CPU limit (its peak 60% × 2/1), not below 63% (scaleOut.cpuPercent 70');
  });

  it('a steady total load never scales in and out in turn, whatever the thresholds', () => {
    for (const out of thresholds)
      for (const total of [30, 100, 150, 200, 260, 333, 400]) {
        const spec: AutoscalingSpec = {
          minShards: 1,
          maxShards: 16,
          scaleOut: { memoryPercent: out },
          scaleIn: { memoryPercent: out - 1 },
        };
        let shards = 4;
        let r: AutoscaleRecord | undefined;
        const directions: string[] = [];
        for (let i = 0; i < 40; i++) {
          const load = shape(shards, 'memoryPercent', total / shards);
          const got = planAutoscale({ ...facts({ latest: load, ...(r ? { record: r } : {}) }), shards, spec, nowMs: NOW + i * 3_600_000 });
          if (got.decision) {
            r = got.decision;
            directions.push(got.decision.direction);
            shards = got.decision.desiredShards;
          }
        }
        const turns = directions.filter((d, k) => k > 0 && d !== directions[k - 1]).length;
        expect(turns, JSON.stringify({ out, total, directions })).toBe(0);
      }
  });
});

describe('autoscaleTimers: the window and the cooldowns as the metrics show them', () => {
  const t = autoscalingTimings(SPEC);
  const window = (full: boolean, heldMs: number) => ({ full, heldMs, latest: calm, peaks: calm });
  const s = (ms: number) => Math.ceil(ms / 1000);
  it.each([
    ['a new window, no decision yet', window(false, 90_000), undefined, { windowHeldSeconds: 90 }],
    ['a full window', window(true, t.windowMs + 5 * MIN), undefined, { windowHeldSeconds: t.windowMs / 1000 }],
    [
      'just after a scale-out: both directions wait for the scale-out cooldown',
      window(true, t.windowMs),
      record({ lastOutMs: NOW - MIN }),
      { scaleOutCooldownEndsSeconds: s(NOW - MIN + t.outCooldownMs), scaleInCooldownEndsSeconds: s(NOW - MIN + t.outCooldownMs) },
    ],
    [
      'after a scale-in: a scale-out is free, a scale-in waits for its own cooldown',
      window(true, t.windowMs),
      record({ direction: 'ScaleIn', lastInMs: NOW - MIN }),
      { scaleInCooldownEndsSeconds: s(NOW - MIN + t.inCooldownMs) },
    ],
    [
      'cooldowns that have passed hold nothing',
      window(true, t.windowMs),
      record({ lastOutMs: NOW - t.outCooldownMs - 1, lastInMs: NOW - t.inCooldownMs - 1 }),
      {},
    ],
  ] as const)('%s', (_what, w, r, expected) => {
    expect(autoscaleTimers(SPEC, w, r, NOW)).toEqual({
      windowSeconds: t.windowMs / 1000,
      windowHeldSeconds: t.windowMs / 1000,
      ...expected,
    });
  });
});
