// Kube-world tests with an application writing through the cluster for the whole run (scaling,
// replicas down, interrupted migrations), set up the same way: the cluster's rendered objects with a
// user for iovalkey's workload (client-workload.ts writes key:<n> as "app"), the controller
// in-process on fast timings, and one command on one pod as the controller user.
import { Redis as Valkey } from 'iovalkey';
import { SYSTEM_USERNAMES } from '../../../src/api/index.js';
import type { App } from '../../../src/controller/app.js';
import { sha256 } from '../hash.js';
import { cluster, role } from '../objects.js';
import type { KubeWorld } from '../kube-world.js';
import { prepareWorld, type World } from './api-world.js';
import {
  renderClusterObjects,
  startDay2World,
  startKubeController,
  type KubeControllerOptions,
  type SystemPasswords,
} from './day2-world.js';

/**
 * The kube world these tests share: pods run Valkey 9.1.2 (as images 9.0.1 and 9.0.2) on the
 * rendered files as they are, the namespace with its replication Secret, and
 * the controller's ServiceAccount (`prepared.controllerKubeconfig`).
 */
export async function startWorkloadWorld(o: {
  namespace: string;
  replicationPassword: string;
}): Promise<{ world: KubeWorld; prepared: World }> {
  const build = { build: '9.1.2' as const };
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

/** The controller in-process (startKubeController), requeueing fast while it works and patient with MIGRATE. */
export const startWorkloadController = (o: Omit<KubeControllerOptions, 'progressMs' | 'commandMs'>): Promise<App> =>
  startKubeController({ ...o, progressMs: 100, commandMs: 5000 });

/** A connection to one pod as the controller user, not yet connected and never retrying. */
export function controllerConnection(host: string, controllerPassword: string): Valkey {
  const conn = new Valkey({
    host,
    port: 6379,
    username: SYSTEM_USERNAMES.controller,
    password: controllerPassword,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
  // A refused or lost connection reaches the caller through connect() and its commands; without a
  // listener iovalkey would also print every one as an "Unhandled error event".
  conn.on('error', () => undefined);
  return conn;
}

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
