// The controller in-process, with its production parts, the strict version policy included,
// except one test-only injection: where a pod listens (several servers share loopback).
import { KubeConfig } from '@kubernetes/client-node';
import { SYSTEM_USERNAMES } from '../../../src/api/index.js';
import { startApp, type App, type AppOptions } from '../../../src/controller/app.js';
import { systemClock } from '../../../src/controller/runtime/clock.js';
import { kubeClientFromConfig } from '../../../src/controller/kube/client.js';
import { jsonLogger } from '../../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../../src/controller/runtime/metrics.js';
import { sessionOpener, type OpenSession } from '../../../src/controller/valkey/node-session.js';
import { strictPolicy } from '../../../src/controller/cluster/version-gate.js';
import { CONTROLLER_PASSWORD, type World } from './api-world.js';
import { readMetrics, type MetricsReadout } from './metrics-readout.js';
import type { EndpointBook } from './nodes.js';

export interface TestController {
  app: App;
  /** Its metrics, readable without awaiting (see metrics-readout.ts). */
  metrics: MetricsReadout;
  logs: string[];
  stop(): Promise<void>;
}

export interface TestControllerOptions {
  world: World;
  book: EndpointBook;
  namespace?: string;
  /** Wraps the production session opener (to simulate a crash mid-formation, for instance). */
  wrapOpen?: (open: OpenSession) => OpenSession;
  leaderElection?: AppOptions['leaderElection'];
  http?: AppOptions['http'];
}

/** The controller in-process, authenticated as its ServiceAccount, on fast test timings. */
export async function startController(o: TestControllerOptions): Promise<TestController> {
  const kc = new KubeConfig();
  kc.loadFromFile(o.world.controllerKubeconfig);
  const client = await kubeClientFromConfig(kc);
  const logs: string[] = [];
  const metrics = controllerMetrics();
  // Connect and command timeout per node; resilience.integration expects "within 1000 ms".
  const timeoutMs = 1_000;
  const open = sessionOpener(
    async () => ({ username: SYSTEM_USERNAMES.controller, password: CONTROLLER_PASSWORD }),
    { connectMs: timeoutMs, commandMs: timeoutMs },
    metrics.timeNodeCommand,
  );
  const app = await startApp({
    client,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    policy: strictPolicy,
    endpointOf: o.book.endpointOf,
    open: o.wrapOpen ? o.wrapOpen(open) : open,
    clusterDomain: 'cluster.local',
    concurrency: 4,
    timing: { progressMs: 200, resyncMs: 1_500, failedResyncMs: 1_500 },
    watchBackoff: { initialMs: 100, maxMs: 1_000 },
    retryBackoff: { initialMs: 200, maxMs: 2_000 },
    watchTimeoutSeconds: 60,
    clock: systemClock,
    log: jsonLogger({ level: 'debug', write: (l) => logs.push(l) }),
    metrics,
    leaderElection: o.leaderElection ?? false,
    http: o.http ?? false,
  });
  const readout = await readMetrics(metrics);
  return {
    app,
    metrics: readout,
    logs,
    stop: async () => {
      await app.stop();
      readout.stop();
      if (process.env.VALKEY_KRM_TEST_LOGS === '1') process.stderr.write(logs.join(''));
    },
  };
}
