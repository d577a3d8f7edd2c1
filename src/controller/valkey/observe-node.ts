import { ordinalOf, shardOf } from '../../api/index.js';
import type { Endpoint, NodeObservation, PodPlace, Replication } from '../cluster/observation.js';
import { startupLogSummary } from '../cluster/roll.js';
import { versionInStartupLog, type VersionPolicy } from '../cluster/version-gate.js';
import { holdsForHandover } from '../kube/pod-hooks.js';
import type { Pod } from '../kube/types.js';
import { ClusterNodesParseError, parseClusterInfo, parseClusterNodes, type ClusterNodeInterner } from './cluster-nodes.js';
import { parseInfo, serverIdentity } from './info.js';
import { parseNodeStats, type NodeStats } from './node-stats.js';
import type { NodeSession, OpenSession } from './node-session.js';
import { CommandError, type TlsOptions } from './resp-connection.js';

/** Where the controller dials a pod. Production: the pod IP, port 6379, bus 16379. */
export type EndpointOf = (pod: Pod) => Endpoint | undefined;

export interface ObserveContext {
  open: OpenSession;
  policy: VersionPolicy;
  endpointOf: EndpointOf;
  tls?: (pod: string) => TlsOptions;
  /** Shared by the pods of one pass, so n views of n nodes hold each distinct line once. */
  interner?: ClusterNodeInterner;
  /**
   * Whether this pod's Valkey metrics are due this pass: then the replication INFO asks the stats
   * sections too (one round trip either way, valkey/node-stats.ts).
   */
  statsDue?: (pod: string) => boolean;
}

export interface ObservedNode {
  observation: NodeObservation;
  /** Kept open for formation commands when the node answered and passed the gate. */
  session?: NodeSession;
  /** What the per-pod Valkey metrics show, when they were due and the node answered. */
  stats?: NodeStats;
}

/** `<cluster>-<shard>-<ordinal>` with the shard from the pod's label; undefined for foreign pods. */
export function podPlace(pod: Pod): PodPlace | undefined {
  const shard = shardOf(pod.metadata.labels);
  const ordinal = ordinalOf(pod.metadata.name);
  if (shard === undefined || ordinal === undefined) return undefined;
  return { pod: pod.metadata.name, shard, ordinal, ...(pod.status?.podIP ? { ip: pod.status.podIP } : {}) };
}

/**
 * What the scheduler said when it could not place a pod (its PodScheduled condition False with
 * reason Unschedulable, e.g. "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity
 * rules"); undefined for a placed pod or one the scheduler has not refused.
 */
export function schedulerRefusal(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return undefined;
  const c = pod.status?.conditions?.find((x) => x.type === 'PodScheduled');
  if (c?.status !== 'False' || c.reason !== 'Unschedulable') return undefined;
  return c.message?.trim() || 'the scheduler found no node for it';
}

/**
 * A pod being deleted whose preStop hook holds its server for the handover (kube/pod-hooks.ts) still
 * serves, and is asked like any other: the pass hands its shard to a replica that stays
 * (cluster/drain-handover.ts) while it waits. Once it does not answer it is terminating, as any
 * other pod being deleted.
 */
const askedWhileTerminating = (pod: Pod): boolean => pod.metadata.deletionTimestamp !== undefined && holdsForHandover(pod);

function pendingReason(pod: Pod): string | undefined {
  if (pod.metadata.deletionTimestamp && !askedWhileTerminating(pod)) return 'is terminating';
  const refused = schedulerRefusal(pod);
  if (refused !== undefined) return `cannot be scheduled: ${refused}`;
  if (!pod.spec?.nodeName) return 'is not scheduled on a node yet';
  const phase = pod.status?.phase ?? 'Pending';
  if (phase !== 'Running') return `is ${phase}`;
  if (!pod.status?.podIP) return 'has no IP yet';
  return undefined;
}

/**
 * A container that is not running and last exited with a failure, with the log tail its
 * termination message carries (`terminationMessagePolicy: FallbackToLogsOnError`).
 */
function failedStartLog(pod: Pod): string | undefined {
  const status = pod.status?.containerStatuses?.[0];
  if (!status || status.state?.running) return undefined;
  const terminated = status.state?.terminated ?? status.lastState?.terminated;
  return terminated && terminated.exitCode !== 0 ? terminated.message : undefined;
}

/**
 * A binary below the floor may never answer INFO: Valkey 8.0.1 refuses the rendered users.acl
 * (`+cluster|syncslots`) and exits at start-up. Its log still names its version, which the same
 * policy judges; a rejection says where the version was read and what the server said.
 */
function rejectedAtStartup(pod: Pod, place: PodPlace, policy: VersionPolicy): NodeObservation | undefined {
  const log = failedStartLog(pod);
  const version = log === undefined ? undefined : versionInStartupLog(log);
  if (log === undefined || version === undefined) return undefined;
  const identity = { kind: 'valkey', version } as const;
  const verdict = policy.check(identity);
  if (verdict.ok) return undefined;
  const found = `${verdict.found} (read from its start-up log: its container exits at start-up with "${startupLogSummary(log)}")`;
  return { ...place, state: 'rejected', identity, verdict: { ...verdict, found } };
}

/** `INFO replication` into the facts a roll and the status read. */
export function parseReplication(text: string): Replication {
  const f = parseInfo(text);
  const replica = f.get('role') === 'slave';
  const offset = Number(f.get(replica ? 'slave_repl_offset' : 'master_repl_offset') ?? 0);
  return {
    role: replica ? 'replica' : 'primary',
    linkUp: f.get('master_link_status') === 'up',
    syncing: f.get('master_sync_in_progress') === '1',
    offset: Number.isFinite(offset) ? offset : 0,
  };
}

const describeError = (e: unknown): string => {
  if (e instanceof CommandError && (e.code === 'WRONGPASS' || e.code === 'NOPERM'))
    return `${e.message} (check the controller's password and ACL user)`;
  if (e instanceof ClusterNodesParseError)
    return `its cluster replies cannot be trusted, so the controller does not act on them: ${e.message} (Valkey never prints this; check what runs in the pod)`;
  return e instanceof Error ? e.message : String(e);
};

/**
 * Talks to one pod: INFO server first, and only a server that passes the version policy is asked
 * about the cluster (and later sent commands); a container that exits at start-up is judged by
 * the version its log names. Never throws; every outcome is an observation.
 */
export async function observeNode(pod: Pod, place: PodPlace, ctx: ObserveContext): Promise<ObservedNode> {
  const exited = pod.metadata.deletionTimestamp ? undefined : rejectedAtStartup(pod, place, ctx.policy);
  if (exited) return { observation: exited };
  const pending = pendingReason(pod);
  const endpoint = pending ? undefined : ctx.endpointOf(pod);
  if (pending || !endpoint) return { observation: { ...place, state: 'pending', reason: pending ?? 'has no address yet' } };
  let session: NodeSession | undefined;
  try {
    session = await ctx.open(endpoint, ctx.tls?.(place.pod), pod.metadata.namespace);
    const identity = serverIdentity(parseInfo(await session.infoServer()));
    const verdict = ctx.policy.check(identity);
    if (!verdict.ok) {
      session.close();
      return { observation: { ...place, state: 'rejected', identity, verdict } };
    }
    const due = ctx.statsDue?.(place.pod) === true;
    const [nodes, info, replication] = await Promise.all([
      session.clusterNodes(),
      session.clusterInfo(),
      due ? session.infoStats() : session.infoReplication(),
    ]);
    return {
      ...(due ? { stats: parseNodeStats(replication) } : {}),
      observation: {
        ...place,
        state: 'answered',
        identity,
        version: verdict.version,
        endpoint,
        view: parseClusterNodes(nodes, ctx.interner),
        info: parseClusterInfo(info),
        replication: parseReplication(replication),
      },
      session,
    };
  } catch (e) {
    session?.close();
    if (askedWhileTerminating(pod)) return { observation: { ...place, state: 'pending', reason: 'is terminating' } };
    if (e instanceof CommandError && e.code === 'LOADING') return { observation: { ...place, state: 'loading' } };
    return { observation: { ...place, state: 'unreachable', error: describeError(e) } };
  }
}
