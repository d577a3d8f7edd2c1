import { valkeyCluster, valkeyClusterStatus, type ValkeyCluster, type ValkeyClusterStatus } from '../../api/index.js';
import type { AtomicFailures } from '../cluster/migration-path.js';
import { CONDITION, EVENT, REASON, STATE } from '../../api/status-names.js';
import { planPass, type Operation, type PassFacts, type PassPlan } from '../cluster/pass-planner.js';
import type { ForeignNodeReport } from '../cluster/formation.js';
import { describeProgress, rollUnderWay } from '../cluster/roll.js';
import { buildStatus, type Day2Status, type FailbackStatus, type ScalingStatus } from '../cluster/status.js';
import { foreignPodMessage, type ForeignPod } from '../cluster/pod-ownership.js';
import { involvedCluster, type EventRecorder } from '../kube/event-recorder.js';
import type { ApiObject, ConfigMap, Pod, Secret, StatefulSet } from '../kube/types.js';
import { rfc3339, type Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import type { ControllerMetrics } from '../runtime/metrics.js';
import type { RetryGate } from '../runtime/retry-gate.js';
import type { RollSlots } from '../runtime/roll-slots.js';
import type { WorkResult } from '../runtime/work-queue.js';
import { describeAction, executeActions } from '../valkey/execute-plan.js';
import { everyPodObserved, isAnswered, type NodeObservation } from '../cluster/observation.js';
import { formerNodeIds, ownNodeHistory } from '../cluster/foreign-nodes.js';
import { autoscaleFacts, settleAutoscale, type AutoscaleMemory } from './autoscale-step.js';
import { autoscaleTimers } from '../cluster/autoscale.js';
import { executeFailback } from './failback-step.js';
import { missingPrerequisites, observeCluster, passFacts, type ClusterObservation, type NodeAccess } from './observe-cluster.js';
import { executeRebalance, rebalanceFinished } from './rebalance-cluster.js';
import { reloadCluster } from './reload-cluster.js';
import { executeRetirement } from './retire-shards.js';
import { executeRollStep, type EvictionResult } from './roll-step.js';
import { statusEquals } from './status-equals.js';
import { inertStrings } from '../runtime/inert.js';
import { gatherKubeFacts, type Node } from './kube-facts.js';
import { recordSight, type LastSight } from '../cluster/lost-primaries.js';
import { podsOnLostNodes, lostNodeMessage } from '../cluster/lost-nodes.js';
import { clusterFacts } from './cluster-facts.js';
import { keepSamples, podFacts, statsDue, type StatsSample } from './pod-facts.js';
import { dataLostCondition, describeLoss, slotsGivenEmpty } from '../cluster/data-loss.js';
import { countSlots } from '../../api/contract/slots.js';
import { ANNOTATIONS } from '../../api/contract/annotations.js';

/**
 * One pass over one ValkeyCluster, I/O only: observe (the caches, every pod's node), ask the pass
 * planner (cluster/pass-planner.ts) which one operation acts, carry it out (and the reloads, which
 * run beside it), write status if, and only if, it changed.
 */

export interface ReconcileTiming {
  /** Look again this soon while a cluster is forming or healing. */
  progressMs: number;
  /** Re-check an Active cluster this often. */
  resyncMs: number;
  /** Re-check a Failed cluster this often (it needs a new image, so there is no hurry). */
  failedResyncMs: number;
}

/** The API server as a pass uses it: the informers' caches to read, requests to write. */
export interface ClusterApi {
  cluster(key: string): ApiObject | undefined;
  pods(namespace: string, cluster: string): Pod[];
  statefulSets(namespace: string, cluster: string): StatefulSet[];
  configMap(namespace: string, name: string): ConfigMap | undefined;
  readSecret(namespace: string, name: string): Promise<Secret>;
  /** Whether a Secret exists, from its metadata alone (a 404 is false); absent: not looked at. */
  secretExists?(namespace: string, name: string): Promise<boolean>;
  patchStatus(namespace: string, name: string, status: ValkeyClusterStatus): Promise<void>;
  evict(namespace: string, pod: string): Promise<EvictionResult>;
  /** Deletes a retired shard's StatefulSet and PDB (shards in); absent: drained shards are kept. */
  deleteShard?(namespace: string, cluster: string, shard: number): Promise<void>;
  /** A Node from the cache; absent: Nodes cannot be read (a namespaced install) or the cache is not filled yet. */
  node?(name: string): Node | undefined;
  events: EventRecorder;
}

/**
 * What this process remembers between passes. None of it decides which operation acts: the ACL
 * retry gate paces loads that keep failing, the totals are the "m" of "n of m slots moved", and
 * the fallback picks the protocol a migration the planner chose uses.
 */
export interface PassMemory {
  aclRetry: RetryGate;
  scalingTotals: Map<string, number>;
  /**
   * Atomic slot-migration steps that failed in a cluster's scaling: cluster key → the record
   * (cluster/migration-path.ts). Which protocol moves the slots, never which operation acts.
   */
  atomicFailures: Map<string, AtomicFailures>;
  /**
   * The autoscaler's windows of samples and its own last decisions (reconcile/autoscale-step.ts).
   * A window is lost with the process, and no decision is made until a new one is full.
   */
  autoscale: AutoscaleMemory;
  /** Each cluster's replicas as last seen in sync or not (cluster/lost-primaries.ts), by cluster key. */
  lastSight?: Map<string, ReadonlyMap<string, LastSight>>;
  /** Per cluster key: when each of its former node ids was first seen listed by no node (cluster/foreign-nodes.ts). */
  unlistedIds?: Map<string, Map<string, number>>;
  /** The status this process last wrote on each cluster (by key, with the object's uid): see previousStatus. */
  writtenStatus: Map<string, { uid: string; status: ValkeyClusterStatus }>;
  /** Each cluster's pods' last Valkey metrics figures (reconcile/pod-facts.ts), by cluster key and pod: what a scrape shows. */
  valkeyStats?: Map<string, Map<string, StatsSample>>;
}

/**
 * The status the pass starts from. The watch that brings this process's own write back can come
 * after the next pass has begun: a cluster that shows no status at all, although this process
 * wrote one on the same object (same uid), is read with what was written. Otherwise a cluster
 * formed by the first pass would look adopted in the second (no status, every slot assigned),
 * and a creation that failed would be reported as a running cluster gone Invalid.
 */
export function previousStatus(
  shown: unknown,
  uid: string | undefined,
  written: { uid: string; status: ValkeyClusterStatus } | undefined,
): ValkeyClusterStatus | undefined {
  if (shown !== undefined) return valkeyClusterStatus().safeParse(shown).data;
  return uid !== undefined && written?.uid === uid ? written.status : undefined;
}

export interface ClusterReconcilerDeps {
  api: ClusterApi;
  nodes: NodeAccess;
  /** The fleet's roll slots (--max-concurrent-rolls): checked for the plan, claimed before a roll acts. */
  rollSlots: Pick<RollSlots, 'free' | 'claim'>;
  memory: PassMemory;
  timing: ReconcileTiming;
  /** Slots per migration step (the planner's default when absent). */
  batchSlots?: number;
  clock: Clock;
  log: Logger;
  metrics: ControllerMetrics;
  /** `classic`: never the atomic slot-migration path (--slot-migration); default auto. */
  slotMigration?: 'auto' | 'classic';
  /** How often an autoscaled cluster's nodes are sampled (--autoscale-sample-seconds); default 30 s. */
  sampleIntervalMs?: number;
  /**
   * How often each pod's Valkey metrics figures are read, at most: in a pass due on that pod
   * (--valkey-metrics-seconds); 0 or absent: no per-pod Valkey metrics.
   */
  valkeyMetricsMs?: number;
}

/** The model operator's sampling interval. */
export const DEFAULT_SAMPLE_INTERVAL_MS = 30_000;

/** This cluster's memory of its unlisted former node ids (formerNodeIds' grace), made on first use. */
function unlistedIds(memory: PassMemory, key: string): Map<string, number> {
  memory.unlistedIds ??= new Map();
  let ids = memory.unlistedIds.get(key);
  if (!ids) {
    ids = new Map();
    memory.unlistedIds.set(key, ids);
  }
  return ids;
}

function versionsOf(observations: readonly NodeObservation[]): string[] {
  return observations.map((o) => {
    if (o.state === 'answered') return o.version;
    if (o.state === 'rejected') return o.identity.kind === 'valkey' ? o.identity.version : 'not-valkey';
    return 'unknown';
  });
}

/** What carrying out the pass's operation found, for status. */
interface Executed {
  actionErrors: string[];
  /** `again`: slots still move and the pass only stopped to write status. */
  scaling?: ScalingStatus & { again?: boolean };
  rollDetail?: string;
  failback?: FailbackStatus;
}

async function execute(
  now: Operation,
  key: string,
  cluster: ValkeyCluster,
  seen: ClusterObservation,
  facts: Pick<PassFacts, 'primaries' | 'maxmemoryBytes'>,
  deps: ClusterReconcilerDeps,
  log: Logger,
): Promise<Executed> {
  const about = involvedCluster(cluster);
  const { sessions } = seen;
  const answered = seen.observations.filter((o) => o.state === 'answered');
  switch (now.kind) {
    case 'none':
      return { actionErrors: [] };
    case 'formation': {
      const outcomes = await executeActions(now.actions, sessions);
      for (const o of outcomes) {
        deps.metrics.formationActions.inc({ action: o.action.kind, result: o.error ? 'error' : 'ok' });
        if (o.error) log.warn('formation step failed', { step: describeAction(o.action), error: o.error });
        else log.info('formation step', { step: describeAction(o.action) });
      }
      const actionErrors = outcomes.flatMap((o) => (o.error ? [o.error] : []));
      if (actionErrors.length) deps.metrics.reconcileErrors.inc({ kind: 'formation' }, actionErrors.length);
      return { actionErrors };
    }
    case 'heal':
    case 'move': {
      const scaling = await executeRebalance(
        now,
        { primaries: [...facts.primaries], ...(facts.maxmemoryBytes ? { maxmemoryBytes: facts.maxmemoryBytes } : {}) },
        { key, about, shards: cluster.spec.shards, replicasPerShard: cluster.spec.replicasPerShard, answered, sessions },
        {
          events: deps.api.events,
          clock: deps.clock,
          log,
          metrics: deps.metrics,
          scalingTotals: deps.memory.scalingTotals,
          atomicFailures: deps.memory.atomicFailures,
          ...(deps.batchSlots ? { batchSlots: deps.batchSlots } : {}),
          ...(deps.slotMigration ? { slotMigration: deps.slotMigration } : {}),
        },
      );
      return { actionErrors: [], scaling };
    }
    case 'retire': {
      const deleteShard = deps.api.deleteShard?.bind(deps.api);
      if (!deleteShard) return { actionErrors: [] };
      const scaling = await executeRetirement(
        now,
        { about, shards: cluster.spec.shards, answered, sessions },
        { events: deps.api.events, log, deleteShard },
      );
      return { actionErrors: [], scaling };
    }
    case 'roll': {
      const detail = await executeRollStep(about, now.step, sessions, {
        evict: (ns, pod) => deps.api.evict(ns, pod),
        events: deps.api.events,
        clock: deps.clock,
        log,
        metrics: deps.metrics,
      });
      return { actionErrors: [], ...(detail ? { rollDetail: detail } : {}) };
    }
    case 'failover': {
      const message = await executeFailback(about, now, sessions, { events: deps.api.events, clock: deps.clock, log });
      return { actionErrors: [], failback: { acted: true, message } };
    }
  }
}

/** The roll as status shows it: the planner's state, with the executor's word when the step did not happen. */
export function rollStatus(plan: PassPlan, executed: Pick<Executed, 'rollDetail'>): Day2Status['roll'] {
  const r = plan.roll;
  if (r.state === 'none') return undefined;
  const progress = r.step.kind === 'none' ? '' : describeProgress(r.step.progress);
  const detail = plan.now.kind === 'roll' ? executed.rollDetail : r.message;
  const message = r.state === 'held' ? `${detail}; ${progress}` : detail ? `${progress}: ${detail}` : progress;
  return { state: r.state, message, revision: r.revision };
}

/** One pass over one ValkeyCluster; `rolling` tells the fleet whether this cluster holds a roll slot now. */
export async function reconcileCluster(
  key: string,
  deps: ClusterReconcilerDeps,
): Promise<WorkResult & { rolling?: boolean; waitsForRollSlot?: boolean }> {
  const raw = deps.api.cluster(key);
  if (!raw) {
    deps.metrics.setClusterVersions(key, undefined);
    deps.metrics.setClusterStatus(key, undefined);
    deps.memory.autoscale.windows.delete(key);
    deps.memory.autoscale.records.delete(key);
    deps.memory.writtenStatus.delete(key);
    deps.memory.lastSight?.delete(key);
    deps.memory.unlistedIds?.delete(key);
    deps.memory.valkeyStats?.delete(key);
    deps.metrics.setClusterPods(key, undefined);
    deps.metrics.setDataLost(key, false);
    return {};
  }
  const parsed = valkeyCluster().safeParse(raw);
  if (!parsed.success) {
    deps.log.warn('skipping a ValkeyCluster that does not match the schema', { cluster: key, error: parsed.error.message });
    return {};
  }
  const cluster = parsed.data;
  const namespace = cluster.metadata.namespace as string;
  const log = deps.log.child({ cluster: key });
  // Read for the condition transitions, the roll metrics and whether the cluster ever ran
  // (Failed at creation, Invalid later); no operation's decision reads it.
  const uid = typeof cluster.metadata.uid === 'string' ? cluster.metadata.uid : undefined;
  const previous = previousStatus(cluster.status, uid, deps.memory.writtenStatus.get(key));
  const written = deps.memory.writtenStatus.get(key);
  // The one thing a pass keeps from the last: which node ids were this cluster's (foreign-nodes.ts).
  const history = ownNodeHistory(previous, written?.uid === uid ? written?.status : undefined);

  const statsEveryMs = deps.valkeyMetricsMs ?? 0;
  const statsKept = deps.memory.valkeyStats?.get(key);
  const passStartMs = deps.clock.now();
  const seen = await observeCluster(
    cluster,
    deps.api,
    deps.nodes,
    passStartMs,
    statsEveryMs > 0 ? (pod) => statsDue(statsKept?.get(pod), passStartMs, statsEveryMs) : undefined,
  );
  recordPodMetrics(key, seen, statsKept, passStartMs, deps);
  // Only the StatefulSets' own pods are dialled; any other pod with the cluster's labels is named
  // in status and an Event, and never talked to.
  reportForeignPods(cluster, seen.foreign, deps, log);
  try {
    const { observations, sessions } = seen;
    const unreachable = observations.filter((o) => o.state === 'unreachable').length;
    if (unreachable) deps.metrics.reconcileErrors.inc({ kind: 'node' }, unreachable);

    const facts = await passFacts(cluster, seen, {
      rollSlotFree: deps.rollSlots.free(key),
      retire: deps.api.deleteShard !== undefined,
      ...(deps.batchSlots ? { batchSlots: deps.batchSlots } : {}),
    });
    // While the cluster is being created, what its pods wait for (a Secret or ConfigMap not there
    // yet) is a wait, named in status; a running cluster is not asked (its pods have what they mount).
    const secretExists = deps.api.secretExists?.bind(deps.api);
    const creating = previous === undefined || previous.state === STATE.creating || previous.state === STATE.failed;
    const missing =
      creating && secretExists
        ? await missingPrerequisites(cluster, seen.statefulSets, { configMap: (ns, n) => deps.api.configMap(ns, n), secretExists })
        : [];
    const sampleIntervalMs = deps.sampleIntervalMs ?? DEFAULT_SAMPLE_INTERVAL_MS;
    const autoscale = await autoscaleFacts(key, cluster, seen, {
      memory: deps.memory.autoscale,
      nowMs: deps.clock.now(),
      intervalMs: sampleIntervalMs,
      ...(previous ? { previous } : {}),
    });
    const kube = gatherKubeFacts(
      seen.pods.map((p) => p.pod),
      deps.nodes.endpointOf,
      deps.api.node ? (name) => deps.api.node?.(name) : undefined,
    );
    deps.memory.lastSight ??= new Map();
    const sights = deps.memory.lastSight;
    const withKube: PassFacts = { ...facts, kube, lastSight: sights.get(key) ?? new Map(), ownNodeHistory: history };
    const passInput: PassFacts = autoscale ? { ...withKube, autoscale } : withKube;
    let plan = planPass(passInput);
    // The slot was only checked when the facts were gathered, and other passes ran since: take it
    // now, in the same synchronous stretch as the decision, or plan again without it.
    if (plan.roll.state === 'rolling' && !deps.rollSlots.claim(key, rollUnderWay(facts.roll)))
      plan = planPass({ ...passInput, rollSlotFree: false });
    for (const w of plan.waiting) log.debug('waits', { operation: w.operation, reason: w.reason });
    reportForeignNodes(cluster, plan.formation.foreign ?? [], deps, log);
    if (plan.roll.state === 'held' && plan.roll.step.kind === 'held')
      deps.api.events.record(involvedCluster(cluster), 'Warning', EVENT.rollHeld, plan.roll.step.reason);
    const reload = () =>
      reloadCluster(
        { about: involvedCluster(cluster), statefulSets: seen.statefulSets, sessions, ...(seen.tls ? { tls: seen.tls } : {}) },
        {
          configMap: (ns, name) => deps.api.configMap(ns, name),
          events: deps.api.events,
          aclRetry: deps.memory.aclRetry,
          clock: deps.clock,
          log,
          metrics: deps.metrics,
        },
      );
    // The reloads go before a roll step (an evicted pod's node would refuse them) and after the rest
    // (a node formation just attached gets them in the same pass).
    const reloadsFirst = plan.now.kind === 'roll' ? await reload() : undefined;
    const executed = await execute(plan.now, key, cluster, seen, facts, deps, log);
    sights.set(key, recordSight(sights.get(key) ?? new Map(), observations));
    const nowText = rfc3339(deps.clock.now());
    const lossFacts = recordLossAndTakeovers(cluster, plan, executed, previous?.state, nowText, deps, log);
    const lostNodes = kube.nodes ? podsOnLostNodes(observations, kube) : [];
    for (const n of lostNodes) deps.api.events.record(involvedCluster(cluster), 'Warning', EVENT.nodeLost, lostNodeMessage(n));
    const dataLost = dataLostCondition({
      lost: lossFacts,
      previous: previous?.conditions?.find((c) => c.type === CONDITION.dataLost),
      acknowledged: cluster.metadata.annotations?.[ANNOTATIONS.dataLossAcknowledged],
      now: nowText,
      namespace,
      name: cluster.metadata.name,
      generation: raw.metadata.generation ?? 0,
    });
    deps.metrics.setDataLost(key, dataLost?.status === 'True');
    const reloads = reloadsFirst ?? (await reload());
    if (plan.slotsBalanced)
      rebalanceFinished(
        { key, about: involvedCluster(cluster) },
        { events: deps.api.events, scalingTotals: deps.memory.scalingTotals, atomicFailures: deps.memory.atomicFailures },
      );

    const { again: _again, ...movedNow } = executed.scaling ?? {};
    const scaling: ScalingStatus | undefined = executed.scaling ? (movedNow as ScalingStatus) : plan.topology;
    const failback = executed.failback ?? (plan.failbackWaiting ? { acted: false, message: plan.failbackWaiting } : undefined);
    const roll = rollStatus(plan, executed);
    // Every string in status passes one door: what a node said is inert there (runtime/inert.ts).
    const status = inertStatus({
      day2: { reloads: reloads.reloads, ...(reloads.refused.length ? { refused: reloads.refused } : {}), ...(roll ? { roll } : {}) },
      namespace,
      generation: raw.metadata.generation ?? 0,
      shards: cluster.spec.shards,
      replicasPerShard: cluster.spec.replicasPerShard,
      observations,
      plan: plan.formation,
      formerNodeIds: formerNodeIds(history, observations.filter(isAnswered), everyPodObserved(observations), {
        unlistedSince: unlistedIds(deps.memory, key),
        nowMs: deps.clock.now(),
      }),
      actionErrors: executed.actionErrors,
      foreignPods: seen.foreign.map(foreignPodMessage),
      ...(scaling ? { scaling } : {}),
      ...(failback ? { failback } : {}),
      ...(seen.tlsVerdict ? { tls: seen.tlsVerdict } : {}),
      ...(missing.length ? { missing } : {}),
      ...(seen.declared ? { declared: seen.declared } : {}),
      ...(previous ? { previous } : {}),
      kube: {
        ...(plan.leaders ? { spread: plan.leaders.verdict, leaders: plan.leaders.leaders } : {}),
        ...(plan.lost ? { lost: plan.lost } : {}),
        lostNodes,
        ...(dataLost ? { dataLost } : {}),
      },
      now: nowText,
    });
    const autoscaling = settleAutoscale(key, plan.autoscale, status.state, {
      memory: deps.memory.autoscale,
      shards: cluster.spec.shards,
      events: deps.api.events,
      about: involvedCluster(cluster),
      nowMs: deps.clock.now(),
    });
    if (autoscaling) status.autoscaling = inertStrings(autoscaling);
    deps.metrics.setClusterVersions(key, versionsOf(observations));
    const heldAtMax = plan.autoscale?.heldAtMaxShards === true && status.state === STATE.active;
    const timers = autoscale
      ? autoscaleTimers(autoscale.spec, autoscale.window, deps.memory.autoscale.records.get(key), deps.clock.now())
      : undefined;
    deps.metrics.setClusterStatus(
      key,
      clusterFacts(status, observations, seen.tlsVerdict, cluster.spec, { heldAtMaxShards: heldAtMax, ...(timers ? { timers } : {}) }),
    );
    const decided = status.autoscaling?.lastDecision;
    if (decided && status.autoscaling?.lastDecisionTime !== previous?.autoscaling?.lastDecisionTime)
      deps.metrics.autoscaleDecisions.inc({ decision: decided });
    countFinishedRoll(previous, status, deps);
    if (!statusEquals(previous, status)) {
      await deps.api.patchStatus(namespace, cluster.metadata.name, status);
      if (uid !== undefined) deps.memory.writtenStatus.set(key, { uid, status });
      deps.metrics.statusWrites.inc();
      log.info('status written', { state: status.state, message: status.message });
    }
    const next = requeue(status, plan, reloads.reloads, executed.scaling?.again === true, deps.timing, !facts.rollSlotFree);
    // An autoscaled cluster is looked at at least once per sampling interval.
    const sampled = autoscale && next.requeueAfterMs !== undefined ? Math.min(next.requeueAfterMs, sampleIntervalMs) : next.requeueAfterMs;
    return {
      ...next,
      ...(sampled !== undefined ? { requeueAfterMs: sampled } : {}),
      rolling: plan.roll.state === 'rolling',
      waitsForRollSlot: waitsForRollSlot(plan, !facts.rollSlotFree),
    };
  } finally {
    for (const s of seen.sessions.values()) s.close();
  }
}

/** Valkey's per-pod series from this pass's reads (runtime/valkey-metrics.ts), or none when they are off. */
function recordPodMetrics(
  key: string,
  seen: ClusterObservation,
  kept: ReadonlyMap<string, StatsSample> | undefined,
  nowMs: number,
  deps: ClusterReconcilerDeps,
): void {
  if (!deps.valkeyMetricsMs) {
    deps.metrics.setClusterPods(key, undefined);
    return;
  }
  const samples = keepSamples(kept, seen.stats ?? new Map(), seen.observations, nowMs);
  deps.memory.valkeyStats ??= new Map();
  deps.memory.valkeyStats.set(key, samples);
  deps.metrics.setClusterPods(key, podFacts(seen.observations, samples));
}

/** The status of a pass with every string made inert: the one door node text passes into status. */
export const inertStatus = (input: Parameters<typeof buildStatus>[0]): ValkeyClusterStatus => inertStrings(buildStatus(input));

/** The roll waits for its turn and nothing else acts on the cluster: only a freed roll slot changes that. */
export function waitsForRollSlot(plan: PassPlan, rollSlotsTaken: boolean): boolean {
  return (
    rollSlotsTaken &&
    plan.roll.state === 'waiting' &&
    plan.now.kind === 'none' &&
    plan.formation.actions.length === 0 &&
    plan.topology === undefined
  );
}

/**
 * When to look again: at once while slots still move (the pass only stopped to write status), soon
 * while something acts or waits on the cluster itself, slowly when a person must act.
 */
export function requeue(
  status: ValkeyClusterStatus,
  plan: PassPlan,
  reloads: readonly string[],
  slotsStillMove: boolean,
  timing: ReconcileTiming,
  rollSlotsTaken = false,
): WorkResult {
  if (status.state === STATE.failed || status.state === STATE.invalid) return { requeueAfterMs: timing.failedResyncMs };
  if (slotsStillMove) return { requeueAfterMs: 0 };
  // A roll that waits for the fleet's slot (--max-concurrent-rolls) is woken when a slot frees
  // (controller.ts), so it is looked at on the resync meanwhile, not polled: during a fleet-wide
  // roll the waiting clusters cost what quiet ones do.
  if (waitsForRollSlot(plan, rollSlotsTaken) && reloads.length === 0) return { requeueAfterMs: timing.resyncMs };
  if (plan.roll.state === 'rolling' || plan.roll.state === 'waiting') return { requeueAfterMs: timing.progressMs };
  // A held roll waits for a person (a fixed image, an opt-in): pod and StatefulSet events wake it.
  if (plan.roll.state === 'held') return { requeueAfterMs: timing.failedResyncMs };
  if (reloads.length) return { requeueAfterMs: timing.progressMs };
  if (plan.topology?.phase === 'held') return { requeueAfterMs: timing.failedResyncMs };
  if (status.state === STATE.active && plan.formation.actions.length === 0) return { requeueAfterMs: timing.resyncMs };
  return { requeueAfterMs: timing.progressMs };
}

/**
 * The Events and metrics of what formation did that a person must know: a takeover without the
 * vote (which shard, which replica, which dead primary, why it is held gone), and slots given to an
 * empty primary on a cluster that ran (its data is lost). Returns the slots lost in this pass.
 */
function recordLossAndTakeovers(
  cluster: ValkeyCluster,
  plan: PassPlan,
  executed: Pick<Executed, 'actionErrors'>,
  previousState: string | undefined,
  now: string,
  deps: ClusterReconcilerDeps,
  log: Logger,
) {
  if (plan.now.kind !== 'formation' || executed.actionErrors.length) return [];
  const about = involvedCluster(cluster);
  for (const a of plan.now.actions) {
    if (a.kind !== 'takeover') continue;
    const t = plan.lost?.takeovers.get(a.deadPrimaryId);
    if (!t || t.replica !== a.on) continue;
    const message =
      `shard ${t.shard}: replica ${t.replica} took over from primary ${t.deadPrimaryId} (${t.deadAddress}${t.deadPod ? `, pod ${t.deadPod}` : ''}) ` +
      `without the vote (CLUSTER FAILOVER TAKEOVER): ${plan.lost?.alive ?? 0} of ${plan.lost?.primaries ?? 0} slot-owning primaries answered, not a majority, and ${t.why}`;
    deps.api.events.record(about, 'Warning', EVENT.takeoverWithoutVote, message);
    deps.metrics.takeoversWithoutVote.inc();
    log.warn('takeover without the vote', { shard: t.shard, replica: t.replica, deadPrimary: t.deadPrimaryId, why: t.why });
  }
  const lost = slotsGivenEmpty(plan.now.actions, plan.formation.primaries, previousState);
  for (const l of lost) {
    deps.api.events.record(about, 'Warning', EVENT.dataLost, describeLoss(l, now));
    deps.metrics.slotsLost.inc(countSlots(l.ranges));
    log.warn('slots given to an empty primary: their data is lost', { shard: l.shard, pod: l.pod, slots: countSlots(l.ranges) });
  }
  return lost;
}

/** A Warning Event (aggregated by the recorder) and a log line per foreign pod, every pass it is there. */
function reportForeignPods(cluster: ValkeyCluster, foreign: readonly ForeignPod[], deps: ClusterReconcilerDeps, log: Logger): void {
  if (foreign.length === 0) return;
  const about = involvedCluster(cluster);
  for (const f of foreign) {
    deps.api.events.record(about, 'Warning', EVENT.foreignPod, foreignPodMessage(f));
    log.warn("a pod with the cluster labels is not its StatefulSet's; not dialled", { pod: f.pod, reason: f.reason });
  }
  deps.metrics.reconcileErrors.inc({ kind: 'foreign-pod' }, foreign.length);
}

/**
 * A Warning Event and a log line per node of another cluster in the tables, every pass it is seen:
 * its address and what it claims (cluster/foreign-nodes.ts); formation forgets it in the same pass.
 */
function reportForeignNodes(cluster: ValkeyCluster, foreign: readonly ForeignNodeReport[], deps: ClusterReconcilerDeps, log: Logger): void {
  if (foreign.length === 0) return;
  const about = involvedCluster(cluster);
  for (const f of foreign) {
    deps.api.events.record(about, 'Warning', EVENT.foreignNode, f.message);
    log.warn('a node of another cluster is in the node tables; forgetting it', {
      nodeId: f.node.id,
      address: f.node.address,
      knownBy: f.node.knownBy.map((m) => m.pod),
    });
  }
  deps.metrics.reconcileErrors.inc({ kind: 'foreign-node' }, foreign.length);
}

const condition = (s: ValkeyClusterStatus | undefined, type: string) => s?.conditions?.find((c) => c.type === type);

/** A roll finished when RollInProgress went from True to not; its duration is that condition's age. Metrics only. */
function countFinishedRoll(previous: ValkeyClusterStatus | undefined, now: ValkeyClusterStatus, deps: ClusterReconcilerDeps): void {
  const before = condition(previous, CONDITION.rollInProgress);
  const after = condition(now, CONDITION.rollInProgress);
  if (after?.status === 'True' || before?.status !== 'True') {
    if (after?.reason === REASON.rollInProgress.held && condition(previous, CONDITION.rollHeld)?.status !== 'True')
      deps.metrics.rolls.inc({ outcome: 'held' });
    return;
  }
  if (after?.reason === REASON.rollInProgress.held) return;
  deps.metrics.rolls.inc({ outcome: 'finished' });
  const started = Date.parse(before.lastTransitionTime);
  if (Number.isFinite(started)) deps.metrics.rollSeconds.observe(Math.max(0, (deps.clock.now() - started) / 1000));
}
