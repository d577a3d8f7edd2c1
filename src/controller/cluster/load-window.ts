import { AUTOSCALING_METRICS, type AutoscalingMetric } from '../../api/autoscaling.js';

/**
 * The autoscaler's window: samples of every node of one cluster, kept in the controller's memory
 * (PassMemory), never in status. Pure: the caller passes the time. A window belongs to one shape of
 * the cluster (its shard count and its pods): when the shape changes it starts again, empty, as it
 * does after a controller restart, so no decision ever reads samples of another shape.
 */

/**
 * What the autoscaler samples from one node: one `INFO memory cpu stats` reply. Memory is a level
 * (what `maxmemory` counts now); CPU seconds and network bytes are counters since the server
 * started, turned into rates by the difference of two samples (below).
 */
export interface NodeLoad {
  /** `used_memory - mem_not_counted_for_evict`, what `maxmemory` is compared with. */
  usedBytes: number;
  /** The keys' share of memory (dataset plus index): what the shrink check moves. */
  keyBytes: number;
  /** `maxmemory`; 0 means unbounded. */
  maxmemoryBytes: number;
  /** `used_cpu_sys + used_cpu_user` of the server process, in seconds. */
  cpuSeconds: number;
  /** `total_net_input_bytes + total_net_output_bytes`. */
  netBytes: number;
}

export interface LoadSample {
  atMs: number;
  pod: string;
  shard: number;
  primary: boolean;
  load: NodeLoad;
}

export interface LoadWindow {
  /** The shape the samples belong to (shards and pods). */
  shape: string;
  /** When this window's first sample was taken. */
  startedMs: number;
  /** Each pod's samples, oldest first. */
  samples: Map<string, LoadSample[]>;
}

/** One node's load between two samples: memory as a level, CPU and bandwidth as rates. Absent: not measurable. */
export type NodeRates = { pod: string; shard: number; primary: boolean } & Partial<Record<AutoscalingMetric, number>>;

export const windowShape = (shards: number, pods: readonly string[]): string => `${shards}:${[...pods].sort().join(',')}`;

/**
 * The window with this pass's samples added: a new one when the shape changed, samples older than
 * the window (save one, the base of the oldest rate) dropped, and a pod's series started again when
 * a counter went down (the server restarted).
 */
export function addSamples(window: LoadWindow | undefined, shape: string, samples: readonly LoadSample[], windowMs: number): LoadWindow {
  const now = samples.reduce((t, s) => Math.max(t, s.atMs), 0);
  const w: LoadWindow =
    window && window.shape === shape ? { ...window, samples: new Map(window.samples) } : { shape, startedMs: now, samples: new Map() };
  for (const s of samples) {
    const series = [...(w.samples.get(s.pod) ?? [])];
    const last = series.at(-1);
    if (last && (s.load.cpuSeconds < last.load.cpuSeconds || s.load.netBytes < last.load.netBytes || s.atMs <= last.atMs))
      series.length = 0;
    series.push(s);
    // Keep the newest sample at or before the window's start: the first rate inside it needs a base.
    while (series.length > 2 && (series[1] as LoadSample).atMs <= now - windowMs) series.shift();
    w.samples.set(s.pod, series);
  }
  if (w.samples.size === 0) w.startedMs = now;
  return w;
}

/**
 * Whether the window holds `windowMs` of samples: it was started that long ago and every pod of the
 * shape has a rate in it. A window is never read before it is full.
 */
export function windowFull(w: LoadWindow | undefined, nowMs: number, windowMs: number, pods: readonly string[]): boolean {
  if (!w || nowMs - w.startedMs < windowMs) return false;
  return pods.every((p) => (w.samples.get(p)?.length ?? 0) >= 2);
}

/** The rates between two samples of one pod. `cpuLimitCores`: the container's limit; absent, CPU is not measurable. */
function ratesBetween(a: LoadSample, b: LoadSample, cpuLimitCores: number | undefined): NodeRates {
  const seconds = (b.atMs - a.atMs) / 1000;
  const out: NodeRates = { pod: b.pod, shard: b.shard, primary: b.primary };
  if (b.load.maxmemoryBytes > 0) out.memoryPercent = (100 * b.load.usedBytes) / b.load.maxmemoryBytes;
  if (cpuLimitCores && cpuLimitCores > 0) out.cpuPercent = (100 * (b.load.cpuSeconds - a.load.cpuSeconds)) / seconds / cpuLimitCores;
  out.bandwidthMbps = ((b.load.netBytes - a.load.netBytes) * 8) / seconds / 1e6;
  return out;
}

/** Each pod's latest rates, and its peak of each metric over the window. */
export function windowRates(w: LoadWindow, cpuLimitCores: number | undefined): { latest: NodeRates[]; peaks: NodeRates[] } {
  const latest: NodeRates[] = [];
  const peaks: NodeRates[] = [];
  for (const pod of [...w.samples.keys()].sort()) {
    const series = w.samples.get(pod) as LoadSample[];
    const rates: NodeRates[] = [];
    for (let i = 1; i < series.length; i++) rates.push(ratesBetween(series[i - 1] as LoadSample, series[i] as LoadSample, cpuLimitCores));
    const last = rates.at(-1);
    if (!last) continue;
    latest.push(last);
    const peak: NodeRates = { pod: last.pod, shard: last.shard, primary: last.primary };
    for (const m of AUTOSCALING_METRICS) {
      const values = rates.flatMap((r) => (r[m] === undefined ? [] : [r[m]]));
      if (values.length === rates.length) peak[m] = Math.max(...values);
    }
    peaks.push(peak);
  }
  return { latest, peaks };
}
