// An envtest-style Kubernetes API server for tests: real etcd + real
// kube-apiserver (built by scripts/build-tools.sh from their Go modules),
// everything on 127.0.0.1, all state in a temp dir.
//
//   const api = await startApiServer();          // in beforeAll (first run builds the tools!)
//   await api.kubectl(["apply", "--server-side", "-f", "-"], { input: yaml });
//   await api.restart();                         // kube-apiserver only; same port, same etcd
//   await api.stop();                            // in afterAll
//
// No controller-manager or scheduler runs: nothing creates Pods from
// workloads, and namespaces get no "default" ServiceAccount unless a test
// creates one (the ServiceAccount admission plugin then rejects Pods).
// kube-world.ts adds a real kube-controller-manager and a kubelet stand-in.
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, type Ran } from './exec.js';
import { repoPath } from './paths.js';
import { Reaper, freePorts, spawnDaemon, tailFile, waitFor, type Daemon } from './process.js';

const BUILD_TOOLS = repoPath('scripts/build-tools.sh');

export interface ToolPaths {
  kubeApiserver: string;
  kubeControllerManager: string;
  /** The real node's (test/support/node/): built with the others, used only there. */
  kubeScheduler: string;
  kubelet: string;
  etcd: string;
  kustomize: string;
}

/** kubectl's exit code and output (exec.ts's `Ran`). */
export type KubectlResult = Ran;

export interface KubectlOptions {
  /** Written to kubectl's stdin (use with `-f -`). */
  input?: string;
  /** Kill kubectl (and reject) after this many ms (default 60 000, as exec.ts's `run`). */
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  body: string;
}

export interface ApiServer {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** Bearer token of a user in group system:masters. */
  readonly token: string;
  /** A kubeconfig for this server (bearer token; the self-signed serving cert as certificate-authority-data). */
  readonly kubeconfigPath: string;
  /** The serving certificate kube-apiserver generated for itself (valid for 127.0.0.1); use as CA. */
  readonly caCertPath: string;
  /** http://127.0.0.1:<port> of the etcd behind it. */
  readonly etcdUrl: string;
  /** Temp dir with etcd data, certs, keys and the logs (etcd.log, kube-apiserver.log). */
  readonly dir: string;
  /** Run the `kubectl` on PATH against this server. Never throws on a non-zero exit. */
  kubectl(args: string[], opts?: KubectlOptions): Promise<KubectlResult>;
  /** One HTTPS request with the bearer token (body sent as JSON unless a string). */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RawResponse>;
  /** Stop kube-apiserver and start it again on the same port against the same etcd. */
  restart(): Promise<void>;
  /** Stop both servers and remove the temp dir. Idempotent. */
  stop(): Promise<void>;
}

export interface StartApiServerOptions {
  /** Extra kube-apiserver flags, appended after the harness's own. */
  apiServerArgs?: string[];
  /** Extra etcd flags. */
  etcdArgs?: string[];
  /** How long to wait for each server to become ready (default 90 000 ms). */
  readyTimeoutMs?: number;
  /** Keep the temp dir after stop() (also: env VALKEY_KRM_HARNESS_KEEP=1). */
  keepDir?: boolean;
  /** Progress messages (default: none). */
  log?: (msg: string) => void;
}

let toolsPromise: Promise<ToolPaths> | undefined;

/**
 * Build (first time only, can take tens of minutes) or locate the tool
 * binaries via scripts/build-tools.sh; its progress goes to our stderr.
 * Memoised per process.
 */
export function ensureTools(): Promise<ToolPaths> {
  toolsPromise ??= new Promise<ToolPaths>((resolvePromise, reject) => {
    const child = spawn('bash', [BUILD_TOOLS, '--print-env'], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let stdout = '';
    let stderrTail = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderrTail = (stderrTail + c).slice(-20_000);
      // Quiet when everything is cached; visible progress during a build.
      if (!/^cached: |^tools: /m.test(c)) process.stderr.write(c);
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) {
        reject(new Error(`scripts/build-tools.sh exited with ${String(code)}:\n${stderrTail}`));
        return;
      }
      const env = new Map<string, string>();
      for (const line of stdout.split('\n')) {
        const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
        if (m?.[1] !== undefined && m[2] !== undefined) env.set(m[1], m[2]);
      }
      const kubeApiserver = env.get('KUBE_APISERVER');
      const kubeControllerManager = env.get('KUBE_CONTROLLER_MANAGER');
      const kubeScheduler = env.get('KUBE_SCHEDULER');
      const kubelet = env.get('KUBELET');
      const etcd = env.get('ETCD');
      const kustomize = env.get('KUSTOMIZE');
      if (
        kubeApiserver === undefined ||
        kubeControllerManager === undefined ||
        kubeScheduler === undefined ||
        kubelet === undefined ||
        etcd === undefined ||
        kustomize === undefined
      ) {
        reject(new Error(`scripts/build-tools.sh --print-env gave no paths:\n${stdout}\n${stderrTail}`));
        return;
      }
      resolvePromise({ kubeApiserver, kubeControllerManager, kubeScheduler, kubelet, etcd, kustomize });
    });
  });
  toolsPromise.catch(() => {
    toolsPromise = undefined; // allow a retry after a failed build
  });
  return toolsPromise;
}

function httpsGet(url: URL, token: string, method = 'GET', body?: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolvePromise, reject) => {
    const req = httpsRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}),
          ...headers,
        },
        rejectUnauthorized: false,
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${url.href}`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function runKubectl(kubeconfigPath: string, args: string[], opts: KubectlOptions = {}): Promise<KubectlResult> {
  return run('kubectl', ['--kubeconfig', kubeconfigPath, ...args], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath },
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  });
}

function kubeconfigYaml(url: string, token: string, caPem: string): string {
  // JSON is valid YAML and needs no quoting rules.
  return JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'harness', cluster: { server: url, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
      users: [{ name: 'harness-admin', user: { token } }],
      contexts: [{ name: 'harness', context: { cluster: 'harness', user: 'harness-admin', namespace: 'default' } }],
      'current-context': 'harness',
      preferences: {},
    },
    null,
    2,
  );
}

/** Start etcd + kube-apiserver on free loopback ports; resolves once /readyz is ok and namespace "default" exists. */
export async function startApiServer(opts: StartApiServerOptions = {}): Promise<ApiServer> {
  const log = opts.log ?? ((): void => {});
  const readyTimeoutMs = opts.readyTimeoutMs ?? 90_000;
  const keepDir = opts.keepDir ?? process.env.VALKEY_KRM_HARNESS_KEEP === '1';
  const tools = await ensureTools();

  const dir = await mkdtemp(join(tmpdir(), 'valkey-krm-apiserver-'));
  const reaper = new Reaper(dir, keepDir);
  try {
    return await startIn(dir, reaper, tools, opts, readyTimeoutMs, log);
  } catch (e) {
    reaper.cleanupSync();
    throw e;
  }
}

async function startIn(
  dir: string,
  reaper: Reaper,
  tools: ToolPaths,
  opts: StartApiServerOptions,
  readyTimeoutMs: number,
  log: (msg: string) => void,
): Promise<ApiServer> {
  const certDir = join(dir, 'certs');
  await mkdir(certDir, { recursive: true });

  const token = randomBytes(24).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, `${token},harness-admin,harness-admin,"system:masters"\n`, { mode: 0o600 });

  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const saPub = join(dir, 'sa.pub');
  const saKey = join(dir, 'sa.key');
  await writeFile(saPub, publicKey);
  await writeFile(saKey, privateKey, { mode: 0o600 });

  const etcdLog = join(dir, 'etcd.log');
  const apiLog = join(dir, 'kube-apiserver.log');

  // Ports are picked by the kernel just before use; if one gets taken in the
  // meantime (bind error), pick new ones and try again.
  let etcd: Daemon | undefined;
  let etcdUrl = '';
  for (let attempt = 1; ; attempt++) {
    const [clientPort, peerPort] = await freePorts(2);
    etcdUrl = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const d = spawnDaemon(
      'etcd',
      tools.etcd,
      [
        '--name=harness',
        `--data-dir=${join(dir, 'etcd-data')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=harness=${peerUrl}`,
        '--initial-cluster-state=new',
        '--unsafe-no-fsync=true',
        '--log-level=warn',
        ...(opts.etcdArgs ?? []),
      ],
      etcdLog,
    );
    reaper.add(d);
    try {
      await waitFor(
        'etcd',
        async () => {
          const res = await fetch(`${etcdUrl}/health`, { signal: AbortSignal.timeout(2_000) });
          return res.ok && ((await res.json()) as { health?: string }).health === 'true';
        },
        { timeoutMs: readyTimeoutMs, abort: () => (d.hasExited() ? 'exited' : undefined) },
      );
      etcd = d;
      break;
    } catch (e) {
      await d.stop(2_000);
      reaper.remove(d);
      await rm(join(dir, 'etcd-data'), { recursive: true, force: true });
      if (attempt < 3 && /address already in use/.test(tailFile(etcdLog))) continue;
      throw startupError(e, { etcd: etcdLog });
    }
  }
  log(`etcd ready at ${etcdUrl}`);

  const kubeconfigPath = join(dir, 'kubeconfig');
  let port = 0;
  let url = '';
  let apiserver: Daemon | undefined;

  const apiArgs = (): string[] => [
    `--etcd-servers=${etcdUrl}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--cert-dir=${certDir}`,
    `--token-auth-file=${tokenFile}`,
    '--authorization-mode=RBAC',
    `--service-account-key-file=${saPub}`,
    `--service-account-signing-key-file=${saKey}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    '--service-cluster-ip-range=10.0.0.0/24',
    // Default admission plugins (incl. PodSecurity, ServiceAccount, NamespaceLifecycle).
    '--allow-privileged=true',
    '--profiling=false',
    '--v=1',
    ...(opts.apiServerArgs ?? []),
  ];

  const waitReady = async (d: Daemon): Promise<void> => {
    const abort = (): string | undefined => (d.hasExited() ? 'kube-apiserver exited' : undefined);
    await waitFor('kube-apiserver /readyz', async () => (await httpsGet(new URL('/readyz', url), token)).status === 200, {
      timeoutMs: readyTimeoutMs,
      intervalMs: 200,
      abort,
    });
    // The bootstrap controller creates namespace "default" shortly after /readyz.
    await waitFor('namespace default', async () => (await httpsGet(new URL('/api/v1/namespaces/default', url), token)).status === 200, {
      timeoutMs: readyTimeoutMs,
      intervalMs: 200,
      abort,
    });
  };

  const startApi = async (fixedPort: boolean): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      if (!fixedPort) {
        port = (await freePorts(1))[0] ?? 0;
        url = `https://127.0.0.1:${port}`;
      }
      const d = spawnDaemon('kube-apiserver', tools.kubeApiserver, apiArgs(), apiLog);
      reaper.add(d);
      try {
        await waitReady(d);
        apiserver = d;
        return;
      } catch (e) {
        await d.stop(5_000);
        reaper.remove(d);
        const inUse = /address already in use/.test(tailFile(apiLog));
        if (inUse && fixedPort && attempt < 20) {
          // the old socket may linger briefly after a restart
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
        if (inUse && !fixedPort && attempt < 3) continue;
        throw startupError(e, { etcd: etcdLog, 'kube-apiserver': apiLog });
      }
    }
  };

  await startApi(false);
  const caCertPath = join(certDir, 'apiserver.crt');
  const caPem = await readFile(caCertPath, 'utf8');
  await writeFile(kubeconfigPath, kubeconfigYaml(url, token, caPem), { mode: 0o600 });
  log(`kube-apiserver ready at ${url}`);

  let stopped = false;
  const api: ApiServer = {
    get url() {
      return url;
    },
    token,
    kubeconfigPath,
    caCertPath,
    etcdUrl,
    dir,
    kubectl: (args, kopts) => runKubectl(kubeconfigPath, args, kopts),
    request: (method, path, body, headers) =>
      httpsGet(
        new URL(path, url),
        token,
        method,
        body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        body === undefined || typeof body === 'string' ? headers : { 'Content-Type': 'application/json', ...headers },
      ),
    async restart() {
      if (stopped) throw new Error('restart() after stop()');
      if (apiserver) {
        await apiserver.stop();
        reaper.remove(apiserver);
        apiserver = undefined;
      }
      await startApi(true);
      log(`kube-apiserver restarted at ${url}`);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (apiserver) await apiserver.stop();
      if (etcd) await etcd.stop();
      reaper.cleanupSync();
    },
  };
  return api;
}

function startupError(cause: unknown, logs: Record<string, string>): Error {
  const msg = cause instanceof Error ? cause.message : String(cause);
  const parts = [`API server harness failed to start: ${msg}`];
  for (const [name, path] of Object.entries(logs)) parts.push(`----- ${name} log (${path}) -----\n${tailFile(path, 80)}`);
  const text = parts.join('\n');
  process.stderr.write(`${text}\n`);
  return new Error(text, { cause });
}
