import { Controller, type ControllerOptions } from './controller.js';
import { LeaderElector } from './kube/leader-election.js';
import { startHealthServer, type HealthServer } from './runtime/health-server.js';

export interface AppOptions extends ControllerOptions {
  /** Off: lead from the start (a single replica, or tests). */
  leaderElection:
    | false
    | { namespace: string; name: string; identity: string; leaseDurationSeconds: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** Off: no health/metrics listener. */
  http: false | { host: string; port: number };
}

export interface App {
  /** The health/metrics port actually bound (useful with port 0). */
  readonly httpPort: number | undefined;
  isLeader(): boolean;
  /** Graceful: stop reconciling, wait for passes in flight, release the lease, close the listener. */
  stop(): Promise<void>;
}

/**
 * The long-running process: a health/metrics listener, leader election, and a Controller that
 * exists only while this replica leads (a lost lease stops it; a new term starts a fresh one).
 */
export async function startApp(opts: AppOptions): Promise<App> {
  const { log, metrics } = opts;
  let controller: Controller | undefined;
  let stopping = false;
  let transition = Promise.resolve();

  const lead = (): void => {
    transition = transition.then(() => {
      if (stopping || controller) return;
      metrics.leader.set(1);
      controller = new Controller(opts);
      controller.start();
    });
  };
  const unlead = (): void => {
    transition = transition.then(async () => {
      metrics.leader.set(0);
      const c = controller;
      controller = undefined;
      await c?.stop();
      metrics.forgetClusters();
    });
  };

  const elector = opts.leaderElection
    ? new LeaderElector({
        ...opts.leaderElection,
        client: opts.client,
        clock: opts.clock,
        log,
        onStartedLeading: lead,
        onStoppedLeading: unlead,
      })
    : undefined;

  let server: HealthServer | undefined;
  if (opts.http) {
    server = await startHealthServer({
      ...opts.http,
      healthy: () => !stopping,
      // A standby is ready (it is doing its job: waiting); a leader once its caches are full.
      ready: () => !stopping && (controller === undefined ? !!elector && !elector.isLeader : controller.hasSynced()),
      metrics: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
    });
    log.info('serving /healthz, /readyz and /metrics', { address: `${opts.http.host}:${server.port}` });
  }

  metrics.leader.set(0);
  if (elector) elector.start();
  else lead();

  return {
    httpPort: server?.port,
    isLeader: () => controller !== undefined,
    async stop() {
      if (stopping) return;
      stopping = true;
      // Finish the passes in flight before the lease goes, so two leaders never overlap.
      unlead();
      await transition;
      if (elector) await elector.stop();
      await server?.close();
      log.info('stopped');
    },
  };
}
