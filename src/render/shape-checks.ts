import { valkeyMemoryBytes } from '../api/contract/valkey-memory.js';
import { error, quantityValue, valkeyRef, warning, type Problem, type ValkeyCluster } from '../api/index.js';
import { canonicalSettingName } from '../api/valkey-table.js';
import type { MergedChain } from '../menu/resolve.js';

/**
 * Settings whose effect depends on the cluster's shape (replicas, shards, the container's memory
 * and CPU), checked per cluster (issue 32): a value that starts fine can still make this cluster
 * refuse work, or get its pods killed. Errors where the cluster cannot work as rendered, warnings
 * where it works until something ordinary happens (a roll, a full sync, a busy day). Each finding
 * names the cluster, the setting, the config that set it and the way out. plan reports a warning
 * the change brings as a risk of the cluster (src/plan/compare-cluster.ts).
 */
export function shapeFindings(cluster: ValkeyCluster, config: MergedChain & { name: string }): Problem[] {
  const settings = new Map<string, { key: string; value: string; from: string }>();
  for (const [key, value] of Object.entries(config.valkey))
    settings.set(canonicalSettingName(key), { key, value: value.trim(), from: config.valkeyFrom[key] ?? config.name });
  const shape: Shape = {
    cluster,
    settings,
    who: `ValkeyCluster ${cluster.metadata.namespace}/${cluster.metadata.name}`,
    ref: valkeyRef('ValkeyCluster', cluster.metadata.name, cluster.metadata.namespace),
    memory: config.resources.memory,
    cpu: config.resources.cpu,
  };
  return [
    ...minReplicasToWrite(shape),
    ...fullCoverage(shape),
    ...replicaNoFailover(shape),
    ...memoryHeadroom(shape),
    ...maxClients(shape),
    ...ioThreads(shape),
  ];
}

interface Shape {
  cluster: ValkeyCluster;
  settings: ReadonlyMap<string, { key: string; value: string; from: string }>;
  who: string;
  ref: ReturnType<typeof valkeyRef>;
  memory: string | number | undefined;
  cpu: string | number | undefined;
}

const described = (s: { key: string; value: string; from: string }) => `${s.key} ${s.value} (ValkeyConfig ${s.from})`;
const wholeNumber = (v: string): number | undefined => (/^(0|[1-9][0-9]{0,15})$/.test(v) ? Number(v) : undefined);
const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)}Mi`;

/**
 * `min-replicas-to-write` above `replicasPerShard` refuses every write (NOREPLICAS) for good; equal
 * to it, writes are refused whenever one replica of a shard is down or behind (each step of a
 * roll, a lost node). Valkey enforces it only while `min-replicas-max-lag` is not 0.
 */
function minReplicasToWrite({ cluster, settings, who, ref }: Shape): Problem[] {
  const min = settings.get('min-replicas-to-write');
  if (!min || settings.get('min-replicas-max-lag')?.value === '0') return [];
  const wanted = wholeNumber(min.value);
  const replicas = cluster.spec.replicasPerShard;
  if (wanted === undefined || wanted === 0 || wanted < replicas) return [];
  if (wanted > replicas)
    return [
      error(
        `${who}: spec.replicasPerShard: ${replicas} replica(s) per shard, but ${described(min)} makes each primary refuse every write until ${wanted} replica(s) acknowledge it, which this cluster never has (NOREPLICAS); set replicasPerShard to ${wanted} or more, or lower min-replicas-to-write to at most ${Math.max(replicas - 1, 0)} in the config`,
        ref,
        'spec.replicasPerShard',
      ),
    ];
  return [
    warning(
      `${who}: spec.replicasPerShard: ${replicas} replica(s) per shard and ${described(min)}: a shard refuses writes (NOREPLICAS) whenever one of its replicas is down or behind, which every roll does a replica at a time and a lost node does too; keep min-replicas-to-write below replicasPerShard`,
      ref,
      'spec.replicasPerShard',
    ),
  ];
}

/** A bool setting as the config leaves it: its value, else Valkey 9.1.2's default (CONFIG GET on a fresh server). */
const flag = (settings: Shape['settings'], name: string, byDefault: 'yes' | 'no') => {
  const s = settings.get(name);
  return { on: (s?.value.toLowerCase() ?? byDefault) === 'yes', shown: s ? described(s) : `${name} ${byDefault} (Valkey's default)` };
};

/**
 * `cluster-require-full-coverage yes` (Valkey's default) makes every node refuse every command
 * (CLUSTERDOWN) while any slot has no serving primary. Without replicas a shard's slots have no one
 * to fail over to, so one pod restarting (a roll, an OOM kill, a drained node) takes the whole
 * cluster down for as long as that pod is away, not only its shard. The trade-off is a choice, so a
 * warning: `no` keeps the other shards serving while clients get errors for the missing slots.
 */
function fullCoverage({ cluster, settings, who, ref }: Shape): Problem[] {
  const coverage = flag(settings, 'cluster-require-full-coverage', 'yes');
  if (!coverage.on || cluster.spec.replicasPerShard > 0 || cluster.spec.shards < 2) return [];
  return [
    warning(
      `${who}: spec.replicasPerShard: 0 replicas with ${coverage.shown}: while any one pod is away (a roll, an OOM kill, a drained node) its slots have no primary, and every node refuses every command (CLUSTERDOWN), so all ${cluster.spec.shards} shards stop, not one; set cluster-require-full-coverage no in the config to keep the other shards serving (clients then get errors only for the missing slots' keys), or set replicasPerShard to 1 or more`,
      ref,
      'spec.replicasPerShard',
    ),
  ];
}

/**
 * `cluster-replica-no-failover yes` stops replicas from failing over when their primary fails: its
 * slots stay down until that pod is back (a manual CLUSTER FAILOVER, as rolls send, still works),
 * so the replicas this cluster pays for do not keep it available.
 */
function replicaNoFailover({ cluster, settings, who, ref }: Shape): Problem[] {
  const noFailover = flag(settings, 'cluster-replica-no-failover', 'no');
  if (!noFailover.on || cluster.spec.replicasPerShard === 0) return [];
  return [
    warning(
      `${who}: spec.replicasPerShard: ${cluster.spec.replicasPerShard} replica(s) per shard with ${noFailover.shown}: a replica never takes over when its primary fails, so that shard's slots stay down until the pod is back (and with cluster-require-full-coverage yes, the whole cluster); rolls still fail over by hand, nothing else does; remove cluster-replica-no-failover from the config unless that is the intent`,
      ref,
      'spec.replicasPerShard',
    ),
  ];
}

/** Valkey 9.1.2's defaults for the replication buffers (CONFIG GET on a fresh server). */
const DEFAULT_REPL_BACKLOG = 10 * 2 ** 20;
const DEFAULT_REPLICA_HARD_LIMIT = 256 * 2 ** 20;

/** The replica class's hard limit in a client-output-buffer-limit value, in bytes, when it sets one. */
function replicaHardLimit(value: string | undefined): number | undefined {
  const words = (value ?? '').split(/\s+/);
  for (let i = 0; i + 3 < words.length; i += 4)
    if (['replica', 'slave'].includes((words[i] as string).toLowerCase())) return valkeyMemoryBytes(words[i + 1] as string);
  return undefined;
}

/**
 * `maxmemory` bounds the dataset, not the process: at or above the container's memory limit the
 * pod is OOM-killed before Valkey evicts or refuses a write. A primary with replicas also holds the
 * replication buffer (the backlog, and what a syncing replica has not read yet, up to the replica
 * class's hard output-buffer limit) outside maxmemory (Valkey does not count it there), so a limit
 * with less room above maxmemory than that is OOM-killed by a full sync under writes: a warning,
 * for clusters with replicas. The config's own 75% guidance is menu/lint.ts.
 */
function memoryHeadroom({ cluster, settings, who, ref, memory }: Shape): Problem[] {
  const max = settings.get('maxmemory');
  const limit = memory === undefined ? undefined : quantityValue(memory);
  const bytes = max ? valkeyMemoryBytes(max.value) : undefined;
  if (!max || limit === undefined || bytes === undefined || bytes === 0) return [];
  if (bytes >= limit)
    return [
      error(
        `${who}: ${described(max)} is at or above the container's memory limit ${String(memory)}: Valkey's own process, client and replication buffers and forks need memory beyond maxmemory, so each pod is OOM-killed (losing its data) before Valkey evicts or refuses a write; set maxmemory to at most 75% of resources.memory`,
        ref,
        'spec.configRef',
      ),
    ];
  if (cluster.spec.replicasPerShard === 0) return [];
  const backlog = settings.has('repl-backlog-size')
    ? (valkeyMemoryBytes(settings.get('repl-backlog-size')?.value ?? '') ?? DEFAULT_REPL_BACKLOG)
    : DEFAULT_REPL_BACKLOG;
  const cobl = settings.get('client-output-buffer-limit');
  const hard = replicaHardLimit(cobl?.value) ?? DEFAULT_REPLICA_HARD_LIMIT;
  // One shared replication buffer holds both: the larger of the two bounds it (0: no limit, then the backlog).
  const replication = Math.max(backlog, hard);
  const room = limit - bytes;
  if (room >= replication) return [];
  return [
    warning(
      `${who}: ${described(max)} leaves ${mib(room)} of the ${String(memory)} memory limit, but a primary with replicas holds up to ${mib(replication)} of replication buffer outside maxmemory (repl-backlog-size ${mib(backlog)}, a syncing replica's output buffer up to the replica hard limit ${mib(hard)}): a full sync under writes gets the pod OOM-killed; lower maxmemory, raise resources.memory, or lower the replica limit in client-output-buffer-limit`,
      ref,
      'spec.configRef',
    ),
  ];
}

/** Connections valkey-krm itself makes to one node: a liveness and a readiness probe at once, and the controller's two (a pass, a slot move). */
const OWN_CONNECTIONS = 4;

/**
 * `maxclients` counts the cluster bus links too (9.1.2: "max number of clients + cluster
 * connections reached"): each node keeps two with every other node, and a primary one per replica.
 * Below that and valkey-krm's own connections, a node refuses the controller, the probes and
 * replicas outright, and nothing reserves a connection for them. Sized for the largest shard count
 * the cluster may reach (autoscaling.maxShards).
 */
function maxClients({ cluster, settings, who, ref }: Shape): Problem[] {
  const max = settings.get('maxclients');
  const wanted = max ? wholeNumber(max.value) : undefined;
  if (!max || wanted === undefined) return [];
  const shards = Math.max(cluster.spec.shards, cluster.spec.autoscaling?.maxShards ?? 0);
  const replicas = cluster.spec.replicasPerShard;
  const pods = shards * (1 + replicas);
  const bus = 2 * (pods - 1);
  const needed = bus + replicas + OWN_CONNECTIONS;
  if (wanted >= needed) return [];
  return [
    error(
      `${who}: ${described(max)} is below what the cluster itself holds open on each node: ${bus} cluster bus links (two with each of the other ${pods - 1} pods of ${shards} shard(s)), ${replicas} replica link(s) and ${OWN_CONNECTIONS} for valkey-krm's probes and controller, ${needed} in all; Valkey counts the bus links against maxclients and reserves nothing, so nodes would refuse the controller, the probes and applications ("max number of clients + cluster connections reached"); raise maxclients well above ${needed}`,
      ref,
      'spec.configRef',
    ),
  ];
}

/**
 * `io-threads` counts the main thread: more threads than the container has CPUs make them take
 * turns under the CPU limit (CFS throttling), which slows every command instead of speeding them.
 */
function ioThreads({ settings, who, ref, cpu }: Shape): Problem[] {
  const threads = settings.get('io-threads');
  const wanted = threads ? wholeNumber(threads.value) : undefined;
  const cores = cpu === undefined ? undefined : quantityValue(cpu);
  if (!threads || wanted === undefined || wanted <= 1 || cores === undefined) return [];
  const most = Math.max(1, Math.ceil(cores));
  if (wanted <= most) return [];
  return [
    warning(
      `${who}: ${described(threads)} runs ${wanted} threads (the main thread and ${wanted - 1} I/O threads) under a CPU limit of ${String(cpu)}: they take turns and the pod is throttled, so commands get slower, not faster; set io-threads to at most ${most}, or raise resources.cpu`,
      ref,
      'spec.configRef',
    ),
  ];
}
