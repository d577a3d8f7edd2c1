// Kube-world tests with an application writing through the cluster for the whole run (scaling,
// replicas down, interrupted migrations), set up the same way: the cluster's rendered objects with a
// user for iovalkey's workload (client-workload.ts writes key:<n> as "app"), the controller
// in-process on fast timings, and one command on one pod as the controller user.
import { Redis as Valkey } from 'iovalkey';
import { SYSTEM_USERNAMES } from '../../../src/api/index.js';
import type { App, AppOptions } from '../../../src/controller/app.js';
import { podEndpoint } from '../../../src/controller/main.js';
import type { Logger } from '../../../src/controller/runtime/log.js';
import type { ControllerMetrics } from '../../../src/controller/runtime/metrics.js';
import type { OpenSession } from '../../../src/controller/valkey/node-session.js';
import { sha256 } from '../hash.js';
import { cluster, role } from '../objects.js';
import type { KubeWorld } from '../kube-world.js';
import { prepareWorld, type World } from './api-world.js';
import { renderClusterObjects, startDay2World, type SystemPasswords } from './day2-world.js';
import { startInProcessApp } from './test-controller.js';

/**
 * The kube world these tests share: pods run the development build (as 9.0.1 and 9.0.2, its ACL
 * without `+cluster|syncslots`, which it predates), the namespace with its replication Secret, and
 * the controller's ServiceAccount (`prepared.controllerKubeconfig`).
 */
export async function startWorkloadWorld(o: {
  namespace: string;
  replicationPassword: string;
}): Promise<{ world: KubeWorld; prepared: World }> {
  const build = { build: 'unstable-2024-10' as const, dropSyncslotsAclRule: true };
  const world = await startDay2World({
    images: { 'valkey/valkey:9.0.1': build, 'valkey/valkey:9.0.2': build },
    configSyncDelayMs: 1_000,
    namespace: o.namespace,
    replicationPassword: o.replicationPassword,
  });
  try {
    return { world, prepared: await prepareWorld(world.api) };
  } catch (e) {
    await world.stop();
    throw e;
  }
}

export interface WorkloadPasswords extends SystemPasswords {
  /** The workload's user, `app`. */
  app: string;
}

export type RenderedObject = Record<string, unknown> & { kind: string; metadata: { name: string }; data?: Record<string, string> };

/** The workload's user: its keys, and the keyless baseline a cluster-mode client needs to find them. */
const appUserLine = (password: string): string =>
  `user app on #${sha256(password)} resetchannels ~key:* -@all +@read +@write +ping +asking +cluster|slots +cluster|nodes +cluster|shards +cluster|info +info\n`;

/** What git would hold for one cluster (rendered by the function, the workload's user added) and its ValkeyCluster. */
export function workloadClusterObjects(
  passwords: WorkloadPasswords,
  at: { name: string; namespace: string },
  spec: { shards: number; replicasPerShard: number },
): RenderedObject[] {
  const objects = renderClusterObjects<RenderedObject>(passwords, [role('reader'), cluster(at.name, spec, at.namespace)]);
  const cm = objects.find((o) => o.kind === 'ConfigMap') as RenderedObject;
  cm.data = { ...cm.data, 'users.acl': `${cm.data?.['users.acl'] ?? ''}${appUserLine(passwords.app)}` };
  return [...objects, cluster(at.name, spec, at.namespace)];
}

export interface WorkloadControllerOptions {
  controllerKubeconfig: string;
  namespace: string;
  controllerPassword: string;
  log: Logger;
  metrics: ControllerMetrics;
  /** Slots per migration step (the controller's default when absent). */
  rebalanceBatchSlots?: AppOptions['rebalanceBatchSlots'];
  /** Resync of a healthy cluster (default 2 000 ms). */
  resyncMs?: number;
  /** Wraps the production session opener (to hold migration commands, for instance). */
  wrapOpen?: (open: OpenSession) => OpenSession;
}

/** The controller in-process, dialling pod IPs as in production, requeueing fast while it works. */
export function startWorkloadController(o: WorkloadControllerOptions): Promise<App> {
  return startInProcessApp({
    kubeconfig: o.controllerKubeconfig,
    namespace: o.namespace,
    password: o.controllerPassword,
    endpointOf: podEndpoint,
    timeouts: { connectMs: 1000, commandMs: 5000 },
    ...(o.wrapOpen ? { wrapOpen: o.wrapOpen } : {}),
    tuning: {
      concurrency: 4,
      maxConcurrentRolls: 1,
      timing: { progressMs: 100, resyncMs: o.resyncMs ?? 2_000, failedResyncMs: 2_000 },
      retryBackoff: { initialMs: 300, maxMs: 3_000 },
      ...(o.rebalanceBatchSlots ? { rebalanceBatchSlots: o.rebalanceBatchSlots } : {}),
    },
    log: o.log,
    metrics: o.metrics,
  });
}

/** A connection to one pod as the controller user, not yet connected and never retrying. */
export const controllerConnection = (host: string, controllerPassword: string): Valkey =>
  new Valkey({
    host,
    port: 6379,
    username: SYSTEM_USERNAMES.controller,
    password: controllerPassword,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });

/** One command on one pod as the controller user: its reply as a string. */
export async function controllerCommand(host: string, controllerPassword: string, ...args: [string, ...string[]]): Promise<string> {
  const node = controllerConnection(host, controllerPassword);
  try {
    await node.connect();
    return String(await node.call(...args));
  } finally {
    node.disconnect();
  }
}
