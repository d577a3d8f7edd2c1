// The lifecycle every controller integration file shares: one prepared API server per file, and
// every server a test records in `servers` stopped afterwards, even when a test fails.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll } from 'vitest';
import { kubeClientFromConfig, type KubeClient } from '../../../src/controller/kube/client.js';
import { ensureTools, startApiServer, type ApiServer } from '../apiserver.js';
import { createNamespaces } from '../namespaces.js';
import { prepareWorld, type World } from './api-world.js';
import { EndpointBook, startNode, startPod, type NodeServer } from './nodes.js';

export interface KubeSuite {
  /** Set in beforeAll: read them inside tests, not at collection time. */
  api: ApiServer;
  world: World;
  servers: NodeServer[];
}

/** One API server per file, prepared with the controller's install as shipped (cluster-wide unless told). */
export function useKubeWorld(o: Parameters<typeof prepareWorld>[1] = {}): KubeSuite {
  const suite = { servers: [] as NodeServer[] } as KubeSuite;
  beforeAll(async () => {
    // Each harness server registers a process 'exit' hook; these files start more than ten.
    process.setMaxListeners(64);
    await ensureTools();
    suite.api = await startApiServer();
    suite.world = await prepareWorld(suite.api, o);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(suite.servers.map((s) => s.server.stop()));
    suite.world?.cleanup();
    await suite.api?.stop();
  });
  return suite;
}

export interface NamespaceSuite extends KubeSuite {
  ns: string;
  book: EndpointBook;
  /** `startNode` in this world; the server is stopped with the suite. */
  startNode(opts?: Parameters<typeof startNode>[1]): ReturnType<typeof startNode>;
  /** `startPod` in this world and endpoint book; the server is stopped with the suite. */
  startPod(p: Parameters<typeof startPod>[2]): ReturnType<typeof startPod>;
}

/** A test's own namespace, created, and an empty endpoint book for its pods, with the suite's parts. */
export async function inNamespace(suite: KubeSuite, ns: string): Promise<NamespaceSuite> {
  await createNamespaces(suite.api, [ns]);
  const { api, world, servers } = suite;
  const book = new EndpointBook();
  const tracked = <T extends NodeServer>(s: T): T => {
    servers.push(s);
    return s;
  };
  return {
    api,
    world,
    servers,
    ns,
    book,
    startNode: async (opts) => tracked(await startNode(world, opts)),
    startPod: async (p) => tracked(await startPod(world, book, p)),
  };
}

export interface ClientSuite {
  /** Set in beforeAll: a bare API server (no CRDs, no controller install) and the controller's own client to it, as an admin. */
  server: ApiServer;
  client: KubeClient;
}

/** One bare API server per file and the controller's Kubernetes client to it; `namespaces` are created first. */
export function useApiServerClient(namespaces: readonly string[] = []): ClientSuite {
  const suite = {} as ClientSuite;
  beforeAll(async () => {
    await ensureTools();
    suite.server = await startApiServer();
    await createNamespaces(suite.server, namespaces);
    const kc = new KubeConfig();
    kc.loadFromFile(suite.server.kubeconfigPath);
    suite.client = await kubeClientFromConfig(kc);
  }, 10 * 60_000);
  afterAll(async () => {
    await suite.server?.stop();
  }, 60_000);
  return suite;
}
