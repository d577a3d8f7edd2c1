// The controller in-process, with its production parts, the strict version policy included,
// except one test-only injection: where a pod listens (several servers share loopback).
import { namespacePassword } from '../../../src/controller/valkey/controller-credentials.js';
import { KubeConfig } from '@kubernetes/client-node';
import { SYSTEM_USERNAMES } from '../../../src/api/index.js';
import { startApp, type App, type AppOptions } from '../../../src/controller/app.js';
import { systemClock } from '../../../src/controller/runtime/clock.js';
import { kubeClientFromConfig } from '../../../src/controller/kube/client.js';
import { jsonLogger, type Logger } from '../../../src/controller/runtime/log.js';
import { controllerMetrics, type ControllerMetrics } from '../../../src/controller/runtime/metrics.js';
import { sessionOpener, type NodeTimeouts, type OpenSession } from '../../../src/controller/valkey/node-session.js';
import { strictPolicy } from '../../../src/controller/cluster/version-gate.js';
import { SHIPPED_VALKEY_METRICS_MS } from '../../../src/controller/shipped-defaults.js';
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
  /** Watch these namespaces (a namespaced install); `namespace` is the one-namespace shorthand. */
  namespaces?: readonly string[];
  /** Wraps the production session opener (to simulate a crash mid-formation, for instance). */
  wrapOpen?: (open: OpenSession) => OpenSession;
  leaderElection?: AppOptions['leaderElection'];
  http?: AppOptions['http'];
  /** Usage metering on (off unless given). */
  metering?: AppOptions['metering'];
}

/** The session timeouts, timings and fan-out a test gives the controller; the rest is fixed below. */
export type ControllerTuning = Pick<
  AppOptions,
  | 'concurrency'
  | 'timing'
  | 'retryBackoff'
  | 'maxConcurrentRolls'
  | 'rebalanceBatchSlots'
  | 'slotMigration'
  | 'sampleIntervalMs'
  | 'metering'
  | 'valkeyMetricsMs'
>;

export interface InProcessAppOptions {
  /** The ServiceAccount's kubeconfig (prepareWorld). */
  kubeconfig: string;
  namespace?: string;
  namespaces?: readonly string[];
  /** The controller system user's password, as the rendered users.acl hashes it. */
  password: string;
  /** The controller key instead: each namespace's password derived from it, as the shipped controller does. */
  controllerKey?: string;
  endpointOf: AppOptions['endpointOf'];
  timeouts: NodeTimeouts;
  /** Wraps the production session opener (to simulate a crash mid-formation, for instance). */
  wrapOpen?: (open: OpenSession) => OpenSession;
  tuning: ControllerTuning;
  log: Logger;
  metrics: ControllerMetrics;
  leaderElection?: AppOptions['leaderElection'];
  http?: AppOptions['http'];
}

/**
 * The controller app in-process as its ServiceAccount, with the production parts (the strict
 * version policy included): what every in-process test and benchmark starts, whatever its timings.
 */
export async function startInProcessApp(o: InProcessAppOptions): Promise<App> {
  const kc = new KubeConfig();
  kc.loadFromFile(o.kubeconfig);
  const open = sessionOpener(
    async (namespace) => ({
      username: SYSTEM_USERNAMES.controller,
      password: o.controllerKey && namespace ? namespacePassword(o.controllerKey, namespace) : o.password,
    }),
    o.timeouts,
    o.metrics.timeNodeCommand,
  );
  return startApp({
    client: await kubeClientFromConfig(kc),
    ...(o.namespaces ? { namespaces: o.namespaces } : o.namespace ? { namespaces: [o.namespace] } : {}),
    policy: strictPolicy,
    endpointOf: o.endpointOf,
    open: o.wrapOpen ? o.wrapOpen(open) : open,
    clusterDomain: 'cluster.local',
    // Valkey's per-pod metrics on, as shipped, unless a test tunes them.
    valkeyMetricsMs: SHIPPED_VALKEY_METRICS_MS,
    ...o.tuning,
    watchBackoff: { initialMs: 100, maxMs: 1_000 },
    watchTimeoutSeconds: 60,
    clock: systemClock,
    log: o.log,
    metrics: o.metrics,
    leaderElection: o.leaderElection ?? false,
    http: o.http ?? false,
  });
}

/** The controller in-process, authenticated as its ServiceAccount, on fast test timings. */
export async function startController(o: TestControllerOptions): Promise<TestController> {
  const logs: string[] = [];
  const metrics = controllerMetrics();
  // Connect and command timeout per node; resilience.integration expects "within 1000 ms".
  const timeoutMs = 1_000;
  const app = await startInProcessApp({
    kubeconfig: o.world.controllerKubeconfig,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    ...(o.namespaces ? { namespaces: o.namespaces } : {}),
    password: CONTROLLER_PASSWORD,
    endpointOf: o.book.endpointOf,
    timeouts: { connectMs: timeoutMs, commandMs: timeoutMs },
    ...(o.wrapOpen ? { wrapOpen: o.wrapOpen } : {}),
    tuning: {
      concurrency: 4,
      timing: { progressMs: 200, resyncMs: 1_500, failedResyncMs: 1_500 },
      retryBackoff: { initialMs: 200, maxMs: 2_000 },
      ...(o.metering ? { metering: o.metering } : {}),
    },
    log: jsonLogger({ level: 'debug', write: (l) => logs.push(l) }),
    metrics,
    ...(o.leaderElection !== undefined ? { leaderElection: o.leaderElection } : {}),
    ...(o.http !== undefined ? { http: o.http } : {}),
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
