import {
  AUTOSCALING_DEFAULTS,
  AUTOSCALING_METRICS,
  type AutoscalingMetric,
  type AutoscalingSpec,
  type ScaleDirection,
} from '../../api/autoscaling.js';
import type { NodeRates } from './load-window.js';

/**
 * The autoscaler's decision, pure and table-tested (test/controller/cluster/autoscale.test.ts). It
 * proposes one shard more or less and never changes spec.shards: the decision goes to
 * status.autoscaling and an Event, and a job commits it to git (contributing/autoscaling-design.md). The pass
 * planner asks it last, and only when no other operation is due.
 *
 * - Out: any primary's latest sample passes any scale-out threshold; below maxShards; not within
 *   scaleOutCooldownSeconds of the last scale-out.
 * - In: every node's peak over the window is below every scale-in threshold (a metric a node cannot
 *   measure counts as not below); above minShards; not within scaleInCooldownSeconds of the last
 *   scale-in, nor within scaleOutCooldownSeconds of the last scale-out; the shrink fits; and it is
 *   predicted to land below every scale-out threshold with a margin (landsBelowScaleOut), or the
 *   load that let it scale in would make it scale out again: a steady load would flap.
 * - Nothing from a window that is not full, or while the cluster is not steady.
 * - A decision git has not carried out yet stands (desiredShards stays) until spec.shards moves, or
 *   its own cooldown has passed, when it is decided afresh from the window.
 */

/** What the autoscaler remembers of its own decisions (PassMemory, seeded from status after a restart). */
export interface AutoscaleRecord {
  direction: ScaleDirection;
  fromShards: number;
  desiredShards: number;
  reason: string;
  atMs: number;
  /** The last decision of each direction, for the cooldowns. */
  lastOutMs?: number;
  lastInMs?: number;
}

export interface AutoscaleFacts {
  shards: number;
  spec: AutoscalingSpec;
  /** Why the cluster is not steady (not Active, or another operation due); absent: steady. */
  unsteady?: string;
  /** The window: absent or not full means no decision. */
  window: { full: boolean; heldMs: number; latest: readonly NodeRates[]; peaks: readonly NodeRates[] };
  /** Why removing a shard would not fit (the rebalancer's shrink check for shards - 1); absent: it fits. */
  scaleInHold?: string;
  record?: AutoscaleRecord;
  nowMs: number;
}

export interface AutoscaleOutcome {
  desiredShards: number;
  /** What the autoscaler does now, for status. */
  message: string;
  /** A new decision in this pass: an Event and a new record. */
  decision?: AutoscaleRecord;
  /** A primary passes a scale-out threshold, but the cluster is at spec.autoscaling.maxShards (a metric, an alert). */
  heldAtMaxShards?: true;
}

const UNIT: Record<AutoscalingMetric, string> = { memoryPercent: '%', cpuPercent: '%', bandwidthMbps: ' Mbps' };
const WHAT: Record<AutoscalingMetric, string> = {
  memoryPercent: 'of maxmemory',
  cpuPercent: 'of its CPU limit',
  bandwidthMbps: 'of network traffic',
};
const figure = (m: AutoscalingMetric, v: number): string => `${m === 'bandwidthMbps' ? v.toFixed(1) : Math.round(v)}${UNIT[m]}`;
const seconds = (ms: number): string => `${Math.ceil(ms / 1000)} s`;
/** A time in status words that stay the same pass after pass (a countdown would rewrite status every sample). */
const at = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export const autoscalingTimings = (a: AutoscalingSpec) => ({
  windowMs: 1000 * (a.scaleInWindowSeconds ?? AUTOSCALING_DEFAULTS.scaleInWindowSeconds),
  outCooldownMs: 1000 * (a.scaleOutCooldownSeconds ?? AUTOSCALING_DEFAULTS.scaleOutCooldownSeconds),
  inCooldownMs: 1000 * (a.scaleInCooldownSeconds ?? AUTOSCALING_DEFAULTS.scaleInCooldownSeconds),
});

/** The autoscaler's clocks, for the metrics: how much of the window the samples cover, and when each direction's cooldown ends. */
export interface AutoscaleTimers {
  windowSeconds: number;
  windowHeldSeconds: number;
  /** Unix seconds; absent: no cooldown holds that direction now. */
  scaleOutCooldownEndsSeconds?: number;
  /** The later of the scale-in cooldown and the scale-out cooldown (no scale-in within either). */
  scaleInCooldownEndsSeconds?: number;
}

export function autoscaleTimers(
  spec: AutoscalingSpec,
  window: AutoscaleFacts['window'],
  record: AutoscaleRecord | undefined,
  nowMs: number,
): AutoscaleTimers {
  const t = autoscalingTimings(spec);
  const ends = (...ms: (number | undefined)[]): number | undefined => {
    const latest = Math.max(...ms.map((m) => m ?? Number.NEGATIVE_INFINITY));
    return latest > nowMs ? Math.ceil(latest / 1000) : undefined;
  };
  const outEnds = ends(record?.lastOutMs === undefined ? undefined : record.lastOutMs + t.outCooldownMs);
  const inEnds = ends(
    record?.lastInMs === undefined ? undefined : record.lastInMs + t.inCooldownMs,
    record?.lastOutMs === undefined ? undefined : record.lastOutMs + t.outCooldownMs,
  );
  return {
    windowSeconds: t.windowMs / 1000,
    windowHeldSeconds: Math.floor(Math.min(window.full ? t.windowMs : window.heldMs, t.windowMs) / 1000),
    ...(outEnds !== undefined ? { scaleOutCooldownEndsSeconds: outEnds } : {}),
    ...(inEnds !== undefined ? { scaleInCooldownEndsSeconds: inEnds } : {}),
  };
}

/** The node and metric furthest past its scale-out threshold, by ratio to the threshold; ties by pod name. */
function hottest(a: AutoscalingSpec, latest: readonly NodeRates[]): string | undefined {
  let best: { ratio: number; text: string } | undefined;
  for (const n of latest) {
    if (!n.primary) continue;
    for (const m of AUTOSCALING_METRICS) {
      const threshold = a.scaleOut[m];
      const v = n[m];
      if (threshold === undefined || v === undefined || v <= threshold) continue;
      const ratio = v / threshold;
      if (!best || ratio > best.ratio)
        best = { ratio, text: `shard ${n.shard}'s primary ${n.pod} at ${figure(m, v)} ${WHAT[m]}, above ${m} ${threshold}` };
    }
  }
  return best?.text;
}

/** Whether every node's peak is below every scale-in threshold: the closest one when so, the first that is not otherwise. */
function quiet(a: AutoscalingSpec, peaks: readonly NodeRates[]): { quiet: true; closest: string } | { quiet: false; why: string } {
  const scaleIn = a.scaleIn;
  if (!scaleIn) return { quiet: false, why: 'no scale-in thresholds are set' };
  let closest: { ratio: number; text: string } | undefined;
  for (const n of peaks)
    for (const m of AUTOSCALING_METRICS) {
      const threshold = scaleIn[m];
      if (threshold === undefined) continue;
      const v = n[m];
      if (v === undefined) return { quiet: false, why: `${m} of ${n.pod} cannot be measured (no maxmemory or no CPU limit)` };
      if (v >= threshold) return { quiet: false, why: `${n.pod}'s peak is not below scale-in ${m} ${threshold}` };
      if (!closest || v / threshold > closest.ratio)
        closest = { ratio: v / threshold, text: `${n.pod} peaked at ${figure(m, v)} ${WHAT[m]}, below ${m} ${threshold}` };
    }
  return closest ? { quiet: true, closest: closest.text } : { quiet: false, why: 'no node was sampled' };
}

/**
 * How far below a scale-out threshold a scale-in must be predicted to land, as a fraction of the
 * threshold: the prediction assumes the load spreads evenly, which it does only roughly (slots are
 * whole, keys are not all alike), so a landing just under the threshold would still flap.
 */
export const SCALE_IN_MARGIN = 0.1;

/**
 * Where one shard less would put each node: the load of `shards` shards over `shards - 1` (data,
 * commands and traffic alike follow the slots), from each node's peak over the window. Undefined
 * when every metric a scale-out threshold watches lands below that threshold less the margin; the
 * reason otherwise, naming the node, the predicted figure and the limit.
 */
export function scaleInOvershoot(a: AutoscalingSpec, peaks: readonly NodeRates[], shards: number): string | undefined {
  if (shards < 2) return undefined;
  const factor = shards / (shards - 1);
  let worst: { ratio: number; text: string } | undefined;
  for (const n of peaks)
    for (const m of AUTOSCALING_METRICS) {
      const threshold = a.scaleOut[m];
      const v = n[m];
      if (threshold === undefined || v === undefined) continue;
      const predicted = v * factor;
      const limit = threshold * (1 - SCALE_IN_MARGIN);
      if (predicted < limit) continue;
      const ratio = predicted / limit;
      if (!worst || ratio > worst.ratio)
        worst = {
          ratio,
          text: `with ${shards - 1} shard(s) ${n.pod} would be at about ${figure(m, predicted)} ${WHAT[m]} (its peak ${figure(m, v)} × ${shards}/${shards - 1}), not below ${figure(m, limit)} (scaleOut.${m} ${threshold} less a ${Math.round(SCALE_IN_MARGIN * 100)}% margin), so it would scale out again`,
        };
    }
  return worst?.text;
}

export function planAutoscale(f: AutoscaleFacts): AutoscaleOutcome {
  const a = f.spec;
  const t = autoscalingTimings(a);
  const r = f.record;
  const since = (ms: number | undefined): number => (ms === undefined ? Number.POSITIVE_INFINITY : f.nowMs - ms);
  const cooldownOf = (d: ScaleDirection): number => (d === 'ScaleOut' ? t.outCooldownMs : t.inCooldownMs);
  // A decision git has not carried out yet stands until its own cooldown has passed.
  if (r && r.fromShards === f.shards && r.desiredShards !== f.shards && since(r.atMs) < cooldownOf(r.direction))
    return {
      desiredShards: r.desiredShards,
      message: `${r.direction} to ${r.desiredShards} shard(s) decided, waiting for git: spec.shards is still ${f.shards}`,
    };
  const hold = (message: string): AutoscaleOutcome => ({ desiredShards: f.shards, message });
  if (f.unsteady) return hold(`no decision while ${f.unsteady}`);
  if (!f.window.full)
    return hold(`collecting samples: the ${seconds(t.windowMs)} window is full at ${at(f.nowMs - f.window.heldMs + t.windowMs)}`);
  const decide = (direction: ScaleDirection, desiredShards: number, reason: string): AutoscaleOutcome => ({
    desiredShards,
    message: `${direction} to ${desiredShards} shard(s): ${reason}`,
    decision: {
      direction,
      fromShards: f.shards,
      desiredShards,
      reason,
      atMs: f.nowMs,
      ...(direction === 'ScaleOut'
        ? { lastOutMs: f.nowMs, ...(r?.lastInMs !== undefined ? { lastInMs: r.lastInMs } : {}) }
        : { lastInMs: f.nowMs, ...(r?.lastOutMs !== undefined ? { lastOutMs: r.lastOutMs } : {}) }),
    },
  });

  const hot = hottest(a, f.window.latest);
  if (hot) {
    if (f.shards >= a.maxShards) return { ...hold(`at maxShards ${a.maxShards}: ${hot}`), heldAtMaxShards: true };
    const left = t.outCooldownMs - since(r?.lastOutMs);
    if (left > 0) return hold(`scale-out cooldown until ${at(f.nowMs + left)}: ${hot}`);
    return decide('ScaleOut', f.shards + 1, hot);
  }
  const q = quiet(a, f.window.peaks);
  if (!q.quiet) return hold(`within thresholds (${q.why})`);
  if (f.shards <= a.minShards) return hold(`at minShards ${a.minShards}: ${q.closest}`);
  const inLeft = t.inCooldownMs - since(r?.lastInMs);
  if (inLeft > 0) return hold(`scale-in cooldown until ${at(f.nowMs + inLeft)}: ${q.closest}`);
  const outLeft = t.outCooldownMs - since(r?.lastOutMs);
  if (outLeft > 0) return hold(`no scale-in within the scale-out cooldown, until ${at(f.nowMs + outLeft)}: ${q.closest}`);
  if (f.scaleInHold) return hold(`no scale-in: ${f.scaleInHold}`);
  const overshoot = scaleInOvershoot(a, f.window.peaks, f.shards);
  if (overshoot) return hold(`no scale-in: ${overshoot}`);
  return decide('ScaleIn', f.shards - 1, `every node's peak over the window is below the scale-in thresholds (${q.closest})`);
}
