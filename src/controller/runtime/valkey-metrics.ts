import { Counter, Gauge, type Registry } from 'prom-client';
import { compareStrings } from '../../api/order.js';
import { inert } from './inert.js';

/**
 * Valkey's own metrics, per pod, from what the controller's passes read (docs/monitoring.md): no
 * exporter sidecar, no connection of its own per scrape. A pass dials every pod it owns anyway
 * (INFO replication, CLUSTER INFO); when a pod's figures are due (--valkey-metrics-seconds) that
 * INFO asks the stats sections too. So a scrape shows the last pass: the replication facts are as
 * old as the cluster's last pass, the figures as valkey_stats_timestamp_seconds says, and when the
 * controller is down every series stops (ValkeyControllerDown and ValkeyControllerNoLeader cover it).
 *
 * Labels: namespace, cluster, shard, pod (and role): Kubernetes names of objects the controller
 * owns, through inert(), and closed sets; one set of series per pod, dropped with the pod or the
 * cluster (setClusterPods).
 */

/** The figures of one node's INFO the series show (valkey/node-stats.ts reads them), by name. */
export type ValkeyFigures = { readonly [K in (typeof GAUGES | typeof COUNTERS)[number][2]]?: number };

/** One pod as the per-pod series show it (reconcile/pod-facts.ts makes them from a pass). */
export interface ValkeyPodFacts {
  pod: string;
  shard: number;
  /** Its node answered this pass and passed the version check. */
  up: boolean;
  role?: 'primary' | 'replica';
  /** CLUSTER INFO's cluster_state is ok, as this node sees it. */
  clusterStateOk?: boolean;
  /** A replica's link to its primary. */
  replication?: { linkUp: boolean; syncing: boolean; lagBytes?: number };
  /** The figures of the last INFO that asked for them, and when it was answered (Unix seconds). */
  stats?: ValkeyFigures;
  statsAtSeconds?: number;
}

type PodLabel = 'cluster' | 'namespace' | 'pod' | 'shard';
type Labels<L extends string> = Record<L, string>;

const GAUGES = [
  ['valkey_memory_used_bytes', 'used_memory of INFO memory: what the node allocated.', 'usedMemoryBytes'],
  ['valkey_memory_max_bytes', 'maxmemory of INFO memory (0: no limit).', 'maxmemoryBytes'],
  ['valkey_connected_clients', 'connected_clients of INFO clients (replicas and the controller included).', 'connectedClients'],
  [
    'valkey_cluster_connections',
    'cluster_connections of INFO clients: cluster bus links, which count against maxclients with connected_clients.',
    'clusterConnections',
  ],
  [
    'valkey_clients_max',
    'maxclients of INFO clients: past connected_clients plus cluster_connections, the node refuses every new connection (the controller and the probes too).',
    'maxclients',
  ],
  ['valkey_blocked_clients', 'blocked_clients of INFO clients.', 'blockedClients'],
  ['valkey_keys', 'Keys the node holds (db0 of INFO keyspace).', 'keys'],
  [
    'valkey_replication_last_io_seconds',
    "A replica's master_last_io_seconds_ago while its link is up: seconds since its primary last sent it anything.",
    'primaryLastIoSeconds',
  ],
] as const satisfies ReadonlyArray<readonly [string, string, string]>;

const COUNTERS = [
  ['valkey_commands_processed_total', 'total_commands_processed of INFO stats (resets when the node restarts).', 'commandsProcessed'],
  ['valkey_keyspace_hits_total', 'keyspace_hits of INFO stats: key lookups that found the key.', 'keyspaceHits'],
  ['valkey_keyspace_misses_total', 'keyspace_misses of INFO stats: key lookups that found none.', 'keyspaceMisses'],
  ['valkey_evicted_keys_total', 'evicted_keys of INFO stats: keys removed to stay under maxmemory.', 'evictedKeys'],
  ['valkey_expired_keys_total', 'expired_keys of INFO stats.', 'expiredKeys'],
] as const satisfies ReadonlyArray<readonly [string, string, string]>;

/** Registers the per-pod series on `registry`; the returned setter replaces one cluster's pods (undefined: gone). */
export function valkeyPodMetrics(registry: Registry): {
  setClusterPods(cluster: string, pods: readonly ValkeyPodFacts[] | undefined): void;
  forgetAll(): void;
} {
  const registers = [registry];
  const clusters = new Map<string, readonly ValkeyPodFacts[]>();

  /** Every pod of every cluster, in a stable order, with its labels. */
  function* pods(): Generator<[Labels<PodLabel>, ValkeyPodFacts]> {
    for (const [key, list] of [...clusters].sort(([a], [b]) => compareStrings(a, b))) {
      const [namespace = '', cluster = ''] = key.split('/');
      for (const p of list)
        yield [{ cluster: inert(cluster, 253), namespace: inert(namespace, 253), pod: inert(p.pod, 253), shard: String(p.shard) }, p];
    }
  }
  const gauge = <L extends string = never>(
    name: string,
    help: string,
    value: (p: ValkeyPodFacts, set: (value: number, extra?: Labels<L>) => void) => void,
    extra: readonly L[] = [],
  ) =>
    new Gauge<PodLabel | L>({
      name,
      help,
      labelNames: ['cluster', 'namespace', 'pod', 'shard', ...extra],
      registers,
      collect() {
        this.reset();
        for (const [labels, p] of pods()) value(p, (v, more) => this.set({ ...labels, ...more } as Labels<PodLabel | L>, v));
      },
    });

  gauge('valkey_up', "1 when the pod's node answered the controller's last pass and passed its version check, else 0.", (p, set) =>
    set(p.up ? 1 : 0),
  );
  gauge(
    'valkey_role',
    "1 for the node's role as INFO replication says (primary or replica).",
    (p, set) => {
      if (p.role) set(1, { role: p.role });
    },
    ['role'] as const,
  );
  gauge('valkey_cluster_state_ok', "1 when the node's CLUSTER INFO says cluster_state:ok, 0 when it says anything else.", (p, set) => {
    if (p.clusterStateOk !== undefined) set(p.clusterStateOk ? 1 : 0);
  });
  gauge('valkey_replication_link_up', "A replica's master_link_status: 1 up, 0 down.", (p, set) => {
    if (p.replication) set(p.replication.linkUp ? 1 : 0);
  });
  gauge('valkey_replication_sync_in_progress', "A replica's master_sync_in_progress: 1 while a full sync runs.", (p, set) => {
    if (p.replication) set(p.replication.syncing ? 1 : 0);
  });
  gauge(
    'valkey_replication_lag_bytes',
    "How far a replica's replication offset is behind its primary's, both read in the same pass (bytes).",
    (p, set) => {
      if (p.replication?.lagBytes !== undefined) set(p.replication.lagBytes);
    },
  );
  for (const [name, help, field] of GAUGES)
    gauge(name, help, (p, set) => {
      const v = p.stats?.[field];
      if (v !== undefined) set(v);
    });
  gauge('valkey_stats_timestamp_seconds', 'When the INFO the figures come from was answered (Unix seconds).', (p, set) => {
    if (p.statsAtSeconds !== undefined && p.stats) set(p.statsAtSeconds);
  });
  for (const [name, help, field] of COUNTERS)
    new Counter<PodLabel>({
      name,
      help,
      labelNames: ['cluster', 'namespace', 'pod', 'shard'],
      registers,
      collect() {
        this.reset();
        for (const [labels, p] of pods()) {
          const v = p.stats?.[field];
          if (v !== undefined) this.inc(labels, v);
        }
      },
    });

  return {
    setClusterPods(cluster, list) {
      if (list) clusters.set(cluster, list);
      else clusters.delete(cluster);
    },
    forgetAll() {
      clusters.clear();
    },
  };
}
