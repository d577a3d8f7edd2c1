// The autoscaler's window (cluster/load-window.ts): rates from counter deltas, peaks over the
// window, full only after the window's length with every pod in it, empty again when the shape
// changes or a server restarts.
import { describe, expect, it } from 'vitest';
import {
  addSamples,
  windowFull,
  windowRates,
  windowShape,
  type LoadSample,
  type NodeLoad,
} from '../../../src/controller/cluster/load-window.js';

const MIB = 2 ** 20;
const load = (o: Partial<NodeLoad> = {}): NodeLoad => ({
  usedBytes: 50 * MIB,
  keyBytes: 40 * MIB,
  maxmemoryBytes: 100 * MIB,
  cpuSeconds: 0,
  netBytes: 0,
  ...o,
});
const sample = (atMs: number, pod: string, o: Partial<NodeLoad> = {}): LoadSample => ({
  atMs,
  pod,
  shard: Number(pod[2]),
  primary: pod.endsWith('-0'),
  load: load(o),
});
const PODS = ['c-0-0', 'c-0-1'];
const SHAPE = windowShape(1, PODS);
const WINDOW = 90_000;

/** Samples every 30 s from t=0: CPU grows by `cpu` seconds and the network by `bytes` per sample. */
function fill(n: number, cpu: number, bytes: number, extra: (i: number) => Partial<NodeLoad> = () => ({})) {
  let w = undefined as ReturnType<typeof addSamples> | undefined;
  for (let i = 0; i < n; i++)
    w = addSamples(
      w,
      SHAPE,
      PODS.map((p) => sample(i * 30_000, p, { cpuSeconds: i * cpu, netBytes: i * bytes, ...extra(i) })),
      WINDOW,
    );
  return w as ReturnType<typeof addSamples>;
}

describe('the load window', () => {
  it('CPU as a share of the limit and bandwidth in Mbps from the deltas; memory against maxmemory', () => {
    const w = fill(3, 15, 30_000_000 / 8);
    const { latest } = windowRates(w, 2);
    expect(latest[0]).toEqual({ pod: 'c-0-0', shard: 0, primary: true, memoryPercent: 50, cpuPercent: 25, bandwidthMbps: 1 });
  });

  it('no CPU rate without a CPU limit, no memory share without maxmemory', () => {
    const w = fill(3, 15, 0, () => ({ maxmemoryBytes: 0 }));
    const { latest } = windowRates(w, undefined);
    expect(latest[0]).toEqual({ pod: 'c-0-0', shard: 0, primary: true, bandwidthMbps: 0 });
  });

  it('is full only once the window has passed and every pod has a rate', () => {
    expect(windowFull(fill(3, 1, 1), 60_000, WINDOW, PODS)).toBe(false);
    expect(windowFull(fill(4, 1, 1), 90_000, WINDOW, PODS)).toBe(true);
    expect(windowFull(fill(4, 1, 1), 90_000, WINDOW, [...PODS, 'c-0-2'])).toBe(false);
    expect(windowFull(undefined, 90_000, WINDOW, PODS)).toBe(false);
  });

  it('peaks over the window, samples older than it dropped', () => {
    // Memory at 90% only in the second sample, which falls out of a 90 s window by the seventh.
    const w = fill(7, 1, 1, (i) => (i === 1 ? { usedBytes: 90 * MIB } : {}));
    expect(windowRates(w, 1).peaks[0]?.memoryPercent).toBe(50);
    const early = fill(4, 1, 1, (i) => (i === 1 ? { usedBytes: 90 * MIB } : {}));
    expect(windowRates(early, 1).peaks[0]?.memoryPercent).toBe(90);
    expect(w.samples.get('c-0-0')?.map((s) => s.atMs)).toEqual([90_000, 120_000, 150_000, 180_000]);
  });

  it('a new shape (another pod, another shard count) starts an empty window', () => {
    const w = fill(4, 1, 1);
    const grown = addSamples(w, windowShape(2, [...PODS, 'c-1-0', 'c-1-1']), [sample(120_000, 'c-1-0')], WINDOW);
    expect(grown.startedMs).toBe(120_000);
    expect([...grown.samples.keys()]).toEqual(['c-1-0']);
  });

  it('a counter that went down (the server restarted) starts that pod again', () => {
    const w = fill(4, 10, 10);
    const restarted = addSamples(
      w,
      SHAPE,
      [sample(120_000, 'c-0-0', { cpuSeconds: 1, netBytes: 1 }), sample(120_000, 'c-0-1', { cpuSeconds: 40, netBytes: 40 })],
      WINDOW,
    );
    expect(restarted.samples.get('c-0-0')).toHaveLength(1);
    expect(windowFull(restarted, 120_000, WINDOW, PODS)).toBe(false);
    expect(windowRates(restarted, 1).latest.map((r) => r.pod)).toEqual(['c-0-1']);
  });
});
