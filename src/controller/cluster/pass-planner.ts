import { TOTAL_SLOTS } from '../../api/contract/slots.js';
import type { AutoscalingSpec } from '../../api/autoscaling.js';
import { planAutoscale, type AutoscaleFacts, type AutoscaleOutcome, type AutoscaleRecord } from './autoscale.js';
import { planFailback, type FailbackDecision } from './failback.js';
import { planFormation, type FormationAction, type FormationPlan } from './formation.js';
import { leaving, type KubeFacts } from './kube-facts.js';
import { planLeaders, type LeaderCandidate, type LeaderPlan } from './leader-placement.js';
import { judgeLostPrimaries, type LastSight, type LostPrimaries } from './lost-primaries.js';
import { isMyself, isPrimary } from './cluster-view.js';
import { everyPodObserved, isAnswered, type Answered, type NodeObservation, type PodPlace } from './observation.js';
import type { ClusterIdentity, OwnNodeHistory } from './foreign-nodes.js';
import { planDrainHandover } from './drain-handover.js';
import { planRebalance, shrinkWouldNotFit, type PrimaryObservation, type RebalanceDecision, type RebalanceOptions } from './rebalance.js';
import { planRetirement, type RetireDecision } from './retire.js';
import { planRoll, rollUnderWay, type RollShard, type RollStep } from './roll.js';
import { shareProblems } from './scaling.js';

/**
 * Which operation acts in this pass, and why every other one that is due waits. Pure: it decides
 * from what this pass observed (the nodes, the pods, the StatefulSets, the spec), never from the
 * status an earlier pass wrote, so a restarted controller, or two operations due at once, decide
 * the same way.
 *
 * Priority, first that can act takes the pass:
 *   1. stability: formation (forget departed nodes, meet, assign unowned slots, attach replicas to
 *      restore replica counts, take over a dead primary's slots). While formation acts or waits
 *      for a pod, nothing below acts.
 *   2. topology: settle slots an interrupted migration left marked; then a roll already under way
 *      finishes (see below); then move slots as `shards` asks (adding shards, draining removed
 *      ones), or hold a shrink that would not fit; then retire the drained shards.
 *   3. updates: the roll. Live settings, users.acl and TLS reloads are not in this order: they
 *      touch no pod and no slot, so they run in every pass on every node that answers, beside the
 *      one operation (a live change during a roll or a migration is not delayed).
 *   4. cleanup: fail primaries back to ordinal 0.
 *   5. autoscaling (cluster/autoscale.ts): decided last, and only when the cluster is whole and
 *      nothing above acts or waits. It acts on nothing: its decision goes to status and an Event,
 *      and git carries it out (contributing/autoscaling-design.md). A shrink it proposes must pass the same
 *      memory check as a shrink under way.
 *
 * Rules for the pairs that can conflict:
 *   - A roll and a migration never run at once. A roll under way (its first shard to roll already
 *     has a pod of the new revision, or an earlier shard was rolled) finishes before slots move; a
 *     roll that has not started waits until the slots are spread as `shards` asks and no removed
 *     shard is left to retire. One merge that changes the image and `shards` therefore moves the
 *     slots first, then rolls.
 *   - Healing an interrupted migration goes before everything but formation, a roll under way
 *     included: marked slots answer ASK and must be settled before a pod of theirs is evicted.
 *   - A roll is "in progress" only once it is under way or takes its step in this pass. A roll that
 *     waits for its turn (formation, topology, a whole cluster before its first step, or the fleet's
 *     roll slot) is not in progress and does not hold the fleet's roll slot (--max-concurrent-rolls).
 *   - A held roll (a bad image, a shard without replicas) waits for a person and blocks nothing
 *     but the failback: slots still move.
 *   - Failback waits while a roll is due (a roll moves primaries itself, then they fail back) and
 *     while any topology operation is due.
 */

/** Everything the pass planner reads: this pass's facts only. */
export interface PassFacts {
  /** Whose nodes these are: a node of another cluster in the tables is forgotten (foreign-nodes.ts). */
  identity?: ClusterIdentity;
  /**
   * The node ids this cluster's proven pods had, as status records them (foreign-nodes.ts): the one
   * fact a pass cannot see for itself, since Valkey never gossips a dead node's hostname.
   */
  ownNodeHistory?: OwnNodeHistory;
  shards: number;
  replicasPerShard: number;
  observations: readonly NodeObservation[];
  /**
   * Each answering shard primary (cluster/scaling.ts primaryObservations), with the key counts of
   * marked slots and, during a shrink, the memory figures the observer read for them.
   */
  primaries: readonly PrimaryObservation[];
  /** The smallest non-zero maxmemory of the kept primaries, read during a shrink. */
  maxmemoryBytes?: number;
  rebalance?: RebalanceOptions;
  /** The retirement's facts; absent: drained shards are kept (no one may delete them). */
  retire?: {
    statefulSetShards: readonly number[];
    renderedShards: readonly { shard: number; shards: number }[];
    pods: readonly PodPlace[];
    /** Keys each removed shard's pod holds (`INFO keyspace`); read only once the slots are balanced. */
    keys: ReadonlyMap<string, number>;
  };
  roll: readonly RollShard[];
  /** Whether the fleet has a roll slot free for this cluster (--max-concurrent-rolls, other clusters only). */
  rollSlotFree: boolean;
  /** What keeps any pod from restarting, apart from formation (a TLS Secret with a problem): the roll waits. */
  rollProblems?: readonly string[];
  /** Why the primaries' key counts or memory could not be read in this pass: topology waits. */
  topologyUnreadable?: string;
  /**
   * What Kubernetes says about where the pods run (kube-facts.ts); absent: nothing is decided from
   * it (each shard is led from ordinal 0, a cluster without a majority waits for a person).
   */
  kube?: KubeFacts;
  /** Each replica's last sight (lost-primaries.ts), kept by this process. */
  lastSight?: ReadonlyMap<string, LastSight>;
  /** spec.autoscaling is set: the window and the autoscaler's own record (PassMemory). */
  autoscale?: {
    spec: AutoscalingSpec;
    window: AutoscaleFacts['window'];
    /** Each pod's memory in its latest sample, for the shrink check of a scale-in. */
    memory: ReadonlyMap<string, { usedBytes: number; keyBytes: number; maxmemoryBytes: number }>;
    record?: AutoscaleRecord;
    nowMs: number;
  };
}

export type OperationName = 'formation' | 'heal' | 'move' | 'retire' | 'roll' | 'failback';

/** The one operation this pass carries out. */
export type Operation =
  | { kind: 'none' }
  | { kind: 'formation'; actions: FormationAction[] }
  | Extract<RebalanceDecision, { kind: 'heal' | 'move' }>
  | Extract<RetireDecision, { kind: 'retire' }>
  | { kind: 'roll'; step: Extract<RollStep, { kind: 'evict' | 'failover' }>; revision?: string }
  | Extract<FailbackDecision, { kind: 'failover' }>;

/** A due operation that does not act in this pass. */
export interface Waiting {
  operation: OperationName;
  reason: string;
}

/** The roll as status reads it. */
export type RollState = { state: 'none' } | { state: 'rolling' | 'waiting' | 'held'; message: string; step: RollStep; revision: string };

/** The slots as status reads it (SlotMigration), when topology has something to say. */
export interface TopologyState {
  phase: 'moving' | 'healing' | 'waiting' | 'held' | 'retiring';
  message: string;
}

export interface PassPlan {
  formation: FormationPlan;
  now: Operation;
  waiting: Waiting[];
  roll: RollState;
  topology?: TopologyState;
  /** Why a primary away from ordinal 0 is not failed back in this pass; absent when none waits or it acts now. */
  failbackWaiting?: string;
  /** Every shard primary holds its share of the slots (a removed shard may still wait to be retired). */
  slotsBalanced: boolean;
  /** spec.autoscaling is set: what the autoscaler decided, and whether the cluster was steady (its window is kept only then). */
  autoscale?: AutoscaleOutcome & { steady: boolean };
  /** The Nodes are known: which pod leads each shard, and whether no node or zone holds half the primaries. */
  leaders?: LeaderPlan;
  /** Kubernetes' facts are known (Nodes or not): the slot-owning primaries that answer, and the takeovers without the vote. */
  lost?: LostPrimaries;
}

/** Each shard's primary and the pods that follow it, where Kubernetes says they run. */
export function leaderCandidates(shards: number, answered: readonly Answered[], kube: KubeFacts): LeaderCandidate[] {
  const nodes = kube.nodes;
  if (!nodes) return [];
  const out: LeaderCandidate[] = [];
  for (let s = 0; s < shards; s++) {
    const inShard = answered.filter((o) => o.shard === s);
    const primary = inShard.find((o) => {
      const self = o.view.find(isMyself);
      return self !== undefined && isPrimary(self) && self.slots.length > 0;
    });
    const primaryId = primary?.view.find(isMyself)?.id;
    if (!primary || !primaryId) continue;
    const shard: LeaderCandidate[] = [];
    for (const o of inShard) {
      if (o !== primary && o.view.find(isMyself)?.primaryId !== primaryId) continue;
      const node = kube.pods.get(o.pod)?.node;
      const zone = node ? nodes.get(node)?.zone : undefined;
      if (node) shard.push({ pod: o.pod, shard: s, ordinal: o.ordinal, node, ...(zone ? { zone } : {}), primary: o === primary });
    }
    // A pod on a cordoned Node, or being evicted, is about to stop: it leads only if no pod of its shard stays.
    const staying = shard.filter((c) => leaving(kube, c.pod) === undefined);
    out.push(...(staying.length ? staying : shard));
  }
  return out;
}

/** What keeps the cluster from being whole apart from its pods: the roll waits for these. */
function formationProblems(plan: FormationPlan, observations: readonly NodeObservation[]): string[] {
  return [
    ...(plan.actions.length ? [`${plan.actions.length} formation step(s) in progress`] : []),
    ...plan.waiting,
    ...observations
      .filter(isAnswered)
      .filter((m) => m.info.state !== 'ok' || m.info.slotsAssigned !== TOTAL_SLOTS)
      .map((m) => `cluster_state is not ok on ${m.pod}`),
  ];
}

/** The topology operation due, if any: what the rebalancer and, once balanced, the retirement say. */
function planTopology(f: PassFacts): (
  | { kind: 'act'; op: Operation; state: TopologyState }
  | { kind: 'wait'; state: TopologyState }
  | { kind: 'none' }
) & {
  balanced?: boolean;
} {
  if (f.topologyUnreadable) return { kind: 'wait', state: { phase: 'waiting', message: f.topologyUnreadable } };
  const decision = planRebalance({
    shards: f.shards,
    replicasPerShard: f.replicasPerShard,
    primaries: f.primaries,
    ...(f.maxmemoryBytes ? { maxmemoryBytes: f.maxmemoryBytes } : {}),
    ...(f.rebalance ? { options: f.rebalance } : {}),
  });
  switch (decision.kind) {
    case 'heal':
      return {
        kind: 'act',
        op: decision,
        state: { phase: 'healing', message: `settling ${decision.repairs.length} slot(s) an interrupted migration left marked` },
      };
    case 'move':
      return { kind: 'act', op: decision, state: { phase: 'moving', message: decision.summary } };
    case 'hold':
      return { kind: 'wait', state: { phase: 'held', message: decision.reason } };
    case 'wait':
      // A cluster still settling (cluster_state, gossip) with its slots already spread as asked
      // has nothing to scale: formation's own status says why it is not Active.
      if (shareProblems(f.shards, f.primaries).length === 0) return { kind: 'none' };
      return { kind: 'wait', state: { phase: 'waiting', message: decision.reason } };
    case 'balanced':
      break;
  }
  if (!f.retire) return { kind: 'none', balanced: true };
  const retirement = planRetirement({
    shards: f.shards,
    statefulSetShards: f.retire.statefulSetShards,
    renderedShards: f.retire.renderedShards,
    pods: f.retire.pods,
    answered: f.observations.filter(isAnswered),
    keys: f.retire.keys,
  });
  if (retirement.kind === 'none') return { kind: 'none', balanced: true };
  if (retirement.kind === 'wait') return { kind: 'wait', balanced: true, state: { phase: 'retiring', message: retirement.reason } };
  return {
    kind: 'act',
    balanced: true,
    op: retirement,
    state: { phase: 'retiring', message: `retiring shard(s) ${retirement.shards.join(', ')}` },
  };
}

const rollRevision = (shards: readonly RollShard[], step: RollStep): string =>
  (step.kind === 'none' ? undefined : shards.find((s) => s.shard === step.progress.shard)?.updateRevision) ?? 'unknown';

/** The topology operation a state is about. */
const topologyOperation = (state: TopologyState): OperationName =>
  state.phase === 'retiring' ? 'retire' : state.phase === 'healing' ? 'heal' : 'move';

/** "once <this> is done", for what keeps the failback waiting. */
const DONE: Record<Exclude<Operation['kind'], 'none' | 'failover'>, string> = {
  formation: 'formation has no step left',
  heal: 'the slots an interrupted migration left marked are settled',
  move: 'the slots are spread as shards asks',
  retire: 'the drained shards are retired',
  roll: 'the roll is finished',
};

export function planPass(f: PassFacts): PassPlan {
  const answered = f.observations.filter(isAnswered);
  const allPodsObserved = everyPodObserved(f.observations);
  const lost = f.kube ? judgeLostPrimaries({ observations: f.observations, kube: f.kube, lastSight: f.lastSight ?? new Map() }) : undefined;
  const formation = planFormation({
    shards: f.shards,
    members: answered,
    allPodsObserved,
    ...(lost?.takeovers.size ? { takeovers: lost.takeovers } : {}),
    ...(f.identity ? { identity: f.identity } : {}),
    ...(f.ownNodeHistory ? { history: f.ownNodeHistory } : {}),
  });
  const formationBusy = formation.actions.length > 0 || formation.waiting.length > 0 || !allPodsObserved;
  const step = planRoll({
    shards: f.roll,
    clusterProblems: [...(f.rollProblems ?? []), ...formationProblems(formation, f.observations)],
    mayStart: f.rollSlotFree,
  });
  const underWay = rollUnderWay(f.roll);
  const revision = rollRevision(f.roll, step);
  const rollActs = step.kind === 'evict' || step.kind === 'failover';
  const topology: ReturnType<typeof planTopology> = formationBusy ? { kind: 'none' } : planTopology(f);
  const heal = topology.kind === 'act' && topology.op.kind === 'heal';
  // A primary on a cordoned Node moves before its eviction, even while formation waits for a pod
  // (a drain replaces pods: formation is rarely idle then); never while formation has steps to take.
  const leaders = f.kube?.nodes ? planLeaders(leaderCandidates(f.shards, answered, f.kube)) : undefined;
  const handover = f.kube && leaders ? planDrainHandover(f.shards, answered, f.kube, leaders) : ({ kind: 'none' } as const);

  // Who has the turn, in priority order; what keeps the roll from acting when it is not the roll.
  let now: Operation = { kind: 'none' };
  let rollBlocker: string | undefined;
  let topologyState = topology.kind === 'none' ? undefined : topology.state;
  if (formation.actions.length > 0) {
    now = { kind: 'formation', actions: formation.actions };
    rollBlocker = 'formation steps come first';
  } else if (topology.kind === 'act' && heal) {
    now = topology.op;
    rollBlocker = 'slots an interrupted migration left marked are settled first';
  } else if (handover.kind === 'failover') {
    now = handover;
    rollBlocker = `a primary whose pod is leaving hands its shard over first (${handover.leaving})`;
  } else if (underWay && step.kind !== 'held') {
    if (rollActs) now = { kind: 'roll', step, revision };
    if (topologyState)
      topologyState = { phase: 'waiting', message: `slots move once the roll under way is finished (${topologyState.message})` };
  } else if (topology.kind !== 'none') {
    if (topology.kind === 'act') now = topology.op;
    rollBlocker = `the roll starts once the slots are spread as shards asks (${topology.state.message})`;
  } else if (rollActs) now = { kind: 'roll', step, revision };

  const roll = rollStateOf(step, underWay, now.kind === 'roll', rollBlocker, revision);

  // Cleanup, once nothing above is due: a primary away from ordinal 0 goes back.
  const failback = formationBusy ? ({ kind: 'none' } as const) : planFailback(f.shards, answered, leaders?.leaders);
  let failbackWaiting: string | undefined = handover.kind === 'wait' ? handover.reason : undefined;
  if (failback.kind !== 'none' && handover.kind !== 'failover') {
    const blocker =
      now.kind !== 'none' && now.kind !== 'failover'
        ? DONE[now.kind]
        : topology.kind !== 'none'
          ? topology.state.phase === 'retiring'
            ? DONE.retire
            : DONE.move
          : step.kind !== 'none'
            ? `${DONE.roll} (it moves primaries itself)`
            : undefined;
    if (blocker) failbackWaiting = `primaries fail back to ${leaders ? 'the pods chosen to lead' : 'ordinal 0'} once ${blocker}`;
    else if (failback.kind === 'failover') now = failback;
    else failbackWaiting = failback.reason;
  }

  const waiting: Waiting[] = [];
  if (formation.actions.length === 0 && formation.waiting.length > 0)
    waiting.push({ operation: 'formation', reason: formation.waiting.join('; ') });
  if (topologyState && (topology.kind !== 'act' || now !== topology.op))
    waiting.push({
      operation: topologyOperation(topology.kind === 'none' ? topologyState : topology.state),
      reason: topologyState.message,
    });
  if (roll.state !== 'none' && now.kind !== 'roll') waiting.push({ operation: 'roll', reason: roll.message });
  if (failbackWaiting) waiting.push({ operation: 'failback', reason: failbackWaiting });

  const slotsBalanced = topology.balanced === true;
  const autoscale = f.autoscale ? autoscaleLast(f, f.autoscale, { formation, now, waiting, slotsBalanced }) : undefined;

  return {
    formation,
    now,
    waiting,
    roll,
    slotsBalanced,
    ...(autoscale ? { autoscale } : {}),
    ...(topologyState ? { topology: topologyState } : {}),
    ...(failbackWaiting ? { failbackWaiting } : {}),
    ...(leaders && !formationBusy ? { leaders } : {}),
    ...(lost ? { lost } : {}),
  };
}

/**
 * The roll as status shows it. "rolling" (RollInProgress True, the fleet's slot held) only while it
 * is under way or acts now; a roll not started that waits for its turn is "waiting".
 */
function rollStateOf(step: RollStep, underWay: boolean, acts: boolean, blocker: string | undefined, revision: string): RollState {
  if (step.kind === 'none') return { state: 'none' };
  if (step.kind === 'held') return { state: 'held', message: step.reason, step, revision };
  const message = blocker ?? (step.kind === 'wait' ? step.reason : '');
  return { state: acts || underWay ? 'rolling' : 'waiting', message, step, revision };
}

/** Why the autoscaler may not decide in this pass: the first thing that keeps the cluster from being steady. */
function unsteadiness(f: PassFacts, p: Pick<PassPlan, 'formation' | 'now' | 'waiting' | 'slotsBalanced'>): string | undefined {
  if (p.now.kind !== 'none') return `${p.now.kind} acts`;
  const w = p.waiting[0];
  if (w) return `${w.operation} is due (${w.reason})`;
  const problem = formationProblems(p.formation, f.observations)[0];
  if (problem) return problem;
  if (!f.observations.every(isAnswered)) return 'not every node answers';
  if (!p.slotsBalanced) return 'the slots are not spread as shards asks';
  const short = f.primaries.find((x) => x.shard < f.shards && x.replicas < f.replicasPerShard);
  if (short) return `shard ${short.shard} has ${short.replicas} of ${f.replicasPerShard} replicas`;
  if (f.primaries.filter((x) => x.shard < f.shards).length !== f.shards) return 'not every shard has a primary that answers';
  return undefined;
}

/** The autoscaler's turn, last: a steady cluster only, and a scale-in only if the shrink would fit. */
function autoscaleLast(
  f: PassFacts,
  a: NonNullable<PassFacts['autoscale']>,
  p: Pick<PassPlan, 'formation' | 'now' | 'waiting' | 'slotsBalanced'>,
): AutoscaleOutcome & { steady: boolean } {
  const unsteady = unsteadiness(f, p);
  const target = f.shards - 1;
  const primaries = f.primaries.map((x) => {
    const m = a.memory.get(x.pod);
    return m ? { ...x, usedMemoryBytes: m.usedBytes, keyMemoryBytes: m.keyBytes } : x;
  });
  const maxima = f.primaries.filter((x) => x.shard < target).flatMap((x) => a.memory.get(x.pod)?.maxmemoryBytes || []);
  const hold =
    target >= 1 && !unsteady
      ? shrinkWouldNotFit({
          shards: target,
          replicasPerShard: f.replicasPerShard,
          primaries,
          ...(maxima.length ? { maxmemoryBytes: Math.min(...maxima) } : {}),
        })
      : undefined;
  const outcome = planAutoscale({
    shards: f.shards,
    spec: a.spec,
    window: a.window,
    nowMs: a.nowMs,
    ...(unsteady ? { unsteady } : {}),
    ...(hold ? { scaleInHold: hold } : {}),
    ...(a.record ? { record: a.record } : {}),
  });
  return { ...outcome, steady: unsteady === undefined };
}
