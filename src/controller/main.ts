import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { BUS_PORT, CLIENT_PORT, PACKAGE_VERSION, VERSION_FLOOR } from '../api/index.js';
import { startApp, type App } from './app.js';
import { strictPolicy } from './cluster/version-gate.js';
import { kubeClientFromConfig } from './kube/client.js';
import { systemClock } from './runtime/clock.js';
import { isLogLevel, jsonLogger, type Logger } from './runtime/log.js';
import { controllerMetrics } from './runtime/metrics.js';
import { candidateCredentials, readControllerSecrets } from './valkey/controller-credentials.js';
import { sessionOpener } from './valkey/node-session.js';
import type { EndpointOf } from './valkey/observe-node.js';
import { SHIPPED_NODE_TIMEOUT_MS, SHIPPED_RETRY_BACKOFF, SHIPPED_TIMING, SHIPPED_VALKEY_METRICS_MS } from './shipped-defaults.js';

export const USAGE = `valkey-status-sync: the valkey-krm status-sync controller

Usage: valkey-status-sync [options]

  --kubeconfig PATH          kubeconfig to use (default: in-cluster config, else $KUBECONFIG or ~/.kube/config)
  --namespace NS[,NS...]     reconcile ValkeyClusters in these namespaces only, one watch each, so a Role in
                             each is all it needs (deploy/controller-namespaced/); repeatable (default: all)
  --credentials-dir DIR      the controller's Secret, mounted: key (each namespace's password is derived from
                             it) and previous-key (during a rotation) (default: /etc/valkey-krm/controller);
                             while migrating from an earlier release also password and fleet-namespaces
                             (docs/security.md, "Migrating from the single password")
  --password-file PATH       migration only: read the earlier releases' single password from PATH
  --cluster-domain DOMAIN    cluster DNS domain, for TLS names of pods (default: cluster.local)
  --http-address HOST:PORT   /healthz, /readyz and /metrics (default: 0.0.0.0:8080)
  --concurrency N            clusters reconciled at once (default: 4)
  --max-concurrent-rolls N   clusters that roll pods at once, fleet-wide (default: 1)
  --node-timeout MS          bound on connecting to a node and on each command (default: 3000)
  --slot-migration MODE      auto: Valkey 9's atomic slot migration where every primary has it, else
                             the classic protocol; classic: always the classic protocol (default: auto)
  --autoscale-sample-seconds N  how often the nodes of a cluster with spec.autoscaling are sampled
                             (INFO memory cpu stats) (default: 30)
  --metering BOOL            usage metering: a ValkeyMeteringRecord per cluster per month, and a finalizer
                             on each ValkeyCluster so its deletion is counted (docs/metering.md) (default: true)
  --metering-namespace NS    where the records are written (default: the --lease-namespace)
  --metering-sample-seconds N  how often what each cluster provisions is sampled; a changed shape is
                             written at once, an unchanged record every fifth sample (default: 60)
  --valkey-metrics-seconds N  read each pod's Valkey metrics (memory, clients, commands, hits, evictions,
                             replication) at most this often, in the INFO a pass sends anyway, and serve them
                             on /metrics as valkey_* series, and the nodes' peak for metering's Observed
                             source; 0: none (default: 15; docs/monitoring.md)
  --leader-elect BOOL        elect a leader on a Lease so replicas can run side by side (default: true)
  --lease-namespace NS       namespace of the Lease (default: $POD_NAMESPACE, else valkey-system)
  --lease-name NAME          name of the Lease (default: valkey-status-sync)
  --log-level LEVEL          debug, info, warn or error (default: info)
  -h, --help                 this text
  --version                  print the version

The version floor (Valkey ${VERSION_FLOOR}) and the version check itself are not configurable.
`;

/** Production wiring: a pod is reached at its IP on the client port, its bus on the bus port. */
export const podEndpoint: EndpointOf = (pod) =>
  pod.status?.podIP ? { host: pod.status.podIP, port: CLIENT_PORT, busPort: BUS_PORT } : undefined;

class UsageError extends Error {}

function positiveInt(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive whole number, got "${value}"`);
  return n;
}

function wholeNumber(name: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new UsageError(`--${name} must be 0 or a positive whole number, got "${value}"`);
  return n;
}

/** `--namespace a,b --namespace c` → [a, b, c]; each a DNS label, as Kubernetes names namespaces. */
function namespaceList(values: readonly string[]): string[] {
  const names = [...new Set(values.flatMap((v) => v.split(',')).map((n) => n.trim()))];
  for (const n of names)
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(n))
      throw new UsageError(`--namespace: "${n}" is not a namespace name (lowercase letters, digits and '-', at most 63)`);
  return names;
}

function hostPort(value: string): { host: string; port: number } {
  const colon = value.lastIndexOf(':');
  const port = Number(value.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--http-address must be HOST:PORT, got "${value}"`);
  return { host: value.slice(0, colon) || '0.0.0.0', port };
}

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv) {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      kubeconfig: { type: 'string' },
      namespace: { type: 'string', multiple: true },
      'credentials-dir': { type: 'string', default: '/etc/valkey-krm/controller' },
      'password-file': { type: 'string' },
      'cluster-domain': { type: 'string', default: 'cluster.local' },
      'http-address': { type: 'string', default: '0.0.0.0:8080' },
      concurrency: { type: 'string', default: '4' },
      'max-concurrent-rolls': { type: 'string', default: '1' },
      'node-timeout': { type: 'string', default: String(SHIPPED_NODE_TIMEOUT_MS) },
      'slot-migration': { type: 'string', default: 'auto' },
      'autoscale-sample-seconds': { type: 'string', default: '30' },
      'valkey-metrics-seconds': { type: 'string', default: String(SHIPPED_VALKEY_METRICS_MS / 1000) },
      'leader-elect': { type: 'string', default: 'true' },
      metering: { type: 'string', default: 'true' },
      'metering-namespace': { type: 'string' },
      'metering-sample-seconds': { type: 'string', default: '60' },
      'lease-namespace': { type: 'string' },
      'lease-name': { type: 'string', default: 'valkey-status-sync' },
      'log-level': { type: 'string', default: 'info' },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', default: false },
    },
  });
  const logLevel = values['log-level'];
  if (!isLogLevel(logLevel)) throw new UsageError(`--log-level must be debug, info, warn or error, got "${logLevel}"`);
  const slotMigration = values['slot-migration'];
  if (slotMigration !== 'auto' && slotMigration !== 'classic')
    throw new UsageError(`--slot-migration must be auto or classic, got "${slotMigration}"`);
  const leaderElect = values['leader-elect'];
  if (leaderElect !== 'true' && leaderElect !== 'false') throw new UsageError(`--leader-elect must be true or false, got "${leaderElect}"`);
  const metering = values.metering;
  if (metering !== 'true' && metering !== 'false') throw new UsageError(`--metering must be true or false, got "${metering}"`);
  const leaseNamespace = values['lease-namespace'] ?? env.POD_NAMESPACE ?? 'valkey-system';
  const meteringNamespace = values['metering-namespace'] ?? leaseNamespace;
  if (values['metering-namespace'] !== undefined) namespaceList([meteringNamespace]);
  return {
    help: values.help,
    version: values.version,
    kubeconfig: values.kubeconfig,
    namespaces: namespaceList(values.namespace ?? []),
    credentialsDir: values['credentials-dir'],
    passwordFile: values['password-file'],
    clusterDomain: values['cluster-domain'],
    http: hostPort(values['http-address']),
    concurrency: positiveInt('concurrency', values.concurrency),
    maxConcurrentRolls: positiveInt('max-concurrent-rolls', values['max-concurrent-rolls']),
    nodeTimeoutMs: positiveInt('node-timeout', values['node-timeout']),
    slotMigration: slotMigration as 'auto' | 'classic',
    sampleIntervalMs: 1000 * positiveInt('autoscale-sample-seconds', values['autoscale-sample-seconds']),
    valkeyMetricsMs: 1000 * wholeNumber('valkey-metrics-seconds', values['valkey-metrics-seconds']),
    leaderElect: leaderElect === 'true',
    leaseNamespace,
    metering:
      metering === 'true'
        ? { namespace: meteringNamespace, sampleMs: 1000 * positiveInt('metering-sample-seconds', values['metering-sample-seconds']) }
        : undefined,
    leaseName: values['lease-name'],
    logLevel,
    identity: env.POD_NAME ?? `${hostname()}-${randomBytes(3).toString('hex')}`,
  };
}

function loadKubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}

/** Runs until SIGTERM/SIGINT; resolves with the exit code. */
export async function runStatusSync(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(argv, env);
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options.version) {
    process.stdout.write(`valkey-status-sync ${PACKAGE_VERSION}\n`);
    return 0;
  }
  const log: Logger = jsonLogger({ level: options.logLevel, fields: { component: 'valkey-status-sync' } });
  let app: App;
  try {
    const readSecrets = () => readControllerSecrets(options.credentialsDir, options.passwordFile);
    await readSecrets(); // fail fast on a missing Secret mount
    const client = await kubeClientFromConfig(loadKubeConfig(options.kubeconfig));
    const timeouts = { connectMs: options.nodeTimeoutMs, commandMs: options.nodeTimeoutMs };
    const metrics = controllerMetrics();
    app = await startApp({
      client,
      ...(options.namespaces.length ? { namespaces: options.namespaces } : {}),
      policy: strictPolicy,
      endpointOf: podEndpoint,
      open: sessionOpener(async (namespace) => candidateCredentials(await readSecrets(), namespace), timeouts, metrics.timeNodeCommand),
      clusterDomain: options.clusterDomain,
      concurrency: options.concurrency,
      maxConcurrentRolls: options.maxConcurrentRolls,
      slotMigration: options.slotMigration,
      sampleIntervalMs: options.sampleIntervalMs,
      ...(options.metering ? { metering: options.metering } : {}),
      valkeyMetricsMs: options.valkeyMetricsMs,
      timing: SHIPPED_TIMING,
      watchBackoff: { initialMs: 500, maxMs: 30_000, jitter: 0.2 },
      retryBackoff: SHIPPED_RETRY_BACKOFF,
      clock: systemClock,
      log,
      metrics,
      leaderElection: options.leaderElect
        ? {
            namespace: options.leaseNamespace,
            name: options.leaseName,
            identity: options.identity,
            leaseDurationSeconds: 15,
            renewDeadlineMs: 10_000,
            retryPeriodMs: 2_000,
          }
        : false,
      http: options.http,
    });
  } catch (e) {
    log.error('cannot start', { error: e });
    return 1;
  }
  log.info('started', {
    policy: strictPolicy.name,
    namespaces: options.namespaces.length ? options.namespaces : '(all)',
    identity: options.identity,
  });
  return new Promise<number>((resolve) => {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (signalled) {
        log.warn('second signal; exiting at once', { signal });
        resolve(1);
        return;
      }
      signalled = true;
      log.info('shutting down', { signal });
      app.stop().then(
        () => resolve(0),
        (e: unknown) => {
          log.error('unclean shutdown', { error: e });
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
