import { quantityValue, type AutoscalingStatus, type ValkeyCluster, type ValkeyClusterStatus } from '../../api/index.js';
import { EVENT, STATE } from '../../api/status-names.js';
import { autoscalingTimings, type AutoscaleOutcome, type AutoscaleRecord } from '../cluster/autoscale.js';
import { addSamples, windowFull, windowRates, windowShape, type LoadSample, type LoadWindow } from '../cluster/load-window.js';
import { isAnswered } from '../cluster/observation.js';
import type { PassFacts } from '../cluster/pass-planner.js';
import type { EventRecorder, InvolvedObject } from '../kube/event-recorder.js';
import type { StatefulSet } from '../kube/types.js';
import { rfc3339 } from '../runtime/clock.js';
import { mapLimit } from '../runtime/map-limit.js';
import { parseLoadInfo } from '../valkey/load-info.js';
import type { ClusterObservation } from './observe-cluster.js';

/**
 * The autoscaler's I/O (the decision itself is cluster/autoscale.ts, asked by the pass planner):
 * sample every node's `INFO memory cpu stats` once per sampling interval into the cluster's window
 * in this process's memory, and afterwards turn the planner's outcome into an Event, the record the
 * cooldowns run from, and status.autoscaling.
 */

/** What the autoscaler keeps in PassMemory, per cluster key. None of it decides which operation acts. */
export interface AutoscaleMemory {
  windows: Map<string, LoadWindow>;
  records: Map<string, AutoscaleRecord>;
}

/** Samples one cluster takes at once. */
const SAMPLES_IN_FLIGHT = 16;

/** The valkey container's CPU limit in cores, from the first shard StatefulSet that has one. */
export function cpuLimitCores(sets: readonly StatefulSet[]): number | undefined {
  for (const s of sets) {
    const c = s.spec?.template?.spec?.containers?.find((x) => x.name === 'valkey') ?? s.spec?.template?.spec?.containers?.[0];
    const limit = c?.resources?.limits?.cpu;
    const cores = limit === undefined ? undefined : quantityValue(limit);
    if (cores !== undefined && cores > 0) return cores;
  }
  return undefined;
}

/**
 * The record of the autoscaler's own last decision: this process's, or, after a restart, the one
 * status holds (the controller's own output, read back so a pending decision and its cooldown
 * survive a restart; the window does not, by design).
 */
function recordOf(key: string, memory: AutoscaleMemory, previous: ValkeyClusterStatus | undefined): AutoscaleRecord | undefined {
  const kept = memory.records.get(key);
  if (kept) return kept;
  const a = previous?.autoscaling;
  const atMs = a?.lastDecisionTime ? Date.parse(a.lastDecisionTime) : Number.NaN;
  if (!a?.lastDecision || !Number.isFinite(atMs) || a.lastDecisionFromShards === undefined) return undefined;
  const record: AutoscaleRecord = {
    direction: a.lastDecision,
    fromShards: a.lastDecisionFromShards,
    desiredShards: a.desiredShards,
    reason: a.lastDecisionReason ?? '',
    atMs,
    ...(a.lastDecision === 'ScaleOut' ? { lastOutMs: atMs } : { lastInMs: atMs }),
  };
  memory.records.set(key, record);
  return record;
}

/**
 * This pass's samples (when the last is older than `intervalMs`), added to the window, and the
 * planner's autoscale facts. Nodes that do not answer or give a reply that cannot be trusted add
 * no sample, so the window is not full until they do.
 */
export async function autoscaleFacts(
  key: string,
  cluster: ValkeyCluster,
  seen: ClusterObservation,
  o: { memory: AutoscaleMemory; nowMs: number; intervalMs: number; previous?: ValkeyClusterStatus },
): Promise<PassFacts['autoscale']> {
  const spec = cluster.spec.autoscaling;
  if (!spec) {
    o.memory.windows.delete(key);
    o.memory.records.delete(key);
    return undefined;
  }
  const { windowMs } = autoscalingTimings(spec);
  const pods = seen.observations.map((x) => x.pod);
  const shape = windowShape(cluster.spec.shards, pods);
  let window = o.memory.windows.get(key);
  if (window && window.shape !== shape) window = undefined;
  const newest = window ? Math.max(0, ...[...window.samples.values()].map((s) => s.at(-1)?.atMs ?? 0)) : 0;
  if (!window || o.nowMs - newest >= o.intervalMs) {
    const answered = seen.observations.filter(isAnswered);
    const taken = await mapLimit(answered, SAMPLES_IN_FLIGHT, async (n): Promise<LoadSample | undefined> => {
      const session = seen.sessions.get(n.pod);
      const load = session ? parseLoadInfo(await session.infoLoad().catch(() => '')) : undefined;
      return load ? { atMs: o.nowMs, pod: n.pod, shard: n.shard, primary: n.replication?.role === 'primary', load } : undefined;
    });
    const samples = taken.filter((s): s is LoadSample => s !== undefined);
    if (samples.length) {
      window = addSamples(window, shape, samples, windowMs);
      o.memory.windows.set(key, window);
    }
  }
  const rates = window ? windowRates(window, cpuLimitCores(seen.statefulSets)) : { latest: [], peaks: [] };
  const memory = new Map(
    [...(window?.samples.values() ?? [])].flatMap((series) => {
      const last = series.at(-1);
      return last ? [[last.pod, last.load] as const] : [];
    }),
  );
  const record = recordOf(key, o.memory, o.previous);
  return {
    spec,
    window: { full: windowFull(window, o.nowMs, windowMs, pods), heldMs: window ? o.nowMs - window.startedMs : 0, ...rates },
    memory,
    nowMs: o.nowMs,
    ...(record ? { record } : {}),
  };
}

/**
 * After the pass: a decision is kept only if the status this pass writes says Active (the planner
 * sees the pass's operations; status also weighs what executing them found). A kept decision is an
 * Event and the new record; a cluster that was not steady starts its window again.
 */
export function settleAutoscale(
  key: string,
  outcome: (AutoscaleOutcome & { steady: boolean }) | undefined,
  state: ValkeyClusterStatus['state'],
  o: { memory: AutoscaleMemory; shards: number; events: EventRecorder; about: InvolvedObject; nowMs: number },
): AutoscalingStatus | undefined {
  if (!outcome) return undefined;
  let { desiredShards, message, decision } = outcome;
  if (!outcome.steady || state !== STATE.active) o.memory.windows.delete(key);
  if (decision && state !== STATE.active) {
    desiredShards = o.shards;
    message = `no decision while the cluster is ${state ?? 'unknown'}`;
    decision = undefined;
  }
  if (decision) {
    o.memory.records.set(key, decision);
    o.events.record(
      o.about,
      'Normal',
      decision.direction === 'ScaleOut' ? EVENT.scaleOut : EVENT.scaleIn,
      `${decision.fromShards} → ${decision.desiredShards} shard(s) proposed (git carries it out): ${decision.reason}`,
    );
  }
  const r = o.memory.records.get(key);
  return {
    desiredShards,
    message,
    ...(r
      ? {
          lastDecision: r.direction,
          lastDecisionReason: r.reason,
          lastDecisionTime: rfc3339(r.atMs),
          lastDecisionFromShards: r.fromShards,
        }
      : {}),
  };
}
