// Day-2 work in the kube world (DESIGN §8), set up the same way by every test and benchmark that
// does it: the kube world with a namespace and its replication Secret, a cluster rendered by the
// function (the guide menu) and applied, the controller in-process as its ServiceAccount dialling
// pod IPs as production does, and a client writing through the cluster as the application user.
import { SYSTEM_USERNAMES, renderConfigSpec } from '../../../src/api/index.js';
import type { App } from '../../../src/controller/app.js';
import { podEndpoint } from '../../../src/controller/main.js';
import type { Logger } from '../../../src/controller/runtime/log.js';
import type { ControllerMetrics } from '../../../src/controller/runtime/metrics.js';
import type { OpenSession } from '../../../src/controller/valkey/node-session.js';
import { renderAll } from '../../../src/render/render-all.js';
import { sha256 } from '../hash.js';
import { startKubeWorld, type KubeWorld } from '../kube-world.js';
import type { KubeletOptions } from '../kubelet.js';
import { guideMenu } from '../objects.js';
import { waitFor } from '../process.js';
import { rawCommand } from '../servers.js';
import { ClusterWriter } from './cluster-writer.js';
import { startInProcessApp, type ControllerTuning, type InProcessAppOptions } from './test-controller.js';
import { SHIPPED_NODE_TIMEOUT_MS, SHIPPED_RETRY_BACKOFF, SHIPPED_TIMING } from '../../../src/controller/shipped-defaults.js';

/** The system users' passwords a rendered cluster's users.acl hashes. */
export interface SystemPasswords {
  replication: string;
  controller: string;
}

export interface Day2WorldOptions {
  images: KubeletOptions['images'];
  /** Delay before a ConfigMap/Secret change shows in the pods' files. */
  configSyncDelayMs: number;
  namespace: string;
  replicationPassword: string;
  /** Other objects applied with the replication Secret (a TLS Secret, for instance). */
  secrets?: readonly unknown[];
  /** What makes a pod Ready (KubeletOptions.readiness; default a PING). */
  readiness?: KubeletOptions['readiness'];
}

/**
 * The kube world (fast probes) with one namespace holding the replication Secret the rendered pods
 * read; stopped again if any of that fails.
 */
export async function startDay2World(o: Day2WorldOptions): Promise<KubeWorld> {
  const world = await startKubeWorld({
    images: o.images,
    configSyncDelayMs: o.configSyncDelayMs,
    probePeriodMs: 300,
    ...(o.readiness ? { readiness: o.readiness } : {}),
  });
  try {
    await world.createNamespace(o.namespace);
    await world.apply([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'valkey-replication', namespace: o.namespace },
        stringData: { password: o.replicationPassword },
      },
      ...(o.secrets ?? []),
    ]);
    return world;
  } catch (e) {
    await world.stop();
    throw e;
  }
}

/** What the function renders for the guide menu plus `resources` (roles, one cluster): that cluster's objects. */
export function renderClusterObjects<T = Record<string, unknown>>(passwords: SystemPasswords, resources: readonly unknown[]): T[] {
  const renderConfig = renderConfigSpec().parse({
    systemUsers: {
      replication: { passwordHash: sha256(passwords.replication) },
      controller: { passwordHash: sha256(passwords.controller) },
    },
  });
  const result = renderAll([...guideMenu(), ...resources], renderConfig);
  const objects = result.clusters[0]?.objects;
  if (objects === undefined) throw new Error(`render failed: ${JSON.stringify(result.problems)}`);
  return objects as unknown as T[];
}

/** The application user's users.acl line, as a ValkeyCluster's acl would render it: the test writes as this user. */
export const appUserAcl = (passwords: readonly string[]): string =>
  `user app on ${passwords.map((p) => `#${sha256(p)}`).join(' ')} resetchannels ~app:* -@all +@read +@write +ping\n`;

export interface KubeControllerOptions {
  controllerKubeconfig: string;
  namespace: string;
  /** Derive each namespace's controller password from this key (controllerPassword is then unused). */
  controllerKey?: string;
  /** Watch these namespaces instead of `namespace` alone. */
  namespaces?: readonly string[];
  controllerPassword: string;
  /**
   * Watch every namespace, as shipped (deploy/controller): the controller then reads Nodes (leader
   * placement, the drain handover, takeovers judged by Node state). Default: `namespace` only, as a
   * namespaced install.
   */
  clusterWide?: boolean;
  /** Lease-based leader election, as the shipped Deployment's two replicas run (default off: it leads at once). */
  leaderElection?: InProcessAppOptions['leaderElection'];
  log: Logger;
  metrics: ControllerMetrics;
  /** Clusters reconciled at once (default 4). */
  concurrency?: number;
  /** Resync of a healthy cluster (default 2 000 ms). */
  resyncMs?: number;
  /** Requeue while the controller has work in progress (default 300 ms). */
  progressMs?: number;
  /** Per-command timeout on a node (default 2 000 ms). */
  commandMs?: number;
  /** Slots per migration step (the controller's default when absent). */
  rebalanceBatchSlots?: number;
  /** `classic`: the controller never takes the atomic slot migration path (--slot-migration). */
  slotMigration?: 'auto' | 'classic';
  /** Wraps the production session opener (to hold migration commands, for instance). */
  wrapOpen?: (open: OpenSession) => OpenSession;
  /** How often an autoscaled cluster is sampled (--autoscale-sample-seconds; the controller's 30 s when absent). */
  sampleIntervalMs?: number;
  /** How often each pod's Valkey metrics are read (--valkey-metrics-seconds; the shipped 15 s when absent). */
  valkeyMetricsMs?: number;
  /** Serve /healthz, /readyz and /metrics here (port 0: any free one); absent: no listener. */
  http?: { host: string; port: number };
  /** Usage metering on (off unless given). */
  metering?: ControllerTuning['metering'];
}

/**
 * The controller in-process with the shipped controller's timings, retry backoff and node timeout
 * (src/controller/shipped-defaults.ts) and its default step sizes: for tests whose figures say how
 * fast the product is.
 */
export function startShippedController(
  o: Omit<KubeControllerOptions, 'progressMs' | 'resyncMs' | 'commandMs' | 'rebalanceBatchSlots'>,
): Promise<App> {
  return startInProcessApp({
    kubeconfig: o.controllerKubeconfig,
    ...(o.namespaces ? { namespaces: o.namespaces } : { namespace: o.namespace }),
    password: o.controllerPassword,
    ...(o.controllerKey ? { controllerKey: o.controllerKey } : {}),
    endpointOf: podEndpoint,
    timeouts: { connectMs: SHIPPED_NODE_TIMEOUT_MS, commandMs: SHIPPED_NODE_TIMEOUT_MS },
    ...(o.wrapOpen ? { wrapOpen: o.wrapOpen } : {}),
    tuning: {
      concurrency: o.concurrency ?? 4,
      maxConcurrentRolls: 1,
      timing: SHIPPED_TIMING,
      retryBackoff: SHIPPED_RETRY_BACKOFF,
      ...(o.sampleIntervalMs ? { sampleIntervalMs: o.sampleIntervalMs } : {}),
    },
    log: o.log,
    metrics: o.metrics,
  });
}

/** The controller in-process on day-2 timings, dialling pods at their IP:6379 as in production. */
export function startKubeController(o: KubeControllerOptions): Promise<App> {
  const tuning: ControllerTuning = {
    concurrency: o.concurrency ?? 4,
    maxConcurrentRolls: 1,
    timing: { progressMs: o.progressMs ?? 300, resyncMs: o.resyncMs ?? 2_000, failedResyncMs: 2_000 },
    retryBackoff: { initialMs: 300, maxMs: 3_000 },
    ...(o.rebalanceBatchSlots ? { rebalanceBatchSlots: o.rebalanceBatchSlots } : {}),
    ...(o.slotMigration ? { slotMigration: o.slotMigration } : {}),
    ...(o.valkeyMetricsMs ? { valkeyMetricsMs: o.valkeyMetricsMs } : {}),
    ...(o.metering ? { metering: o.metering } : {}),
  };
  return startInProcessApp({
    kubeconfig: o.controllerKubeconfig,
    ...(o.clusterWide ? {} : { namespace: o.namespace }),
    password: o.controllerPassword,
    endpointOf: podEndpoint,
    timeouts: { connectMs: 1000, commandMs: o.commandMs ?? 2000 },
    ...(o.wrapOpen ? { wrapOpen: o.wrapOpen } : {}),
    tuning,
    log: o.log,
    metrics: o.metrics,
    ...(o.http ? { http: o.http } : {}),
    ...(o.leaderElection ? { leaderElection: o.leaderElection } : {}),
  });
}

export interface AppWriterOptions {
  /** The pod IPs to discover the cluster from. */
  podIps: () => Promise<string[]>;
  controllerPassword: string;
  appPassword: string;
  shards: number;
  prefix: string;
}

/** A client writing through the cluster as the application user, checking as the controller user. */
export const appWriter = (o: AppWriterOptions): ClusterWriter =>
  new ClusterWriter({
    seeds: o.podIps,
    admin: { username: SYSTEM_USERNAMES.controller, password: o.controllerPassword },
    app: { username: 'app', password: o.appPassword },
    shards: o.shards,
    prefix: o.prefix,
  });

/** CONFIG GET maxmemory on a pod as the controller user: the whole reply. */
export const maxmemoryOf = (ip: string, controllerPassword: string): Promise<string> =>
  rawCommand(
    6379,
    [
      ['AUTH', SYSTEM_USERNAMES.controller, controllerPassword],
      ['CONFIG', 'GET', 'maxmemory'],
    ],
    {
      host: ip,
      done: (r) => r.startsWith('-') || /maxmemory\r\n\$\d+\r\n[^\r]*\r\n$/.test(r),
    },
  );

/** JSON from the kube world's API server; an answer outside 2xx throws with the path and body. */
export async function apiJson<T>(world: KubeWorld, method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const res = await world.api.request(method, path, body, contentType ? { 'Content-Type': contentType } : undefined);
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as T;
}

/** Waits until the ValkeyCluster `namespace/name` reports Active (default: 3 minutes, a first formation on a busy machine). */
export async function waitClusterActive(world: KubeWorld, namespace: string, name: string, timeoutMs = 180_000): Promise<void> {
  const path = `/apis/valkey.gomomento.com/v1alpha1/namespaces/${namespace}/valkeyclusters/${name}`;
  await waitFor(
    `${namespace}/${name} Active`,
    async () => (await apiJson<{ status?: { state?: string } }>(world, 'GET', path)).status?.state === 'Active',
    {
      timeoutMs,
      intervalMs: 250,
    },
  );
}

/** The pods the StatefulSets of one rendered cluster made. */
export const clusterPods = async <P>(world: KubeWorld, namespace: string, cluster: string): Promise<P[]> =>
  (
    await apiJson<{ items: P[] }>(
      world,
      'GET',
      `/api/v1/namespaces/${namespace}/pods?labelSelector=valkey.gomomento.com/cluster=${cluster}`,
    )
  ).items;

/** A kube-world test's teardown: the controller, its log when VALKEY_KRM_TEST_LOGS=1, then the world. */
export async function stopControllerAndWorld(app: App | undefined, logs: readonly string[], world: KubeWorld | undefined): Promise<void> {
  await app?.stop();
  if (process.env.VALKEY_KRM_TEST_LOGS === '1') process.stderr.write(logs.join(''));
  await world?.stop();
}
