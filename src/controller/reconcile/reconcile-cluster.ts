import { ANNOTATIONS, podFqdn, valkeyCluster, valkeyClusterStatus, type ValkeyCluster, type ValkeyClusterStatus } from '../../api/index.js';
import { planFormation } from '../cluster/formation.js';
import { isAnswered, type Answered, type Member, type NodeObservation, type PodPlace } from '../cluster/observation.js';
import { primaryObservations, shareProblems } from '../cluster/scaling.js';
import { buildStatus, STATE, type Declared } from '../cluster/status.js';
import { judgeTlsSecret, type SecretFacts, type TlsVerdict } from '../cluster/tls-secret.js';
import { isApiError } from '../kube/client.js';
import { readSecretFacts } from '../valkey/certificate.js';
import type { VersionPolicy } from '../cluster/version-gate.js';
import type { ApiObject, Pod, Secret, StatefulSet } from '../kube/types.js';
import { rfc3339, type Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import { mapLimit } from '../runtime/map-limit.js';
import type { ControllerMetrics } from '../runtime/metrics.js';
import type { WorkResult } from '../runtime/work-queue.js';
import { describeAction, executeActions } from '../valkey/execute-plan.js';
import type { NodeSession, OpenSession } from '../valkey/node-session.js';
import { observeNode, podPlace, type EndpointOf } from '../valkey/observe-node.js';
import type { TlsOptions } from '../valkey/resp-connection.js';
import { runDay2, type Day2Deps } from './day2.js';
import { rebalanceCluster, type RebalanceDeps } from './rebalance-cluster.js';
import { retireShards, type RetireDeps } from './retire-shards.js';
import { failoverAndConfirm } from './roll-cluster.js';
import { planFailback } from '../cluster/failback.js';
import { involvedCluster, type InvolvedObject } from '../kube/event-recorder.js';
import type { ScalingStatus } from '../cluster/status.js';
import { statusEquals } from './status-equals.js';
import { TOTAL_SLOTS } from '../../api/contract/slots.js';
import { compareStrings } from '../../api/order.js';
import { foreignPodMessage, provePodOwnership, type ForeignPod } from '../cluster/pod-ownership.js';

export interface ReconcileTiming {
  /** Look again this soon while a cluster is forming or healing. */
  progressMs: number;
  /** Re-check an Active cluster this often. */
  resyncMs: number;
  /** Re-check a Failed cluster this often (it needs a new image, so there is no hurry). */
  failedResyncMs: number;
}

export interface ClusterReconcilerDeps
  extends Omit<Day2Deps, 'clock' | 'log' | 'metrics'>,
    Pick<RebalanceDeps, 'scalingTotals' | 'batchSlots' | 'classicFallback' | 'slotMigration'> {
  cluster(key: string): ApiObject | undefined;
  pods(namespace: string, cluster: string): Pod[];
  statefulSets(namespace: string, cluster: string): StatefulSet[];
  readSecret(namespace: string, name: string): Promise<Secret>;
  patchStatus(namespace: string, name: string, status: ValkeyClusterStatus): Promise<void>;
  open: OpenSession;
  policy: VersionPolicy;
  endpointOf: EndpointOf;
  clusterDomain: string;
  clock: Clock;
  log: Logger;
  metrics: ControllerMetrics;
  timing: ReconcileTiming;
  /** Deletes a retired shard's StatefulSet and PDB (shards in); absent: drained shards are kept. */
  deleteShard?: RetireDeps['deleteShard'];
}

/** Pods of one cluster asked at once; each is bounded by the node timeouts. */
const NODES_IN_FLIGHT = 32;

function declaredVersion(sets: readonly StatefulSet[]): Declared | undefined {
  for (const s of [...sets].sort((a, b) => compareStrings(a.metadata.name, b.metadata.name))) {
    const version = s.metadata.annotations?.[ANNOTATIONS.imageVersion];
    if (version) return { version, imageRef: s.metadata.annotations?.[ANNOTATIONS.imageRef] ?? '(unknown)' };
  }
  return undefined;
}

const decode = (b64: string | undefined): string | undefined =>
  b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');

/**
 * The cluster's TLS Secret, judged (tls-secret.ts), and the TLS settings per pod when its CA can be
 * read: verified against its CA, its cert presented as our client cert. A Secret with a problem but
 * a CA (an expired or mismatched pair) still lets the controller see the pods, which keep serving
 * the pair they loaded.
 */
async function tlsSettings(
  cluster: ValkeyCluster,
  deps: ClusterReconcilerDeps,
): Promise<{ verdict: TlsVerdict; options?: (pod: string) => TlsOptions; certificate?: string }> {
  const namespace = cluster.metadata.namespace as string;
  const secretName = cluster.spec.tls?.secretRef as string;
  const which = `${namespace}/${secretName}`;
  let secret: Secret | undefined;
  let facts: SecretFacts;
  try {
    secret = await deps.readSecret(namespace, secretName);
    facts = readSecretFacts(secret.data);
  } catch (e) {
    facts = isApiError(e, 404) ? { kind: 'absent' } : { kind: 'denied', detail: e instanceof Error ? e.message : String(e) };
  }
  const verdict = judgeTlsSecret(which, facts, deps.clock.now());
  const ca = decode(secret?.data?.['ca.crt']);
  if (!ca) return { verdict };
  const cert = decode(secret?.data?.['tls.crt']);
  const key = decode(secret?.data?.['tls.key']);
  const name = cluster.metadata.name;
  return {
    verdict,
    options: (pod) => ({ ca, ...(cert && key ? { cert, key } : {}), servername: podFqdn(pod, name, namespace, deps.clusterDomain) }),
    ...(cert && !verdict.problem ? { certificate: cert } : {}),
  };
}

function versionsOf(observations: readonly NodeObservation[]): string[] {
  return observations.map((o) => {
    if (o.state === 'answered') return o.version;
    if (o.state === 'rejected') return o.identity.kind === 'valkey' ? o.identity.version : 'not-valkey';
    return 'unknown';
  });
}

/**
 * One pass over one ValkeyCluster: ask every pod for its facts (in parallel, each bounded by the node
 * timeouts), gate on the running version, plan and run the formation steps, and write status
 * if, and only if, it changed.
 */
export async function reconcileCluster(key: string, deps: ClusterReconcilerDeps): Promise<WorkResult & { rolling?: boolean }> {
  const raw = deps.cluster(key);
  if (!raw) {
    deps.metrics.setClusterVersions(key, undefined);
    return {};
  }
  const parsed = valkeyCluster().safeParse(raw);
  if (!parsed.success) {
    deps.log.warn('skipping a ValkeyCluster that does not match the schema', { cluster: key, error: parsed.error.message });
    return {};
  }
  const cluster = parsed.data;
  const namespace = cluster.metadata.namespace as string;
  const name = cluster.metadata.name;
  const log = deps.log.child({ cluster: key });
  const previous = cluster.status === undefined ? undefined : valkeyClusterStatus().safeParse(cluster.status).data;

  let open = deps.open;
  let tls: ((pod: string) => TlsOptions) | undefined;
  let certificate: string | undefined;
  let tlsVerdict: TlsVerdict | undefined;
  if (cluster.spec.tls) {
    const settings = await tlsSettings(cluster, deps);
    tlsVerdict = settings.verdict;
    tls = settings.options;
    certificate = settings.certificate;
    if (!tls) {
      const message = `the controller cannot verify the nodes: ${tlsVerdict.problem?.message ?? 'no ca.crt'}`;
      open = () => Promise.reject(new Error(message));
    }
  }

  // One read of the shard StatefulSets per pass: which exist, the shard count each was rendered
  // for, and the UIDs that prove which pods are theirs.
  const shardSets = deps.statefulSets(namespace, name);
  const renderedShards = renderedShardCounts(shardSets, name);
  const statefulSetShards = renderedShards.map((r) => r.shard);
  // A retired shard's pods (their StatefulSet deleted, shard at or above spec.shards) are on their
  // way out: formation must not meet them again after they were forgotten.
  const retired = (shard: number): boolean => shard >= cluster.spec.shards && !statefulSetShards.includes(shard);
  // Only the StatefulSets' own pods are dialled (the first words to a pod are the credential);
  // any other pod with the cluster's labels is named in status and an Event, and never talked to.
  const ownership = provePodOwnership(name, deps.pods(namespace, name), shardSets);
  reportForeignPods(cluster, ownership.foreign, deps, log);
  const ownedPods = ownership.owned.map((o) => o.pod);
  const pods = ownedPods.flatMap((pod) => {
    const place = podPlace(pod);
    return place && !retired(place.shard) ? [{ pod, place }] : [];
  });
  const context = { open, policy: deps.policy, endpointOf: deps.endpointOf, interner: new Map(), ...(tls ? { tls } : {}) };
  const observed = await mapLimit(pods, NODES_IN_FLIGHT, ({ pod, place }) => observeNode(pod, place, context));
  const sessions = new Map<string, NodeSession>();
  for (const o of observed) if (o.session) sessions.set(o.observation.pod, o.session);
  const observations = observed.map((o) => o.observation);

  try {
    const members: Member[] = observations.filter(isAnswered);
    const allPodsObserved = observations.every((o) => o.state !== 'unreachable' && o.state !== 'loading');
    const plan = planFormation({ shards: cluster.spec.shards, members, allPodsObserved });
    const outcomes = await executeActions(plan.actions, sessions);
    for (const o of outcomes) {
      deps.metrics.formationActions.inc({ action: o.action.kind, result: o.error ? 'error' : 'ok' });
      if (o.error) log.warn('formation step failed', { step: describeAction(o.action), error: o.error });
      else log.info('formation step', { step: describeAction(o.action) });
    }
    const actionErrors = outcomes.flatMap((o) => (o.error ? [o.error] : []));
    if (actionErrors.length) deps.metrics.reconcileErrors.inc({ kind: 'formation' }, actionErrors.length);
    const unreachable = observations.filter((o) => o.state === 'unreachable').length;
    if (unreachable) deps.metrics.reconcileErrors.inc({ kind: 'node' }, unreachable);

    const scaling = await rebalanceStep({
      key,
      cluster,
      answered: observations.filter(isAnswered),
      places: pods.map((p) => p.place),
      statefulSetShards,
      renderedShards,
      formationIdle: plan.actions.length === 0 && plan.waiting.length === 0 && actionErrors.length === 0 && allPodsObserved,
      rolling: previous?.conditions?.some((c) => c.type === 'RollInProgress' && c.status === 'True') ?? false,
      rollHeld: previous?.conditions?.some((c) => c.type === 'RollHeld' && c.status === 'True') ?? false,
      sessions,
      deps,
      log,
    });
    const clusterProblems = [
      // A restarted pod would not start with a Secret that has a problem: no roll until it is fixed.
      ...(tlsVerdict?.problem ? [tlsVerdict.problem.message] : []),
      ...(scaling ? [`slot rebalancing: ${scaling.message}`] : []),
      ...actionErrors,
      ...(plan.actions.length ? [`${plan.actions.length} formation step(s) in progress`] : []),
      ...plan.waiting,
      ...observations
        .filter(isAnswered)
        .filter((m) => m.info.state !== 'ok' || m.info.slotsAssigned !== TOTAL_SLOTS)
        .map((m) => `cluster_state is not ok on ${m.pod}`),
    ];
    const day2 = await runDay2(
      {
        key,
        cluster,
        statefulSets: deps.statefulSets(namespace, name),
        pods: ownedPods,
        observations,
        sessions,
        clusterProblems,
        ...(tls && certificate ? { tls: { certificate, reopen: reopener(pods, open, deps, tls) } } : {}),
      },
      deps,
    );
    const status = buildStatus({
      day2,
      namespace,
      generation: raw.metadata.generation ?? 0,
      shards: cluster.spec.shards,
      replicasPerShard: cluster.spec.replicasPerShard,
      observations,
      plan,
      actionErrors,
      foreignPods: ownership.foreign.map(foreignPodMessage),
      ...(scaling ? { scaling } : {}),
      ...(tlsVerdict ? { tls: tlsVerdict } : {}),
      ...declaredOf(deps, namespace, name),
      ...(previous ? { previous } : {}),
      now: rfc3339(deps.clock.now()),
    });
    deps.metrics.setClusterVersions(key, versionsOf(observations));
    countFinishedRoll(previous, status, deps);
    if (!statusEquals(previous, status)) {
      await deps.patchStatus(namespace, name, status);
      deps.metrics.statusWrites.inc();
      log.info('status written', { state: status.state, message: status.message });
    }
    const { timing } = deps;
    if (status.state === STATE.failed || status.state === STATE.invalid) return { requeueAfterMs: timing.failedResyncMs };
    if (day2.roll && !day2.roll.held) return { requeueAfterMs: timing.progressMs, rolling: true };
    // A held roll waits for a person (a fixed image, an opt-in): pod and StatefulSet events wake it.
    if (day2.roll?.held) return { requeueAfterMs: timing.failedResyncMs };
    if (day2.reloads.length) return { requeueAfterMs: timing.progressMs };
    if (scaling?.phase === 'held') return { requeueAfterMs: timing.failedResyncMs };
    // Slots still move and the pass only stopped to write status: the next one starts at once.
    if (scaling?.again) return { requeueAfterMs: 0 };
    if (status.state === 'Active' && plan.actions.length === 0) return { requeueAfterMs: timing.resyncMs };
    return { requeueAfterMs: timing.progressMs };
  } finally {
    for (const s of sessions.values()) s.close();
  }
}

/**
 * Slots move only once formation has nothing left to do and no roll is under way (a roll evicts
 * pods; both at once would make each other's steps fail). One decision per pass.
 */
async function rebalanceStep(args: {
  key: string;
  cluster: ValkeyCluster;
  answered: readonly Answered[];
  places: readonly PodPlace[];
  statefulSetShards: readonly number[];
  renderedShards: readonly { shard: number; shards: number }[];
  formationIdle: boolean;
  rolling: boolean;
  /** A held roll leaves pods of two revisions waiting for a person: no primary is moved meanwhile. */
  rollHeld: boolean;
  sessions: ReadonlyMap<string, NodeSession>;
  deps: ClusterReconcilerDeps;
  log: Logger;
}): Promise<(ScalingStatus & { again?: boolean }) | undefined> {
  const { cluster, deps } = args;
  if (!args.formationIdle) return undefined;
  const about = involvedCluster(cluster);
  const { answered } = args;
  if (args.rolling) {
    const unbalanced = shareProblems(cluster.spec.shards, primaryObservations(answered));
    return unbalanced.length ? { phase: 'waiting', message: `slots move once the roll is finished (${unbalanced[0]})` } : undefined;
  }
  const moving = await rebalanceCluster(
    {
      key: args.key,
      about,
      shards: cluster.spec.shards,
      replicasPerShard: cluster.spec.replicasPerShard,
      answered,
      sessions: args.sessions,
    },
    { events: deps.events, clock: deps.clock, log: args.log, metrics: deps.metrics, ...pickDefined(deps) },
  );
  if (moving) return moving;
  // Balanced: the removed shards hold no slot any more; retire them.
  const retiring = deps.deleteShard
    ? await retireShards(
        {
          about,
          shards: cluster.spec.shards,
          statefulSetShards: args.statefulSetShards,
          renderedShards: args.renderedShards,
          pods: args.places,
          answered,
          sessions: args.sessions,
        },
        { events: deps.events, log: args.log, deleteShard: deps.deleteShard },
      )
    : undefined;
  // Last: only a formed, balanced cluster with no roll under way (or held) fails its primaries back.
  if (retiring || args.rollHeld) return retiring;
  return failBack(about, cluster.spec.shards, answered, args.sessions, deps, args.log);
}

/**
 * A manual failover that has not happened by now will not (Valkey gives up after 5 s): waiting
 * longer only holds the pass, and status, back.
 */
const FAILBACK_CONFIRM_MS = 7_000;

/**
 * Keeps each shard's primary at ordinal 0, which lowering replicasPerShard never removes: after any
 * failover (a lost node, a roll), ordinal 0 takes the primary back with a graceful CLUSTER FAILOVER
 * once it is in sync. Always on; one failover per pass, never during a roll or while slots move
 * (rebalanceStep calls it last).
 *
 * Status: a primary away from ordinal 0 serves fine, but the cluster is not reported `Active` while
 * the controller means to move it (`Updating`, SlotMigration reason `PrimaryFailback`): `Active` is
 * what people and pipelines wait for before the next change, and lowering replicasPerShard in that
 * window would remove a primary. The wait is short: ordinal 0 is then catching up (not `Active`
 * anyway: a replica out of sync), or gossip is a second or two behind the last failover, or the
 * failover happens in this very pass (measured: 2.6-3.6 s from a failover to its failback).
 */
async function failBack(
  about: InvolvedObject,
  shards: number,
  answered: readonly Answered[],
  sessions: ReadonlyMap<string, NodeSession>,
  deps: ClusterReconcilerDeps,
  log: Logger,
): Promise<ScalingStatus | undefined> {
  const decision = planFailback(shards, answered);
  if (decision.kind === 'none') return undefined;
  if (decision.kind === 'wait') return { phase: 'failback', message: decision.reason };
  const session = sessions.get(decision.on);
  const what = `${decision.on} takes shard ${decision.shard}'s primary back from ${decision.from}`;
  if (!session) return { phase: 'failback', message: `${what}: no connection to ${decision.on}` };
  try {
    const result = await failoverAndConfirm(session, (ms) => deps.clock.sleep(ms), FAILBACK_CONFIRM_MS);
    if (result !== 'ok') return { phase: 'failback', message: `${what}: CLUSTER FAILOVER did not complete in time; retrying` };
  } catch (e) {
    return { phase: 'failback', message: `${what}: CLUSTER FAILOVER failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  deps.events.record(
    about,
    'Normal',
    'FailedBack',
    `CLUSTER FAILOVER: ${what} (in sync), so removing the highest ordinals never removes a primary`,
  );
  log.info('failed back to ordinal 0', { shard: decision.shard, pod: decision.on });
  return { phase: 'failback', message: what };
}

const pickDefined = (
  deps: ClusterReconcilerDeps,
): Pick<RebalanceDeps, 'scalingTotals' | 'batchSlots' | 'classicFallback' | 'slotMigration'> => ({
  ...(deps.scalingTotals ? { scalingTotals: deps.scalingTotals } : {}),
  ...(deps.classicFallback ? { classicFallback: deps.classicFallback } : {}),
  ...(deps.slotMigration ? { slotMigration: deps.slotMigration } : {}),
  ...(deps.batchSlots ? { batchSlots: deps.batchSlots } : {}),
});

/** Each shard StatefulSet with the shard count it was rendered for (NaN when it carries none). */
function renderedShardCounts(sets: readonly StatefulSet[], cluster: string): { shard: number; shards: number }[] {
  const prefix = `${cluster}-`;
  return sets.flatMap((s) => {
    const rest = s.metadata.name.startsWith(prefix) ? s.metadata.name.slice(prefix.length) : '';
    return /^\d+$/.test(rest) ? [{ shard: Number(rest), shards: Number(s.metadata.annotations?.[ANNOTATIONS.shards]) }] : [];
  });
}

/** A fresh session to a pod, for a new TLS handshake after a reload. */
function reopener(
  pods: readonly { pod: Pod }[],
  open: OpenSession,
  deps: ClusterReconcilerDeps,
  tls: (pod: string) => TlsOptions,
): (pod: string) => Promise<NodeSession | undefined> {
  return async (name) => {
    const pod = pods.find((p) => p.pod.metadata.name === name)?.pod;
    const endpoint = pod ? deps.endpointOf(pod) : undefined;
    return endpoint ? open(endpoint, tls(name), pod?.metadata.namespace) : undefined;
  };
}

/** A Warning Event (aggregated by the recorder) and a log line per foreign pod, every pass it is there. */
function reportForeignPods(cluster: ValkeyCluster, foreign: readonly ForeignPod[], deps: ClusterReconcilerDeps, log: Logger): void {
  if (foreign.length === 0) return;
  const about = involvedCluster(cluster);
  for (const f of foreign) {
    deps.events.record(about, 'Warning', 'ForeignPod', foreignPodMessage(f));
    log.warn("a pod with the cluster labels is not its StatefulSet's; not dialled", { pod: f.pod, reason: f.reason });
  }
  deps.metrics.reconcileErrors.inc({ kind: 'foreign-pod' }, foreign.length);
}

const condition = (s: ValkeyClusterStatus | undefined, type: string) => s?.conditions?.find((c) => c.type === type);

/** A roll finished when RollInProgress went from True to not; its duration is that condition's age. */
function countFinishedRoll(previous: ValkeyClusterStatus | undefined, now: ValkeyClusterStatus, deps: ClusterReconcilerDeps): void {
  const before = condition(previous, 'RollInProgress');
  const after = condition(now, 'RollInProgress');
  if (after?.status === 'True' || before?.status !== 'True') {
    if (after?.reason === 'Held' && condition(previous, 'RollHeld')?.status !== 'True') deps.metrics.rolls.inc({ outcome: 'held' });
    return;
  }
  if (after?.reason === 'Held') return;
  deps.metrics.rolls.inc({ outcome: 'finished' });
  const started = Date.parse(before.lastTransitionTime);
  if (Number.isFinite(started)) deps.metrics.rollSeconds.observe(Math.max(0, (deps.clock.now() - started) / 1000));
}

function declaredOf(deps: ClusterReconcilerDeps, namespace: string, name: string): { declared?: Declared } {
  const declared = declaredVersion(deps.statefulSets(namespace, name));
  return declared ? { declared } : {};
}
