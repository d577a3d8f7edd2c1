/**
 * Failover-first rolls (DESIGN §6.1): which one thing to do next for a cluster whose pods run an
 * older revision than their StatefulSet's update revision. Pure: every input is what the API server
 * and the nodes say now, so a restarted controller plans the same step (no roll state in memory).
 *
 * Order: one pod at a time; shards in order, one finished before the next; replicas before the
 * primary; a primary only after a graceful failover to an in-sync replica that already runs the
 * new revision. Nothing is removed while any pod is missing, not ready or not in sync.
 */

/** What the node in a pod says, reduced to what a roll decides on. */
export type RollNode =
  | { state: 'answered'; role: 'primary' | 'replica'; inSync: boolean }
  | { state: 'rejected'; found: string }
  | { state: 'absent'; reason: string };

export interface RollPod {
  pod: string;
  shard: number;
  ordinal: number;
  /** The pod's `controller-revision-hash` label. */
  revision?: string;
  ready: boolean;
  terminating: boolean;
  /** Why its container is not running (from the pod's container statuses), when it is not. */
  containerProblem?: string;
  /** What the scheduler said when it refused to place the pod (PodScheduled False, Unschedulable). */
  unschedulable?: string;
  node: RollNode;
}

export interface RollShard {
  shard: number;
  /** The StatefulSet's `status.updateRevision`; undefined until its controller computed it. */
  updateRevision?: string;
  /** False while the StatefulSet controller has not observed the latest spec. */
  observed: boolean;
  /** The reviewer's opt-in to roll this shard although it has no replica (its data goes). */
  allowDataLoss: boolean;
  /** Pods the StatefulSet asks for. */
  replicas: number;
  pods: readonly RollPod[];
}

export interface RollInput {
  shards: readonly RollShard[];
  /** Why the cluster is not whole apart from the pods (formation steps pending, slots, ...). */
  clusterProblems: readonly string[];
  /** Whether a roll that has not started yet may start (the fleet-wide bound). */
  mayStart: boolean;
}

export interface RollProgress {
  /** The shard being rolled, 0-based, and how many shards the cluster has. */
  shard: number;
  shards: number;
  pod?: string;
  podsDone: number;
  podsTotal: number;
}

export type RollStep =
  | { kind: 'none' }
  | { kind: 'wait'; reason: string; progress: RollProgress }
  | { kind: 'held'; reason: string; pod?: string; progress: RollProgress }
  /**
   * `broken`: a pod of an older revision that cannot run it, or that the scheduler cannot place,
   * replaced first (it serves nothing); `why` says which.
   */
  | { kind: 'evict'; pod: string; role: 'primary' | 'replica'; progress: RollProgress }
  | { kind: 'evict'; pod: string; role: 'broken'; why: string; progress: RollProgress }
  | { kind: 'failover'; on: string; from: string; progress: RollProgress };

const outdated = (s: RollShard, p: RollPod): boolean => s.updateRevision !== undefined && p.revision !== s.updateRevision;
const current = (s: RollShard, p: RollPod): boolean => s.updateRevision !== undefined && p.revision === s.updateRevision;

/** The last line or two of a start-up log that say what went wrong, without Valkey's log prefix. */
export function startupLogSummary(log: string): string {
  const lines = log
    .split('\n')
    // Valkey's log prefix (`1:M 01 Dec 2026 03:00:00.001 # `) says nothing a reader needs.
    .map((l) => l.trim().replace(/^\d+:[A-Z] \d+ \w+ \d+ [\d:.]+ [#*.-] /, ''))
    .filter((l) => l !== '');
  // A refused line of the config file: Valkey's block names the line and why, after its heading.
  const fatal = lines.findLastIndex((l) => /FATAL CONFIG FILE ERROR/.test(l));
  if (fatal !== -1)
    return lines
      .slice(fatal, fatal + 4)
      .join(' / ')
      .slice(0, 300);
  const telling = lines.filter((l) => /error|abort|fatal|unknown|bad directive|can't/i.test(l));
  return (telling.length ? telling : lines).slice(-2).join(' / ').slice(0, 300);
}

/** "exited at start-up: ..." with what the server said, and what it means when we know. */
export function startupProblemMessage(pod: string, log: string): string {
  // `+cluster|syncslots` in the rendered users.acl is a 9.0 command, and `shutdown-on-sigterm
  // failover` in valkey.conf a 9.0 value: an older binary refuses the file.
  const olderThan9 =
    /cluster\|syncslots.*unknown command|unknown command.*cluster\|syncslots/i.test(log) ||
    /'shutdown-on-sigterm [^']*failover[^']*'\s*\n?\s*argument\(s\) must be one of/i.test(log)
      ? ' (the binary is older than Valkey 9.0)'
      : '';
  return `pod ${pod} exited at start-up: ${startupLogSummary(log)}${olderThan9}`;
}

/** Everything that keeps the cluster from being whole: nothing is removed until it is. */
function notWhole(input: RollInput): string[] {
  const problems: string[] = [];
  for (const s of input.shards) {
    if (s.pods.length < s.replicas) problems.push(`shard ${s.shard} has ${s.pods.length} of ${s.replicas} pods`);
    for (const p of s.pods) {
      if (p.terminating) problems.push(`pod ${p.pod} is terminating`);
      else if (p.unschedulable !== undefined) problems.push(`pod ${p.pod} cannot be scheduled: ${p.unschedulable}`);
      else if (!p.ready) problems.push(`pod ${p.pod} is not ready`);
      else if (p.node.state === 'absent') problems.push(`pod ${p.pod} ${p.node.reason}`);
      else if (p.node.state === 'answered' && p.node.role === 'replica' && !p.node.inSync)
        problems.push(`pod ${p.pod} is not in sync with its primary yet`);
    }
  }
  return [...problems, ...input.clusterProblems];
}

/**
 * Whether a roll has begun: the first shard with an outdated pod already has a pod of the new
 * revision, or a pod missing or terminating (the one evicted last pass, on its way back), or an
 * earlier shard was rolled before it. A new shard's pods, created at the new revision by a merge
 * that also changed the image, are not a roll under way (they come after the shards to roll), so
 * such a roll still waits for its turn and for the fleet's roll slot.
 */
export function rollUnderWay(input: readonly RollShard[]): boolean {
  const shards = [...input].sort((a, b) => a.shard - b.shard);
  const index = shards.findIndex((s) => s.pods.some((p) => outdated(s, p)));
  const rolling = shards[index];
  if (!rolling) return false;
  return index > 0 || rolling.pods.length < rolling.replicas || rolling.pods.some((p) => current(rolling, p) || p.terminating);
}

export function planRoll(input: RollInput): RollStep {
  const shards = [...input.shards].sort((a, b) => a.shard - b.shard);
  const all = shards.flatMap((s) => s.pods.map((p) => ({ s, p })));
  const podsTotal = shards.reduce((n, s) => n + Math.max(s.replicas, s.pods.length), 0);
  const podsDone = all.filter(({ s, p }) => current(s, p) && !p.terminating).length;
  const rolling = shards.find((s) => s.pods.some((p) => outdated(s, p)));
  if (!rolling) return { kind: 'none' };
  const progress = (pod?: string): RollProgress => ({
    shard: rolling.shard,
    shards: shards.length,
    podsDone,
    podsTotal,
    ...(pod ? { pod } : {}),
  });

  const unobserved = shards.filter((s) => !s.observed).map((s) => s.shard);
  if (unobserved.length)
    return {
      kind: 'wait',
      reason: `the StatefulSet controller has not observed shard(s) ${unobserved.join(', ')} yet`,
      progress: progress(),
    };

  // A pod of the new revision that cannot run it stops the roll: a bad image costs one pod.
  for (const { s, p } of all) {
    if (!current(s, p) || p.terminating) continue;
    if (p.node.state === 'rejected')
      return { kind: 'held', pod: p.pod, reason: `pod ${p.pod} of the new revision runs ${p.node.found}`, progress: progress(p.pod) };
    if (p.containerProblem !== undefined) return { kind: 'held', pod: p.pod, reason: p.containerProblem, progress: progress(p.pod) };
  }

  // A pod of an older revision that cannot run it (its container exits at start-up, or its binary
  // is refused) or that the scheduler cannot place serves nothing, and waiting for the cluster to
  // be whole would wait on it for ever: it is replaced first. This is how a bad image's one pod
  // goes once git reverts the image or fixes it forward, and how the one Pending pod of a
  // placement no node satisfies (e.g. nodeSpread `required` on too few nodes) goes once git
  // reverts the placement. Such a pod never ran there, so it holds no data.
  for (const { s, p } of all) {
    if (!outdated(s, p) || p.terminating) continue;
    const why =
      p.node.state === 'rejected'
        ? `it runs ${p.node.found}`
        : (p.containerProblem ?? (p.unschedulable !== undefined ? `the scheduler cannot place it: ${p.unschedulable}` : undefined));
    if (why !== undefined) return { kind: 'evict', pod: p.pod, role: 'broken', why, progress: progress(p.pod) };
  }

  if (!rollUnderWay(shards) && !input.mayStart)
    return { kind: 'wait', reason: 'waiting for a roll slot (--max-concurrent-rolls)', progress: progress() };

  const problems = notWhole(input);
  if (problems.length)
    return { kind: 'wait', reason: `waiting until the cluster is whole: ${problems.slice(0, 3).join('; ')}`, progress: progress() };

  const inShard = [...rolling.pods].sort((a, b) => a.ordinal - b.ordinal);
  const role = (p: RollPod) => (p.node.state === 'answered' ? p.node.role : undefined);
  const staleReplica = inShard.find((p) => outdated(rolling, p) && role(p) === 'replica');
  if (staleReplica) return { kind: 'evict', pod: staleReplica.pod, role: 'replica', progress: progress(staleReplica.pod) };

  const primary = inShard.find((p) => role(p) === 'primary');
  if (!primary || !outdated(rolling, primary))
    return { kind: 'wait', reason: `shard ${rolling.shard} has no primary to roll yet`, progress: progress() };
  const replicas = inShard.filter((p) => role(p) === 'replica');
  if (replicas.length === 0) {
    if (!rolling.allowDataLoss)
      return {
        kind: 'held',
        pod: primary.pod,
        reason: `shard ${rolling.shard} has no replica: rolling ${primary.pod} would lose its data; the roll waits for the opt-in annotation`,
        progress: progress(primary.pod),
      };
    return { kind: 'evict', pod: primary.pod, role: 'primary', progress: progress(primary.pod) };
  }
  const successor = replicas.find((p) => current(rolling, p) && p.node.state === 'answered' && p.node.inSync);
  if (!successor)
    return {
      kind: 'wait',
      reason: `shard ${rolling.shard} has no in-sync replica of the new revision yet`,
      progress: progress(primary.pod),
    };
  return { kind: 'failover', on: successor.pod, from: primary.pod, progress: progress(primary.pod) };
}

/** "rolling shard 1 of 3, pod sessions-1-2, 4 of 9 pods done". */
export function describeProgress(p: RollProgress): string {
  return `rolling shard ${p.shard + 1} of ${p.shards}${p.pod ? `, pod ${p.pod}` : ''}, ${p.podsDone} of ${p.podsTotal} pods done`;
}
