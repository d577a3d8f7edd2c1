import { readAclLines, readUsersAcl } from '../../api/contract/users-acl.js';
import { directivesByName, readValkeyConf } from '../../api/contract/valkey-conf.js';
import { aclDifferences, aclLockout, aclSignatures, type HeldCredential } from '../cluster/acl-users.js';
import { desiredLiveSettings, planLiveSettings, type ConfigSetChange } from '../cluster/live-settings.js';
import type { ControllerMetrics } from '../runtime/metrics.js';
import { aclPasswordHash } from '../valkey/digests.js';
import type { NodeSession } from '../valkey/node-session.js';

/**
 * Live changes from the ConfigMap the pods mount: `CONFIG SET` of the live settings that differ,
 * and `ACL LOAD` of users.acl, on every node that answered. The ConfigMap comes from the API
 * server, so settings apply at once (a pod restarted later reads the same values from its file).
 * users.acl is read by the node from its own projected file, which lags: a load is proven by the
 * node's users afterwards, and a load of the old file changes nothing, so it is simply tried again.
 */

export interface LiveConfigInput {
  valkeyConf?: string;
  usersAcl?: string;
  /** Where users.acl comes from, for messages: `ConfigMap <ns>/<name>, key users.acl`. */
  usersAclSource?: string;
  /** Settings the container's arguments set: their file values are not what runs. */
  overridden: ReadonlySet<string>;
  sessions: ReadonlyMap<string, NodeSession>;
  /** Pods whose ACL load failed recently and wait for their backoff: not tried in this pass. */
  aclBackoff: (pod: string) => boolean;
  metrics: ControllerMetrics;
}

export interface NodeApplied {
  pod: string;
  changes: ConfigSetChange[];
}

export interface LiveConfigOutcome {
  /** Settings set on each node in this pass. */
  applied: NodeApplied[];
  /** Nodes that loaded the intended users.acl in this pass. */
  aclLoaded: string[];
  /** Nodes still on an older users.acl after a load (their file is not projected yet). */
  aclStale: string[];
  /** Nodes that refused an ACL LOAD of this file earlier and wait out their backoff before the next try. */
  aclHeld: string[];
  /** Failures, one line each, by pod, and whether it was an ACL load (backoff applies). */
  failures: { pod: string; kind: 'config' | 'acl'; message: string }[];
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

async function applySettings(pod: string, s: NodeSession, input: LiveConfigInput, out: LiveConfigOutcome): Promise<void> {
  if (input.valkeyConf === undefined) return;
  const desired = desiredLiveSettings(directivesByName(readValkeyConf(input.valkeyConf)), input.overridden);
  if (desired.length === 0) return;
  const timer = input.metrics.reloadSeconds.startTimer({ kind: 'config' });
  try {
    const running = await s.configGet(desired.map((d) => d.name));
    const changes = planLiveSettings(desired, running);
    const done: ConfigSetChange[] = [];
    for (const c of changes) {
      try {
        await s.configSet(c.name, c.value);
        done.push(c);
        input.metrics.liveApplies.inc({ kind: 'config' });
      } catch (e) {
        input.metrics.reloadFailures.inc({ kind: 'config' });
        out.failures.push({ pod, kind: 'config', message: `CONFIG SET ${c.name} on ${pod} failed: ${errorText(e)}` });
      }
    }
    if (done.length) out.applied.push({ pod, changes: done });
  } catch (e) {
    input.metrics.reloadFailures.inc({ kind: 'config' });
    out.failures.push({ pod, kind: 'config', message: `CONFIG GET on ${pod} failed: ${errorText(e)}` });
  } finally {
    timer();
  }
}

async function loadAcl(pod: string, s: NodeSession, input: LiveConfigInput, out: LiveConfigOutcome): Promise<void> {
  if (input.usersAcl === undefined) return;
  const file = aclSignatures(readUsersAcl(input.usersAcl), aclPasswordHash);
  const timer = input.metrics.reloadSeconds.startTimer({ kind: 'acl' });
  try {
    if (aclDifferences(file, aclSignatures(readAclLines(await s.aclList()), aclPasswordHash)).length === 0) return;
    if (input.aclBackoff(pod)) {
      out.aclHeld.push(pod);
      return;
    }
    const lockout = aclLockout(
      readUsersAcl(input.usersAcl),
      { controller: s.heldCredentials(), ...(await replicationCredential(s)) },
      aclPasswordHash,
    );
    if (lockout) {
      input.metrics.reloadFailures.inc({ kind: 'acl' });
      const source = input.usersAclSource ?? 'users.acl';
      out.failures.push({
        pod,
        kind: 'acl',
        message: `ACL LOAD of ${source} on ${pod} refused by the controller (the node keeps its users): ${lockout}`,
      });
      return;
    }
    try {
      await s.aclLoad();
    } catch (e) {
      // All or nothing: a refused file leaves the node's users as they were.
      input.metrics.reloadFailures.inc({ kind: 'acl' });
      out.failures.push({ pod, kind: 'acl', message: `ACL LOAD on ${pod} failed (the node keeps its users): ${errorText(e)}` });
      return;
    }
    if (aclDifferences(file, aclSignatures(readAclLines(await s.aclList()), aclPasswordHash)).length === 0) {
      input.metrics.liveApplies.inc({ kind: 'acl' });
      out.aclLoaded.push(pod);
    } else out.aclStale.push(pod);
  } catch (e) {
    input.metrics.reloadFailures.inc({ kind: 'acl' });
    out.failures.push({ pod, kind: 'acl', message: `ACL LIST on ${pod} failed: ${errorText(e)}` });
  } finally {
    timer();
  }
}

/** The user and password hash a node authenticates to its primary with (CONFIG GET primaryuser primaryauth). */
async function replicationCredential(s: NodeSession): Promise<{ replication?: HeldCredential }> {
  const got = await s.configGet(['primaryuser', 'primaryauth', 'masteruser', 'masterauth']);
  const username = got.get('primaryuser') ?? got.get('masteruser');
  const password = got.get('primaryauth') ?? got.get('masterauth');
  return username && password ? { replication: { username, passwordHash: aclPasswordHash(password) } } : {};
}

export async function applyLiveConfig(input: LiveConfigInput): Promise<LiveConfigOutcome> {
  const out: LiveConfigOutcome = { applied: [], aclLoaded: [], aclStale: [], aclHeld: [], failures: [] };
  const pods = [...input.sessions.keys()].sort();
  await Promise.all(
    pods.map(async (pod) => {
      const s = input.sessions.get(pod) as NodeSession;
      await applySettings(pod, s, input, out);
      await loadAcl(pod, s, input, out);
    }),
  );
  for (const list of [out.applied, out.failures]) list.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
  out.aclLoaded.sort();
  out.aclStale.sort();
  out.aclHeld.sort();
  return out;
}
