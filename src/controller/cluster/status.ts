import type { AutoscalingStatus, NodeStatus, ValkeyClusterStatus } from '../../api/index.js';
import { CONDITION, REASON, STATE } from '../../api/status-names.js';
import { isFailed, isMyself, isPrimary } from './cluster-view.js';
import { kstatusConditions, withTransitions, type DesiredCondition } from './conditions.js';
import type { FormationPlan } from './formation.js';
import { byPosition, isAnswered, isRejected, primaryOffsetOf, type Answered, type NodeObservation, type Rejected } from './observation.js';
import { shareProblems, primaryObservations } from './scaling.js';
import { replicaInSync } from '../../api/contract/replica-sync.js';
import { TOTAL_SLOTS, countSlots } from '../../api/contract/slots.js';
import { expiringSoonCondition, type TlsVerdict } from './tls-secret.js';
import { waitingCondition, type Prerequisite } from './prerequisites.js';
import { rejectionMessage } from './version-gate.js';
import type { SpreadVerdict } from './leader-placement.js';
import type { LostPrimaries } from './lost-primaries.js';
import { lostNodeMessage, type LostNode } from './lost-nodes.js';

/** How a Failed message ends: Failed is terminal, the controller leaves the cluster alone. */
export const FAILED_RECOVERY =
  'Failed is terminal: fix this, then delete and re-create the ValkeyCluster (the controller does not retry a failed creation)';

/**
 * How a Failed message ends when only the TLS Secret is wrong: unlike the model (docs/status.md),
 * such a creation resumes once the Secret is fixed, with no delete: the pods restart on their own
 * and nothing was joined.
 */
export const FAILED_TLS_RECOVERY =
  'Fix the Secret (or the Certificate that issues it): creation resumes by itself once it holds a valid pair, no delete needed';

/** What git declared for the pods: from the StatefulSets' annotations. */
export interface Declared {
  imageRef: string;
  version: string;
}

export interface StatusInput {
  namespace: string;
  generation: number;
  shards: number;
  replicasPerShard: number;
  observations: readonly NodeObservation[];
  plan: FormationPlan;
  /** Formation commands that failed in this pass. */
  actionErrors: readonly string[];
  /** Pods with the cluster's labels that are not its StatefulSets' own (never dialled), one line each. */
  foreignPods?: readonly string[];
  declared?: Declared;
  previous?: ValkeyClusterStatus;
  /** RFC 3339, for condition transitions. */
  now: string;
  /** Day-2 work of this pass (rolls, live settings, ACL loads); absent: no such conditions. */
  day2?: Day2Status;
  /** Slot rebalancing of this pass (controller/reconcile/rebalance-cluster.ts); absent: slots spread as asked, or not looked at. */
  scaling?: ScalingStatus;
  /** A primary away from ordinal 0 that the controller means to move back; absent: every primary is at ordinal 0. */
  failback?: FailbackStatus;
  /** A TLS cluster: the verdict on its Secret this pass (tls-secret.ts); absent: no spec.tls. */
  tls?: TlsVerdict;
  /** spec.autoscaling is set: the autoscaler's decision (cluster/autoscale.ts); absent: no status.autoscaling. */
  autoscaling?: AutoscalingStatus;
  /**
   * Secrets and ConfigMaps the pods need that do not exist (prerequisites.ts), the TLS Secret aside
   * (that one is `tls`'s SecretMissing). While the cluster is being created they are a wait.
   */
  missing?: readonly Prerequisite[];
  /** What Kubernetes' view of the nodes adds (PrimariesSpread, MajorityLost, NodeLost, DataLost); absent: nothing. */
  kube?: KubeStatus;
  /** Each pod's former node ids still listed by a node (foreign-nodes.ts formerNodeIds), by pod. */
  formerNodeIds?: ReadonlyMap<string, readonly string[]>;
}

/** The conditions that come from where the pods run and what was lost. */
export interface KubeStatus {
  /** The Nodes are known: the verdict on the primaries' spread (leader-placement.ts). */
  spread?: SpreadVerdict;
  /** Each shard's chosen pod, where the Nodes are known (a primary there is not away from where it should be). */
  leaders?: ReadonlyMap<number, string>;
  /** The Nodes are known: the lost majority and its takeovers (lost-primaries.ts). */
  lost?: LostPrimaries;
  lostNodes?: readonly LostNode[];
  /** The DataLost condition (data-loss.ts), computed with the previous one and the acknowledgement. */
  dataLost?: DesiredCondition;
}

/** What failing primaries back to ordinal 0 did or waits for in this pass. */
export interface FailbackStatus {
  /** True when a failback was carried out (or tried) in this pass. */
  acted: boolean;
  message: string;
}

/** What rebalancing did or waits for in this pass. */
export interface ScalingStatus {
  /** moving: a batch of slots moved; healing: interrupted slots settled; waiting: for replicas or gossip; held: a shrink that would not fit. */
  phase: 'moving' | 'healing' | 'waiting' | 'held' | 'retiring';
  message: string;
}

/** What the roll and the reloads found in this pass, as status reads it. */
export interface Day2Status {
  /**
   * A roll that is due: `rolling` (under way, or its step is taken in this pass: RollInProgress),
   * `waiting` for its turn (not started: another operation goes first, or the fleet's roll slot),
   * or `held` for a person.
   */
  roll?: { state: 'rolling' | 'waiting' | 'held'; message: string; revision: string };
  /** Live settings or ACLs not yet on every node (being applied, or failing), one line each. */
  reloads: readonly string[];
  /** What the nodes refuse to load and a person must fix (a users.acl ACL LOAD rejects), one line each; also in reloads. */
  refused?: readonly string[];
  /** The live revision every node runs once reloads is empty (for the condition's message). */
  liveRevision?: string;
}

const MAX_REASONS = 3;

function summarize(items: readonly string[]): string {
  const shown = items.slice(0, MAX_REASONS).join('; ');
  return items.length > MAX_REASONS ? `${shown}; and ${items.length - MAX_REASONS} more` : shown;
}

const selfLine = (o: Answered) => o.view.find(isMyself);

function nodeStatus(o: NodeObservation, failedIds: ReadonlySet<string>, former: readonly string[] | undefined): NodeStatus {
  const base = { pod: o.pod, shard: o.shard, ...(o.ip ? { ip: o.ip } : {}), ...(former?.length ? { formerNodeIds: [...former] } : {}) };
  switch (o.state) {
    case 'pending':
      return { ...base, role: 'unknown', health: 'pending' };
    case 'unreachable':
      return { ...base, role: 'unknown', health: 'unreachable' };
    case 'loading':
      return { ...base, role: 'unknown', health: 'loading' };
    case 'rejected':
      return { ...base, role: 'unknown', health: 'failed', ...(o.identity.kind === 'valkey' ? { version: o.identity.version } : {}) };
    case 'answered': {
      const self = selfLine(o);
      return {
        ...base,
        role: self ? (isPrimary(self) ? 'primary' : 'replica') : 'unknown',
        ...(self ? { nodeId: self.id } : {}),
        version: o.version,
        health: self && failedIds.has(self.id) ? 'failed' : 'online',
      };
    }
  }
}

/** Slots some answering node believes are owned, by anyone (dead nodes included). */
function assignedAnywhere(answered: readonly Answered[]): number {
  // The union of the views' ranges, merged in order: every view repeats the same ranges, and
  // counting slot by slot (a Set of slot numbers) cost a pass more than everything else together.
  const ranges: [number, number][] = [];
  for (const o of answered) for (const n of o.view) for (const r of n.slots) ranges.push([r[0], r[1]]);
  ranges.sort((x, y) => x[0] - y[0]);
  let count = 0;
  let end = -1;
  for (const [a, b] of ranges) {
    if (b <= end) continue;
    count += b - Math.max(a, end + 1) + 1;
    end = b;
  }
  return count;
}

/** Whether every shard has its primary serving its slots and exactly the replicas asked for. */
function shapeProblems(input: StatusInput, answered: readonly Answered[]): string[] {
  const problems: string[] = [];
  const served = answered.reduce((n, o) => n + countSlots(selfLine(o)?.slots ?? []), 0);
  if (served !== TOTAL_SLOTS) problems.push(`${served} of ${TOTAL_SLOTS} slots are served`);
  for (let s = 0; s < input.shards; s++) {
    const primaryPod = input.plan.primaries.get(s);
    const primary = answered.find((o) => o.pod === primaryPod);
    const primaryId = primary ? selfLine(primary)?.id : undefined;
    const replicas = answered.filter((o) => o.shard === s && primaryId !== undefined && selfLine(o)?.primaryId === primaryId).length;
    if (replicas !== input.replicasPerShard) problems.push(`shard ${s} has ${replicas} of ${input.replicasPerShard} replicas`);
  }
  // Whole means every replica has its primary's data, not only that it follows it.
  const behind = answered.filter((o) => o.replication?.role === 'replica' && !replicaInSync(o.replication, primaryOffsetOf(o, answered)));
  for (const o of behind) problems.push(`replica ${o.pod} is not in sync with its primary yet`);
  const notOk = answered.filter((o) => o.info.state !== 'ok').map((o) => o.pod);
  if (notOk.length) problems.push(`cluster_state is not ok on ${notOk.join(', ')}`);
  // Gossip is converged when every node sees every slot assigned (cluster_state alone is not
  // enough under cluster-require-full-coverage no).
  const partial = answered.filter((o) => o.info.slotsAssigned !== TOTAL_SLOTS).map((o) => o.pod);
  if (partial.length) problems.push(`not every slot is assigned as seen from ${partial.join(', ')}`);
  return problems;
}

function versionConditions(
  input: StatusInput,
  answered: readonly Answered[],
  rejected: readonly Rejected[],
): [DesiredCondition, DesiredCondition] {
  const g = input.generation;
  const versions = [...new Set(answered.map((o) => o.version))].sort();
  let check: DesiredCondition;
  if (rejected.length) {
    const first = rejected[0] as (typeof rejected)[number];
    check = {
      type: CONDITION.versionCheck,
      status: 'False',
      reason: first.verdict.reason,
      observedGeneration: g,
      message: summarize(rejected.map((r) => rejectionMessage(`${input.namespace}/${r.pod}`, r.verdict.found))),
    };
  } else if (answered.length === 0) {
    check = {
      type: CONDITION.versionCheck,
      status: 'Unknown',
      reason: REASON.versionCheck.noNodeChecked,
      message: 'No pod has answered INFO yet',
      observedGeneration: g,
    };
  } else {
    check = {
      type: CONDITION.versionCheck,
      status: 'True',
      reason: REASON.versionCheck.atLeastFloor,
      observedGeneration: g,
      message: `${answered.length} node(s) checked, running ${versions.join(', ')}`,
    };
  }
  let match: DesiredCondition;
  const declared = input.declared;
  if (!declared || answered.length === 0) {
    match = {
      type: CONDITION.versionMatchesImage,
      status: 'Unknown',
      observedGeneration: g,
      reason: declared ? REASON.versionMatchesImage.noNodeChecked : REASON.versionMatchesImage.noDeclaredVersion,
      message: declared ? 'No pod has answered INFO yet' : 'The StatefulSets carry no image-version annotation',
    };
  } else {
    const differing = answered.filter((o) => o.version !== declared.version);
    match = differing.length
      ? {
          type: CONDITION.versionMatchesImage,
          status: 'False',
          reason: REASON.versionMatchesImage.differs,
          observedGeneration: g,
          message: `ValkeyImage ${declared.imageRef} declares ${declared.version}, but ${summarize(differing.map((o) => `${o.pod} runs ${o.version}`))}`,
        }
      : {
          type: CONDITION.versionMatchesImage,
          status: 'True',
          reason: REASON.versionMatchesImage.matches,
          observedGeneration: g,
          message: `Every node runs ${declared.version}, as ValkeyImage ${declared.imageRef} declares`,
        };
  }
  return [check, match];
}

/**
 * The status one reconcile pass observed. Pure: the same observations (and previous status)
 * give the same status, so an unchanged cluster is never written again.
 */
export function buildStatus(input: StatusInput): ValkeyClusterStatus {
  const { observations, plan, generation: g } = input;
  const answered = observations.filter(isAnswered);
  const rejected = observations.filter(isRejected);
  const failedIds = new Set(answered.flatMap((o) => o.view.filter((n) => !isMyself(n) && isFailed(n)).map((n) => n.id)));
  const nodes = [...observations].sort(byPosition).map((o) => nodeStatus(o, failedIds, input.formerNodeIds?.get(o.pod)));

  const expected = input.shards * (1 + input.replicasPerShard);
  const notReady = observations.flatMap((o) => {
    if (o.state === 'pending') return [`pod ${o.pod} ${o.reason}`];
    if (o.state === 'unreachable') return [`pod ${o.pod} does not answer: ${o.error}`];
    if (o.state === 'loading') return [`pod ${o.pod} is loading its dataset`];
    return [];
  });
  const missing = expected - observations.length;
  if (missing > 0) notReady.push(`${missing} of ${expected} pods do not exist yet`);

  const shape = shapeProblems(input, answered);
  // A new shard's primary with no slots, or a removed shard's still holding some, is formed but not Active.
  const unbalanced = shape.length === 0 ? shareProblems(input.shards, primaryObservations(answered)) : [];
  const formed = shape.length === 0 && plan.actions.length === 0 && plan.waiting.length === 0 && input.actionErrors.length === 0;
  const foreign = input.foreignPods ?? [];
  const healthy =
    formed &&
    unbalanced.length === 0 &&
    notReady.length === 0 &&
    rejected.length === 0 &&
    foreign.length === 0 &&
    nodes.every((n) => n.health === 'online');

  // A cluster that ran (its status said so) is past creation, and later gaps are updates. With no
  // status at all (a controller adopting a cluster) every slot having an owner says the same. While
  // the status says Creating, slots this creation's formation assigned do not: a blocker found now
  // (a pod below the floor that answered late) is still a failed creation.
  const before = input.previous?.state;
  const wasFormed =
    before === STATE.active ||
    before === STATE.updating ||
    before === STATE.invalid ||
    (before === undefined && assignedAnywhere(answered) === TOTAL_SLOTS);
  const day2 = input.day2;
  const day2Busy =
    (day2 !== undefined && (day2.roll !== undefined || day2.reloads.length > 0)) ||
    input.scaling !== undefined ||
    input.failback !== undefined;
  const [versionCheck, versionMatch] = versionConditions(input, answered, rejected);
  // Waiting is not failing: at creation, a Secret or ConfigMap the pods need that does not exist
  // yet (a GitOps sync's order, cert-manager still issuing) is waited for. Once the cluster ran, a
  // deleted TLS Secret is a problem a person must fix (Invalid), as before.
  const tlsMissing = input.tls?.problem?.reason === 'SecretMissing' && !wasFormed;
  const absent: Prerequisite[] = wasFormed
    ? []
    : [
        ...(tlsMissing ? [{ kind: 'Secret' as const, name: secretName(input.tls?.secret ?? ''), neededBy: 'spec.tls.secretRef' }] : []),
        ...(input.missing ?? []),
      ];
  const tlsProblem = tlsMissing ? undefined : input.tls?.problem;
  // What a person must fix: at creation the cluster cannot come up (Failed); once it ran, its pods
  // keep serving what they loaded and fixing it brings the cluster back (Invalid).
  const blockers = [
    ...(tlsProblem ? [tlsProblem.message] : []),
    ...(rejected.length ? [versionCheck.message] : []),
    ...(day2?.refused ?? []),
  ];
  // A creation that failed on its binary stays Failed (the model's rule); one that failed only on
  // its TLS Secret resumes once the Secret is fixed (docs/status.md says why we depart).
  const failedOnVersion = previousCondition(input.previous, CONDITION.versionCheck)?.status === 'False';
  const terminal = before === STATE.failed && (failedOnVersion || blockers.length > 0);
  const state = terminal
    ? STATE.failed
    : blockers.length
      ? wasFormed
        ? STATE.invalid
        : tlsProblem || rejected.length
          ? STATE.failed
          : STATE.creating
      : healthy && !day2Busy && absent.length === 0
        ? STATE.active
        : wasFormed || day2Busy
          ? STATE.updating
          : STATE.creating;
  const waiting = waitingCondition(input.namespace, absent, previousCondition(input.previous, CONDITION.waiting), input.now, g);

  const dataLost = input.kube?.dataLost;
  // Lost data is never reported as healthy: said first, in every state but Failed and Invalid.
  const dataLossNote = dataLost?.status === 'True' ? `DATA LOST (see condition DataLost): ${dataLost.message}. ` : '';
  const reasons = [
    ...(waiting?.status === 'True' ? [waiting.message] : []),
    ...lostMajorityReasons(input.kube?.lost),
    ...(input.kube?.lostNodes ?? []).map(lostNodeMessage),
    ...(input.scaling ? [input.scaling.phase === 'held' ? `scaling held: ${input.scaling.message}` : input.scaling.message] : []),
    ...(day2?.roll ? [rollReason(day2.roll)] : []),
    ...(input.failback ? [input.failback.message] : []),
    ...(day2?.reloads ?? []),
    ...foreign,
    ...input.actionErrors,
    ...notReady,
    ...plan.waiting,
    ...(plan.actions.length ? [`${plan.actions.length} formation step(s) in progress`] : []),
    ...shape,
    ...(input.scaling ? [] : unbalanced),
  ];
  const message =
    state === STATE.failed
      ? blockers.length === 0 && input.previous?.message
        ? input.previous.message
        : `${summarize(blockers)}. ${rejected.length || failedOnVersion ? FAILED_RECOVERY : FAILED_TLS_RECOVERY}`
      : state === STATE.invalid
        ? `${summarize(blockers)}. The pods keep serving what they loaded; once this is fixed the cluster returns to Active`
        : state === STATE.active
          ? `${dataLossNote}${input.shards} shard(s) with ${input.replicasPerShard} replica(s) each serve all ${TOTAL_SLOTS} slots; cluster_state ok`
          : dataLossNote + summarize(reasons);

  const formedCondition: DesiredCondition = formed
    ? {
        type: CONDITION.clusterFormed,
        status: 'True',
        reason: REASON.clusterFormed.formed,
        message: `All ${TOTAL_SLOTS} slots are assigned and every shard has its replicas`,
        observedGeneration: g,
      }
    : {
        type: CONDITION.clusterFormed,
        status: 'False',
        observedGeneration: g,
        reason: plan.foreign?.length
          ? REASON.clusterFormed.foreignNode
          : input.actionErrors.length
            ? REASON.clusterFormed.formationError
            : answered.length === 0
              ? REASON.clusterFormed.waitingForNodes
              : REASON.clusterFormed.forming,
        message: summarize(reasons) || 'Forming',
      };
  const ready: DesiredCondition =
    healthy && blockers.length === 0
      ? {
          type: CONDITION.ready,
          status: 'True',
          reason: REASON.ready.active,
          message: 'The cluster is formed and every node is online',
          observedGeneration: g,
        }
      : { type: CONDITION.ready, status: 'False', reason: state, message, observedGeneration: g };

  return {
    state,
    message,
    observedGeneration: g,
    nodes,
    conditions: withTransitions(
      [
        versionCheck,
        versionMatch,
        formedCondition,
        ready,
        ...kstatusConditions(state, message, g, dataLost?.status === 'True' ? dataLost.message : undefined),
        ...(input.tls ? tlsConditions(input.tls, g) : []),
        ...(waiting ? [waiting] : []),
        ...(day2 ? day2Conditions(day2, g, input.previous?.conditions) : []),
        ...slotMigrationCondition(input.scaling, g, input.previous?.conditions),
        ...failbackCondition(input.failback, g, input.previous?.conditions, awayFromOrdinalZero(input, answered)),
        ...kubeConditions(input.kube, g, input.previous?.conditions),
      ],
      input.previous?.conditions,
      input.now,
    ),
    ...(input.autoscaling ? { autoscaling: input.autoscaling } : {}),
  };
}

const previousCondition = (s: ValkeyClusterStatus | undefined, type: string) => s?.conditions?.find((c) => c.type === type);

/** `name` of a `namespace/name`. */
const secretName = (which: string): string => which.slice(which.indexOf('/') + 1);

/** TLSSecretValid and CertificateExpiringSoon, on every pass of a TLS cluster. */
function tlsConditions(tls: TlsVerdict, g: number): DesiredCondition[] {
  const valid: DesiredCondition = tls.problem
    ? { type: CONDITION.tlsSecretValid, status: 'False', reason: tls.problem.reason, message: tls.problem.message, observedGeneration: g }
    : {
        type: CONDITION.tlsSecretValid,
        status: 'True',
        reason: 'Valid',
        message: `TLS Secret ${tls.secret} holds a CA, a certificate valid now and its key`,
        observedGeneration: g,
      };
  return [valid, { type: CONDITION.certificateExpiringSoon, ...expiringSoonCondition(tls), observedGeneration: g }];
}

/**
 * The day-2 conditions appear once they have something to say (a roll runs or is held, a live change
 * is not everywhere yet) and stay afterwards, back at rest, so the end of a roll is visible too; a
 * cluster that never changed keeps its four conditions.
 */
function day2Conditions(day2: Day2Status, g: number, previous: readonly { type: string }[] | undefined): DesiredCondition[] {
  const all = allDay2Conditions(day2, g);
  const atRest: Record<string, string> = {
    [CONDITION.rollInProgress]: 'False',
    [CONDITION.rollHeld]: 'False',
    [CONDITION.liveConfigApplied]: 'True',
  };
  // A roll waiting for its turn is not in progress, but it has something to say.
  const waiting = (c: DesiredCondition) => c.type === CONDITION.rollInProgress && c.reason === REASON.rollInProgress.waiting;
  return all.filter((c) => c.status !== atRest[c.type] || waiting(c) || previous?.some((p) => p.type === c.type));
}

function allDay2Conditions(day2: Day2Status, g: number): DesiredCondition[] {
  const roll = day2.roll;
  const rolling: DesiredCondition =
    roll?.state === 'rolling'
      ? {
          type: CONDITION.rollInProgress,
          status: 'True',
          reason: REASON.rollInProgress.rolling,
          message: `${roll.message} (to revision ${roll.revision})`,
          observedGeneration: g,
        }
      : roll?.state === 'waiting'
        ? {
            type: CONDITION.rollInProgress,
            status: 'False',
            reason: REASON.rollInProgress.waiting,
            message: `Not started: ${roll.message} (revision ${roll.revision})`,
            observedGeneration: g,
          }
        : {
            type: CONDITION.rollInProgress,
            status: 'False',
            reason: roll ? REASON.rollInProgress.held : REASON.rollInProgress.upToDate,
            message: roll ? 'The roll is held' : "Every pod runs its StatefulSet's update revision",
            observedGeneration: g,
          };
  const held: DesiredCondition =
    roll?.state === 'held'
      ? {
          type: CONDITION.rollHeld,
          status: 'True',
          reason: REASON.rollHeld.held,
          message: `${roll.message} (revision ${roll.revision})`,
          observedGeneration: g,
        }
      : { type: CONDITION.rollHeld, status: 'False', reason: REASON.rollHeld.notHeld, message: 'No roll is held', observedGeneration: g };
  const applied: DesiredCondition = day2.reloads.length
    ? {
        type: CONDITION.liveConfigApplied,
        status: 'False',
        reason: REASON.liveConfigApplied.applying,
        message: summarize(day2.reloads),
        observedGeneration: g,
      }
    : {
        type: CONDITION.liveConfigApplied,
        status: 'True',
        reason: REASON.liveConfigApplied.applied,
        message: `Every node runs the live settings and users.acl of the ConfigMap${day2.liveRevision ? ` (${day2.liveRevision})` : ''}`,
        observedGeneration: g,
      };
  return [rolling, held, applied];
}

/**
 * `SlotMigration` appears once rebalancing has something to say and stays afterwards, at rest
 * (False, Balanced), so the end of a scaling is visible too.
 */
function slotMigrationCondition(
  scaling: ScalingStatus | undefined,
  g: number,
  previous: readonly { type: string }[] | undefined,
): DesiredCondition[] {
  if (!scaling) {
    if (!previous?.some((p) => p.type === CONDITION.slotMigration)) return [];
    return [
      {
        type: CONDITION.slotMigration,
        status: 'False',
        reason: REASON.slotMigration.balanced,
        message: 'Every shard primary holds its share of the slots',
        observedGeneration: g,
      },
    ];
  }
  const reason = {
    moving: REASON.slotMigration.migrating,
    healing: REASON.slotMigration.healing,
    waiting: REASON.slotMigration.waiting,
    held: REASON.slotMigration.held,
    retiring: REASON.slotMigration.retiring,
  }[scaling.phase];
  return [
    {
      type: CONDITION.slotMigration,
      status: scaling.phase === 'held' ? 'False' : 'True',
      reason,
      message: scaling.message,
      observedGeneration: g,
    },
  ];
}

function rollReason(roll: NonNullable<Day2Status['roll']>): string {
  if (roll.state === 'held') return `roll held: ${roll.message}`;
  if (roll.state === 'waiting') return `roll not started: ${roll.message}`;
  return roll.message;
}

/**
 * `PrimaryFailback` appears once a primary is away from ordinal 0 and the controller means to move
 * it back, and stays afterwards, at rest (False, AtOrdinalZero).
 */
function failbackCondition(
  failback: FailbackStatus | undefined,
  g: number,
  previous: readonly { type: string }[] | undefined,
  away: readonly { line: string; chosen: boolean }[],
): DesiredCondition[] {
  if (!failback && away.some((a) => !a.chosen)) {
    // A primary away from ordinal 0 whose ordinal 0 cannot take it back (it does not answer): due, not done.
    return [
      {
        type: CONDITION.primaryFailback,
        status: 'True',
        reason: REASON.primaryFailback.waiting,
        message: away.map((a) => a.line).join('; '),
        observedGeneration: g,
      },
    ];
  }
  if (!failback && away.length) {
    return [
      {
        type: CONDITION.primaryFailback,
        status: 'False',
        reason: REASON.primaryFailback.atChosenPods,
        message: `Every shard's primary is where the controller chose: ${away.map((a) => a.line).join('; ')}`,
        observedGeneration: g,
      },
    ];
  }
  if (!failback) {
    if (!previous?.some((p) => p.type === CONDITION.primaryFailback)) return [];
    return [
      {
        type: CONDITION.primaryFailback,
        status: 'False',
        reason: REASON.primaryFailback.atOrdinalZero,
        message: "Every shard's primary is at ordinal 0",
        observedGeneration: g,
      },
    ];
  }
  return [
    {
      type: CONDITION.primaryFailback,
      status: 'True',
      reason: failback.acted ? REASON.primaryFailback.failingBack : REASON.primaryFailback.waiting,
      message: failback.message,
      observedGeneration: g,
    },
  ];
}

/** Shards whose primary is not at ordinal 0, each with why: chosen for the spread, or ordinal 0 cannot take it back. */
function awayFromOrdinalZero(input: StatusInput, answered: readonly Answered[]): { line: string; chosen: boolean }[] {
  const away: { line: string; chosen: boolean }[] = [];
  for (const [shard, pod] of [...input.plan.primaries].sort(([a], [b]) => a - b)) {
    const primary = answered.find((o) => o.pod === pod);
    if (!primary || primary.ordinal === 0) continue;
    if (input.kube?.leaders?.get(shard) === pod) {
      away.push({ line: `shard ${shard} leads from ${pod}, to keep the primaries spread over nodes and zones`, chosen: true });
      continue;
    }
    const first = input.observations.find((o) => o.shard === shard && o.ordinal === 0);
    const why = !first
      ? 'its ordinal 0 pod does not exist'
      : first.state === 'answered'
        ? `${first.pod} does not replicate it in sync yet`
        : `${first.pod} does not answer`;
    away.push({ line: `shard ${shard}: primary ${pod} is not at ordinal 0: ${why}`, chosen: false });
  }
  return away;
}

function lostMajorityReasons(lost: LostPrimaries | undefined): string[] {
  if (!lost || lost.primaries === 0 || lost.alive * 2 > lost.primaries) return [];
  return [
    ...[...lost.takeovers.values()].map((t) => `shard ${t.shard}: ${t.replica} takes over without the vote (${t.why})`),
    ...lost.refused,
  ];
}

/** A condition that appears once it has something to say and stays, at rest, afterwards. */
function appearing(
  now: DesiredCondition | undefined,
  atRest: DesiredCondition,
  previous: readonly { type: string }[] | undefined,
): DesiredCondition[] {
  if (now) return [now];
  return previous?.some((p) => p.type === atRest.type) ? [atRest] : [];
}

function kubeConditions(kube: KubeStatus | undefined, g: number, previous: readonly { type: string }[] | undefined): DesiredCondition[] {
  if (!kube) return [];
  const out: DesiredCondition[] = [];
  if (kube.spread) {
    const v = kube.spread;
    out.push(
      ...appearing(
        v.holds
          ? undefined
          : {
              type: CONDITION.primariesSpread,
              status: 'False',
              reason: REASON.primariesSpread[reasonKey(v.reason)],
              message: v.message,
              observedGeneration: g,
            },
        {
          type: CONDITION.primariesSpread,
          status: 'True',
          reason: REASON.primariesSpread.spread,
          message: v.message,
          observedGeneration: g,
        },
        previous,
      ),
    );
  }
  const lost = kube.lost;
  const down = lost !== undefined && lost.primaries > 0 && lost.alive * 2 <= lost.primaries;
  out.push(
    ...appearing(
      down && lost
        ? {
            type: CONDITION.majorityLost,
            status: 'True',
            reason:
              lost.refused.length === 0 && lost.takeovers.size > 0
                ? REASON.majorityLost.takingOver
                : REASON.majorityLost.waitingForKubernetes,
            message: `${lost.alive} of ${lost.primaries} slot-owning primaries answer, not a majority, so Valkey cannot vote a failover: ${summarize(lostMajorityReasons(lost))}${
              lost.refused.length
                ? '. If the node is really down, tell Kubernetes (kubectl taint node <node> node.kubernetes.io/out-of-service=nodeshutdown:NoExecute, or kubectl delete node <node>) and the controller promotes the replica'
                : ''
            }`,
            observedGeneration: g,
          }
        : undefined,
      {
        type: CONDITION.majorityLost,
        status: 'False',
        reason: REASON.majorityLost.majorityBack,
        message: 'A majority of the slot-owning primaries answer',
        observedGeneration: g,
      },
      previous,
    ),
  );
  const nodes = kube.lostNodes ?? [];
  out.push(
    ...appearing(
      nodes.length
        ? {
            type: CONDITION.nodeLost,
            status: 'True',
            reason: REASON.nodeLost.podsOnLostNode,
            message: nodes.map(lostNodeMessage).join('; '),
            observedGeneration: g,
          }
        : undefined,
      {
        type: CONDITION.nodeLost,
        status: 'False',
        reason: REASON.nodeLost.noLostNode,
        message: 'No pod of the cluster is on a lost node',
        observedGeneration: g,
      },
      previous,
    ),
  );
  if (kube.dataLost) out.push(kube.dataLost);
  return out;
}

const reasonKey = (r: 'TooFewShards' | 'TooFewNodes' | 'TooFewZones') =>
  (({ TooFewShards: 'tooFewShards', TooFewNodes: 'tooFewNodes', TooFewZones: 'tooFewZones' }) as const)[r];
