import { EVENT } from '../../api/status-names.js';
import type { EventRecorder, InvolvedObject } from '../kube/event-recorder.js';
import type { ConfigMap, StatefulSet } from '../kube/types.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import type { ControllerMetrics } from '../runtime/metrics.js';
import type { RetryGate } from '../runtime/retry-gate.js';
import type { NodeSession } from '../valkey/node-session.js';
import { applyLiveConfig, type LiveConfigOutcome } from './live-config.js';
import { reloadTls } from './tls-reload.js';

/**
 * The reloads of one pass, beside whatever operation the pass planner chose (they touch no pod and
 * no slot): live settings and users.acl from the ConfigMap the pods mount, on every node that
 * answered, and the TLS certificate where a handshake shows another one than the Secret's.
 */

export interface ReloadDeps {
  configMap(namespace: string, name: string): ConfigMap | undefined;
  events: EventRecorder;
  /** ACL loads that failed wait for their backoff (per pod): pacing only. */
  aclRetry: RetryGate;
  clock: Clock;
  log: Logger;
  metrics: ControllerMetrics;
}

export interface ReloadInput {
  about: InvolvedObject;
  statefulSets: readonly StatefulSet[];
  sessions: ReadonlyMap<string, NodeSession>;
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

function recordLiveEvents(about: InvolvedObject, out: LiveConfigOutcome, events: EventRecorder): void {
  const bySetting = new Map<string, string[]>();
  for (const a of out.applied)
    for (const c of a.changes) bySetting.set(`${c.name} ${c.value}`, [...(bySetting.get(`${c.name} ${c.value}`) ?? []), a.pod]);
  for (const [setting, pods] of bySetting)
    events.record(about, 'Normal', EVENT.liveSettingApplied, `CONFIG SET ${setting} on ${pods.join(', ')} (no restart)`);
  if (out.aclLoaded.length)
    events.record(about, 'Normal', EVENT.aclLoaded, `ACL LOAD of the new users.acl on ${out.aclLoaded.join(', ')} (no restart)`);
  for (const f of out.failures)
    events.record(about, 'Warning', f.kind === 'acl' ? EVENT.aclLoadFailed : EVENT.liveSettingFailed, f.message);
}

/** What the reloads left undone, as status reads it. */
export interface ReloadOutcome {
  /** What is not yet on every node, one line each (LiveConfigApplied). */
  reloads: string[];
  /** What the nodes refuse to load and a person must fix (a users.acl ACL LOAD rejects); also in reloads. */
  refused: string[];
}

/** Carries the reloads out. */
export async function reloadCluster(input: ReloadInput, deps: ReloadDeps): Promise<ReloadOutcome> {
  const { about } = input;
  const cmName = mountedConfigMap(input.statefulSets);
  const cm = cmName ? deps.configMap(about.namespace, cmName) : undefined;
  const aclKey = (pod: string): string => `${about.namespace}/${pod}`;
  const live = await applyLiveConfig({
    ...(cm?.data?.['valkey.conf'] !== undefined ? { valkeyConf: cm.data['valkey.conf'] } : {}),
    ...(cm?.data?.['users.acl'] !== undefined
      ? { usersAcl: cm.data['users.acl'], usersAclSource: `users.acl of ConfigMap ${about.namespace}/${cmName}` }
      : {}),
    overridden: overriddenSettings(input.statefulSets),
    sessions: input.sessions,
    aclBackoff: (pod) => deps.aclRetry.blocked(aclKey(pod)),
    metrics: deps.metrics,
  });
  for (const pod of live.aclLoaded) deps.aclRetry.succeeded(aclKey(pod));
  for (const f of live.failures) if (f.kind === 'acl') deps.aclRetry.failed(aclKey(f.pod));
  recordLiveEvents(about, live, deps.events);
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
      EVENT.tlsReloaded,
      `Reloaded the TLS certificate on ${tls.reloaded.join(', ')}; a handshake shows the Secret's certificate (no restart)`,
    );
  for (const f of tls?.failures ?? []) deps.events.record(about, 'Warning', EVENT.tlsReloadFailed, f.message);

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
  return { reloads, refused };
}
