import type { ValkeyCluster } from '../../api/index.js';
import type { NodeObservation } from '../cluster/observation.js';
import { describeProgress, type RollStep } from '../cluster/roll.js';
import type { Day2Status } from '../cluster/status.js';
import { involvedCluster, type EventRecorder, type InvolvedObject } from '../kube/event-recorder.js';
import type { ConfigMap, Pod, StatefulSet } from '../kube/types.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import type { ControllerMetrics } from '../runtime/metrics.js';
import type { RetryGate } from '../runtime/retry-gate.js';
import type { NodeSession } from '../valkey/node-session.js';
import { applyLiveConfig, type LiveConfigOutcome } from './live-config.js';
import { failoverAndConfirm, planClusterRoll } from './roll-cluster.js';
import { reloadTls } from './tls-reload.js';

export type EvictionResult = 'evicted' | 'refused' | 'gone';

export interface Day2Deps {
  configMap(namespace: string, name: string): ConfigMap | undefined;
  evict(namespace: string, pod: string): Promise<EvictionResult>;
  events: EventRecorder;
  /** Whether this cluster may start a roll now (the fleet-wide --max-concurrent-rolls). */
  mayStartRoll(cluster: string): boolean;
  aclRetry: RetryGate;
  clock: Clock;
  log: Logger;
  metrics: ControllerMetrics;
}

export interface Day2Input {
  key: string;
  cluster: ValkeyCluster;
  statefulSets: readonly StatefulSet[];
  pods: readonly Pod[];
  observations: readonly NodeObservation[];
  sessions: ReadonlyMap<string, NodeSession>;
  /** Why the cluster is not whole (formation steps, slots...): no roll step until it is. */
  clusterProblems: readonly string[];
  /** A TLS cluster: the Secret's certificate, and a way to handshake with a pod again. */
  tls?: { certificate: string; reopen(pod: string): Promise<NodeSession | undefined> };
}

/** The ConfigMap the pods mount (the volume holding valkey.conf and users.acl). */
function mountedConfigMap(sets: readonly StatefulSet[]): string | undefined {
  for (const s of sets) for (const v of s.spec?.template?.spec?.volumes ?? []) if (v.configMap?.name) return v.configMap.name;
  return undefined;
}

/** `--name value` arguments of the Valkey container: those settings run from the arguments, not the file. */
function overriddenSettings(sets: readonly StatefulSet[]): Set<string> {
  const names = new Set<string>();
  const args = sets[0]?.spec?.template?.spec?.containers?.[0];
  for (const a of [...(args?.command ?? []), ...(args?.args ?? [])])
    if (a.startsWith('--') && a.length > 2) names.add(a.slice(2).toLowerCase());
  return names;
}

function recordLiveEvents(about: InvolvedObject, out: LiveConfigOutcome, deps: Day2Deps): void {
  const bySetting = new Map<string, string[]>();
  for (const a of out.applied)
    for (const c of a.changes) bySetting.set(`${c.name} ${c.value}`, [...(bySetting.get(`${c.name} ${c.value}`) ?? []), a.pod]);
  for (const [setting, pods] of bySetting)
    deps.events.record(about, 'Normal', 'LiveSettingApplied', `CONFIG SET ${setting} on ${pods.join(', ')} (no restart)`);
  if (out.aclLoaded.length)
    deps.events.record(about, 'Normal', 'AclLoaded', `ACL LOAD of the new users.acl on ${out.aclLoaded.join(', ')} (no restart)`);
  for (const f of out.failures) deps.events.record(about, 'Warning', f.kind === 'acl' ? 'AclLoadFailed' : 'LiveSettingFailed', f.message);
}

async function runRollStep(about: InvolvedObject, step: RollStep, input: Day2Input, deps: Day2Deps): Promise<string | undefined> {
  const namespace = about.namespace;
  if (step.kind === 'evict') {
    const result = await deps.evict(namespace, step.pod);
    deps.metrics.rollSteps.inc({ result: result === 'refused' ? 'refused' : 'ok', step: 'evict' });
    if (result === 'refused') return `the eviction of ${step.pod} was refused (PodDisruptionBudget); retrying`;
    deps.events.record(
      about,
      'Normal',
      'Evicted',
      `Evicted ${step.role} ${step.pod} to roll it to the new revision (${describeProgress(step.progress)})`,
    );
    deps.log.info('roll: evicted', { pod: step.pod, role: step.role });
    return undefined;
  }
  if (step.kind === 'failover') {
    const session = input.sessions.get(step.on);
    if (!session) return `no connection to ${step.on} for the failover`;
    const timer = deps.metrics.failoverSeconds.startTimer();
    try {
      const result = await failoverAndConfirm(session, (ms) => deps.clock.sleep(ms));
      deps.metrics.failovers.inc({ result });
      deps.metrics.rollSteps.inc({ result: result === 'ok' ? 'ok' : 'error', step: 'failover' });
      if (result !== 'ok') return `CLUSTER FAILOVER on ${step.on} did not make it primary in time; retrying`;
      timer();
      deps.events.record(
        about,
        'Normal',
        'FailedOver',
        `CLUSTER FAILOVER: ${step.on} (new revision, in sync) took over from ${step.from}, which is rolled next`,
      );
      deps.log.info('roll: failed over', { from: step.from, to: step.on });
    } catch (e) {
      deps.metrics.failovers.inc({ result: 'error' });
      deps.metrics.rollSteps.inc({ result: 'error', step: 'failover' });
      return `CLUSTER FAILOVER on ${step.on} failed: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return undefined;
}

/**
 * Day-2 work of one pass: live settings and ACLs from the mounted ConfigMap on every node that
 * answered, then one step of the roll. Returns what status shows about it.
 */
export async function runDay2(input: Day2Input, deps: Day2Deps): Promise<Day2Status> {
  const { cluster } = input;
  const namespace = cluster.metadata.namespace as string;
  const about = involvedCluster(cluster);
  const cmName = mountedConfigMap(input.statefulSets);
  const cm = cmName ? deps.configMap(namespace, cmName) : undefined;
  const aclKey = (pod: string): string => `${namespace}/${pod}`;
  const live = await applyLiveConfig({
    ...(cm?.data?.['valkey.conf'] !== undefined ? { valkeyConf: cm.data['valkey.conf'] } : {}),
    ...(cm?.data?.['users.acl'] !== undefined ? { usersAcl: cm.data['users.acl'] } : {}),
    overridden: overriddenSettings(input.statefulSets),
    sessions: input.sessions,
    aclBackoff: (pod) => deps.aclRetry.blocked(aclKey(pod)),
    metrics: deps.metrics,
  });
  for (const pod of live.aclLoaded) deps.aclRetry.succeeded(aclKey(pod));
  for (const f of live.failures) if (f.kind === 'acl') deps.aclRetry.failed(aclKey(f.pod));
  recordLiveEvents(about, live, deps);
  if (live.applied.length)
    deps.log.info('live settings applied', { nodes: live.applied.map((a) => `${a.pod}: ${a.changes.map((c) => c.name).join(' ')}`) });

  const tls = input.tls
    ? await reloadTls({
        certificate: input.tls.certificate,
        sessions: input.sessions,
        reopen: input.tls.reopen,
        metrics: deps.metrics,
        nowMs: deps.clock.now(),
      })
    : undefined;
  if (tls?.reloaded.length)
    deps.events.record(
      about,
      'Normal',
      'TlsReloaded',
      `Reloaded the TLS certificate on ${tls.reloaded.join(', ')}; a handshake shows the Secret's certificate (no restart)`,
    );
  for (const f of tls?.failures ?? []) deps.events.record(about, 'Warning', 'TlsReloadFailed', f.message);

  // A node that refuses users.acl keeps its users and serves on: a person must fix the file.
  const refused = [
    ...live.failures.filter((f) => f.kind === 'acl' && f.message.startsWith('ACL LOAD')).map((f) => f.message),
    ...(live.aclHeld.length
      ? [`users.acl: ${live.aclHeld.join(', ')} refused the last ACL LOAD of this file (retried after a backoff)`]
      : []),
  ];
  const reloads = [
    ...live.failures.map((f) => f.message),
    ...(live.aclHeld.length ? [refused[refused.length - 1] as string] : []),
    ...(tls?.failures.map((f) => f.message) ?? []),
    ...(tls?.stale.length ? [`TLS: waiting for the new certificate files on ${tls.stale.join(', ')}`] : []),
    ...(live.aclStale.length ? [`users.acl: waiting for the new file on ${live.aclStale.join(', ')}`] : []),
  ];

  const { step, revision } = planClusterRoll({
    statefulSets: input.statefulSets,
    pods: input.pods,
    observations: input.observations,
    ...(cluster.metadata.annotations ? { clusterAnnotations: cluster.metadata.annotations } : {}),
    clusterProblems: input.clusterProblems,
    mayStart: deps.mayStartRoll(input.key),
  });
  const base = { reloads, ...(refused.length ? { refused } : {}) };
  if (step.kind === 'none') return base;
  let detail: string | undefined;
  if (step.kind === 'wait') detail = step.reason;
  else if (step.kind === 'held') {
    detail = step.reason;
    deps.events.record(about, 'Warning', 'RollHeld', step.reason);
  } else detail = await runRollStep(about, step, input, deps);
  const progress = describeProgress(step.progress);
  const message = step.kind === 'held' ? `${detail}; ${progress}` : detail ? `${progress}: ${detail}` : progress;
  return { ...base, roll: { held: step.kind === 'held', message, revision: revision ?? 'unknown' } };
}
