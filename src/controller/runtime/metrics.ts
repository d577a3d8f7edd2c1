import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PACKAGE_VERSION } from '../../api/index.js';
import { STATE } from '../../api/status-names.js';
import { compareStrings } from '../../api/order.js';
import { inert } from './inert.js';
import { valkeyPodMetrics } from './valkey-metrics.js';

/**
 * Every metric the controller exports (docs/controller.md lists them), on a prom-client registry:
 * the controller's own counters and gauges, the latency of reconcile passes and of node commands,
 * and prom-client's default process, heap, GC and event-loop metrics. Labels are always passed in
 * alphabetical order: prom-client prints a series' labels in the order of its first update.
 */
export function controllerMetrics(registry = new Registry()) {
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers });

  const nodesByCluster = new Map<string, readonly string[]>();
  new Gauge<'version'>({
    name: 'valkey_status_sync_nodes',
    help: 'Nodes of all clusters by the version they run (not-valkey, unknown when unreachable, unparseable when not X.Y.Z).',
    labelNames: ['version'],
    registers,
    collect() {
      const counts = new Map<string, number>();
      for (const versions of nodesByCluster.values()) for (const v of versions) counts.set(v, (counts.get(v) ?? 0) + 1);
      this.reset();
      for (const [version, n] of [...counts].sort(([a], [b]) => compareStrings(a, b))) this.set({ version }, n);
    },
  });

  new Gauge<'version'>({
    name: 'valkey_status_sync_build_info',
    help: 'Always 1; the version label is the release this controller was built from (package.json, the image label, --version).',
    labelNames: ['version'],
    registers,
  }).set({ version: PACKAGE_VERSION }, 1);

  const nodeCommandSeconds = new Histogram<'command'>({
    name: 'valkey_status_sync_node_command_duration_seconds',
    help: 'Round trip of each command sent to a Valkey node (a reply, or an error reply), by command.',
    labelNames: ['command'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });

  // What the last pass wrote to each cluster's status, for the per-cluster gauges below (one pass
  // refreshes one cluster; a cluster that is gone is forgotten). Names and namespaces are
  // Kubernetes names (DNS labels), states, conditions and health values closed sets: labels stay
  // inert and bounded.
  const clusters = new Map<string, ClusterFacts>();
  const perCluster = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    each: (facts: ClusterFacts, set: (labels: Partial<Record<L, string>>, value: number) => void) => void,
  ) =>
    new Gauge<'cluster' | 'namespace' | L>({
      name,
      help,
      labelNames: ['cluster', 'namespace', ...labelNames],
      registers,
      collect() {
        this.reset();
        for (const [key, facts] of [...clusters].sort(([a], [b]) => compareStrings(a, b))) {
          const [namespace = '', cluster = ''] = key.split('/');
          const named = { cluster: inert(cluster, 253), namespace: inert(namespace, 253) };
          each(facts, (labels, value) => this.set({ ...named, ...labels } as Record<'cluster' | 'namespace' | L, string>, value));
        }
      },
    });
  perCluster(
    'valkey_status_sync_cluster_state',
    "Each ValkeyCluster's state: 1 for the state its status says, 0 for the others.",
    ['state'],
    (f, set) => {
      for (const state of Object.values(STATE)) set({ state }, f.state === state ? 1 : 0);
    },
  );
  perCluster(
    'valkey_status_sync_cluster_condition',
    "Each ValkeyCluster's status conditions: 1 while True, 0 while False (Unknown is left out).",
    ['condition'],
    (f, set) => {
      for (const c of f.conditions) if (c.status !== 'Unknown') set({ condition: c.type }, c.status === 'True' ? 1 : 0);
    },
  );
  perCluster(
    'valkey_status_sync_cluster_nodes',
    'Pods of each ValkeyCluster by health as status.nodes says (online, loading, failed, unreachable, pending) and role.',
    ['health', 'role'],
    (f, set) => {
      for (const [label, n] of f.nodes) {
        const [health = '', role = ''] = label.split('/');
        set({ health, role }, n);
      }
    },
  );
  perCluster(
    'valkey_status_sync_replicas_not_in_sync',
    'Replicas of each ValkeyCluster whose link to their primary is down or still syncing, as INFO replication says.',
    [],
    (f, set) => set({}, f.replicasNotInSync),
  );
  perCluster(
    'valkey_status_sync_certificate_expiry_timestamp_seconds',
    "When the tls.crt of a TLS ValkeyCluster's Secret expires (Unix seconds).",
    [],
    (f, set) => {
      if (f.certificateNotAfterSeconds !== undefined) set({}, f.certificateNotAfterSeconds);
    },
  );
  perCluster(
    'valkey_status_sync_autoscale_held_at_max',
    'Autoscaled ValkeyClusters: 1 while a primary passes a scale-out threshold and spec.autoscaling.maxShards stops the autoscaler, else 0.',
    [],
    (f, set) => {
      if (f.autoscale) set({}, f.autoscale.heldAtMax ? 1 : 0);
    },
  );
  perCluster(
    'valkey_status_sync_autoscale_window_seconds',
    "Autoscaled ValkeyClusters: the scale-in window's length (kind=length) and how much of it the samples cover (kind=held); no decision is taken until the two are equal.",
    ['kind'],
    (f, set) => {
      const t = f.autoscale?.timers;
      if (!t) return;
      set({ kind: 'length' }, t.windowSeconds);
      set({ kind: 'held' }, t.windowHeldSeconds);
    },
  );
  perCluster(
    'valkey_status_sync_autoscale_cooldown_end_timestamp_seconds',
    'Autoscaled ValkeyClusters: when the cooldown that holds each direction ends (Unix seconds; 0 when none holds it). A scale-in waits for the scale-out cooldown too.',
    ['direction'],
    (f, set) => {
      const t = f.autoscale?.timers;
      if (!t) return;
      set({ direction: 'ScaleOut' }, t.scaleOutCooldownEndsSeconds ?? 0);
      set({ direction: 'ScaleIn' }, t.scaleInCooldownEndsSeconds ?? 0);
    },
  );
  perCluster(
    'valkey_status_sync_autoscale_shards',
    "Autoscaled ValkeyClusters: the shards git runs (current), the autoscaler's proposal (desired) and spec.autoscaling's bounds (min, max).",
    ['kind'],
    (f, set) => {
      if (!f.autoscale) return;
      set({ kind: 'current' }, f.autoscale.current);
      set({ kind: 'desired' }, f.autoscale.desired);
      set({ kind: 'min' }, f.autoscale.min);
      set({ kind: 'max' }, f.autoscale.max);
    },
  );

  const dataLost = new Set<string>();
  new Gauge({
    name: 'valkey_status_sync_data_lost_clusters',
    help: 'ValkeyClusters whose DataLost condition is True: slots were given to a node holding none of their keys, not acknowledged yet.',
    registers,
    collect() {
      this.set(dataLost.size);
    },
  });

  const pods = valkeyPodMetrics(registry);

  return {
    registry,
    /** Valkey's own per-pod series of one cluster, from its last pass (runtime/valkey-metrics.ts); undefined when it is gone. */
    setClusterPods: pods.setClusterPods,
    /**
     * A replica that stops leading forgets every cluster: the new leader's series are the fleet's,
     * and a standby that kept its last ones would count every cluster twice in a sum.
     */
    forgetClusters(): void {
      nodesByCluster.clear();
      clusters.clear();
      dataLost.clear();
      pods.forgetAll();
    },
    /** Whether a cluster's DataLost condition is True now (the gauge counts those clusters). */
    setDataLost(cluster: string, lost: boolean): void {
      if (lost) dataLost.add(cluster);
      else dataLost.delete(cluster);
    },
    slotsLost: counter(
      'valkey_status_sync_slots_lost_total',
      'Slots given to a node that holds none of their keys on a cluster that had run (every copy of them was lost).',
    ),
    takeoversWithoutVote: counter(
      'valkey_status_sync_takeovers_without_vote_total',
      'CLUSTER FAILOVER TAKEOVER sent because a majority of the primaries was lost and Kubernetes held the dead primary gone.',
    ),
    reconciles: counter('valkey_status_sync_reconciles_total', 'Reconcile passes, by kind (cluster, images) and result (ok, error).', [
      'kind',
      'result',
    ]),
    reconcileErrors: counter('valkey_status_sync_reconcile_errors_total', 'Errors met while reconciling, by kind (node, formation, api).', [
      'kind',
    ]),
    statusWrites: counter(
      'valkey_status_sync_status_writes_total',
      'Status patches written to ValkeyClusters (unchanged status is never written).',
    ),
    formationActions: counter(
      'valkey_status_sync_formation_actions_total',
      'Cluster commands sent to form or heal clusters, by action and result.',
      ['action', 'result'],
    ),
    finalizerWrites: counter('valkey_status_sync_finalizer_writes_total', 'ValkeyImage finalizers added or released, by action.', [
      'action',
    ]),
    watchErrors: counter(
      'valkey_status_sync_watch_errors_total',
      'List/watch failures, by resource, phase and reason (gone: 410, the informer relists; error: retried with backoff).',
      ['phase', 'reason', 'resource'],
    ),
    leader: new Gauge({ name: 'valkey_status_sync_leader', help: '1 while this replica holds the leader Lease.', registers }),
    reconcileSeconds: new Histogram<'kind' | 'result'>({
      name: 'valkey_status_sync_reconcile_duration_seconds',
      help: 'Duration of one reconcile pass, by kind (cluster, images) and result (ok, error).',
      labelNames: ['kind', 'result'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    nodeCommandSeconds,
    rollSteps: counter(
      'valkey_status_sync_roll_steps_total',
      'Steps of failover-first rolls, by step (evict, failover) and result (ok, refused, error).',
      ['result', 'step'],
    ),
    rolls: counter('valkey_status_sync_rolls_total', 'Rolls that finished or were held, by outcome (finished, held).', ['outcome']),
    rollSeconds: new Histogram({
      name: 'valkey_status_sync_roll_duration_seconds',
      help: 'Duration of a finished roll of one cluster, from the first step to every pod on the new revision.',
      buckets: [10, 30, 60, 120, 300, 600, 1200, 3600, 7200],
      registers,
    }),
    failovers: counter('valkey_status_sync_failovers_total', 'Graceful CLUSTER FAILOVERs sent for rolls, by result (ok, error, timeout).', [
      'result',
    ]),
    failoverSeconds: new Histogram({
      name: 'valkey_status_sync_failover_duration_seconds',
      help: 'From CLUSTER FAILOVER to the replica reporting itself primary.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    liveApplies: counter(
      'valkey_status_sync_live_applies_total',
      'Live changes carried out on nodes, by kind (config: one CONFIG SET; acl: one ACL LOAD that loaded the intended file; tls: one certificate reload).',
      ['kind'],
    ),
    reloadFailures: counter(
      'valkey_status_sync_reload_failures_total',
      'Live changes that failed on a node, by kind (config, acl, tls); each is retried with backoff.',
      ['kind'],
    ),
    reloadSeconds: new Histogram<'kind'>({
      name: 'valkey_status_sync_reload_duration_seconds',
      help: 'Time to bring one node to the ConfigMap (compare and apply), by kind (config, acl, tls).',
      labelNames: ['kind'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    slotsMoved: counter('valkey_status_sync_slots_moved_total', 'Hash slots handed from one shard primary to another by rebalancing.'),
    keysMoved: counter('valkey_status_sync_keys_moved_total', 'Keys moved with MIGRATE while rebalancing slots.'),
    slotRepairs: counter(
      'valkey_status_sync_slot_repairs_total',
      'Slots an interrupted migration left marked, settled by resolution (finish, rollback) and result (ok, error).',
      ['resolution', 'result'],
    ),
    migrationSteps: counter(
      'valkey_status_sync_migration_steps_total',
      'Rebalance steps (one bounded batch of slots), by result (ok, error).',
      ['result'],
    ),
    migrationSeconds: new Histogram({
      name: 'valkey_status_sync_migration_step_duration_seconds',
      help: 'Duration of one rebalance step: one bounded batch of slots moved from one primary to another.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    /** For the node sessions: their command names are a closed set (valkey/node-session.ts). */
    timeNodeCommand(command: string, seconds: number): void {
      nodeCommandSeconds.observe({ command }, seconds);
    },
    /** What a pass wrote to a cluster's status, for the per-cluster gauges; undefined when the cluster is gone. */
    setClusterStatus(cluster: string, facts: ClusterFacts | undefined): void {
      if (facts) clusters.set(cluster, facts);
      else clusters.delete(cluster);
    },
    autoscaleDecisions: counter(
      'valkey_status_sync_autoscale_decisions_total',
      'Shard counts the autoscaler proposed, by decision (ScaleOut, ScaleIn); git carries each out.',
      ['decision'],
    ),
    /** Remember the versions a cluster's nodes run (or `not-valkey`, `unknown`) for the nodes gauge. */
    setClusterVersions(cluster: string, versions: readonly string[] | undefined): void {
      if (versions) nodesByCluster.set(cluster, versions.map(versionLabel));
      else nodesByCluster.delete(cluster);
    },
  };
}

export type ControllerMetrics = ReturnType<typeof controllerMetrics>;

/** One cluster's status, as the per-cluster gauges read it (clusterFacts makes it from a pass). */
/** The autoscaler's clocks (cluster/autoscale.ts autoscaleTimers): the window's length and cover, each direction's cooldown end (Unix s). */
export interface AutoscaleClocks {
  windowSeconds: number;
  windowHeldSeconds: number;
  scaleOutCooldownEndsSeconds?: number;
  scaleInCooldownEndsSeconds?: number;
}

export interface ClusterFacts {
  state: string | undefined;
  conditions: ReadonlyArray<{ type: string; status: string }>;
  /** Pods by `health/role`. */
  nodes: ReadonlyMap<string, number>;
  replicasNotInSync: number;
  certificateNotAfterSeconds?: number;
  autoscale?: { current: number; desired: number; min: number; max: number; heldAtMax?: boolean; timers?: AutoscaleClocks };
}

/**
 * A version as a metric label: a node says its version (INFO server), and a label is a closed,
 * inert set, so anything but `X.Y.Z` (or our own words) is `unparseable` — no escape sequence and
 * no unbounded series from a node that makes up a version per pass.
 */
export const versionLabel = (version: string): string =>
  /^\d{1,5}\.\d{1,5}\.\d{1,5}$/.test(version) || version === 'not-valkey' || version === 'unknown' ? version : 'unparseable';
