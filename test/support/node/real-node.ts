// A real Kubernetes node for end-to-end tests (issue 24): etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, containerd + runc + the CNI bridge and a real kubelet,
// all inside a network namespace this harness creates (no link out: lo carries 127.0.0.1 and the
// node IP, the bridge carries the pods). containerd and the kubelet share a private mount
// namespace, so their overlay and tmpfs mounts never reach the host.
//
//   const node = await startRealNode({ name: 'smoke', images: (await nodeImages()).archives });
//   await node.apply(objects);                 // kubectl apply --server-side, inside the namespace
//   await node.json('GET', '/api/v1/pods');    // through `kubectl proxy` on a Unix socket
//   await node.stop();                         // tearDownNode: nothing left behind
//
// Every client (kubectl, the writer, the controller's pods) runs inside the namespace. The host
// side reaches the API server only through the proxy's Unix socket. No kube-proxy runs: the one
// ClusterIP that works is the API server's (a DNAT rule), so in-cluster clients work unchanged;
// headless Services and pod IPs work as they do anywhere. Facts behind the settings are in
// ../shared/real-node/README.md (restrict_oom_score_adj, cgroupfs without QoS cgroups, ...).
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { ensureTools, type ToolPaths } from '../apiserver.js';
import { run, type Ran, type RunOptions } from '../exec.js';
import { spawnDaemon, tailFile, waitFor, type Daemon } from '../process.js';
import type { ImageArchive } from './images.js';
import {
  API_PORT,
  inNetns,
  inNode,
  KUBELET_FIXED_DIRS,
  KUBELET_SYSCTLS,
  KUBERNETES_SERVICE_IP,
  layoutOf,
  NODE_IP,
  POD_GATEWAY,
  POD_SUBNET,
  SERVICE_RANGE,
  type NodeLayout,
} from './layout.js';
import { cniNetnsFiles, hostBefore, tearDownNode } from './teardown.js';

export interface RealNodeOptions {
  /** The world's name: its directory, netns and pod network are named after it. */
  name: string;
  /** Imported into the node's containerd before the kubelet starts. */
  images: readonly ImageArchive[];
  log?: (msg: string) => void;
}

export interface RawResponse {
  status: number;
  body: string;
}

export interface RealNode {
  readonly layout: NodeLayout;
  readonly nodeName: string;
  /** From the first command to Node Ready. */
  readonly nodeReadyMs: number;
  /** `kubectl` as cluster admin, inside the namespace. Never throws on a non-zero exit. */
  kubectl(args: readonly string[], opts?: Pick<RunOptions, 'input' | 'timeoutMs'>): Promise<Ran>;
  /** `kubectl apply --server-side` of objects or YAML text; throws with kubectl's stderr. */
  apply(objectsOrYaml: readonly unknown[] | string): Promise<void>;
  /** One API request through the proxy socket (body as JSON unless a string). */
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<RawResponse>;
  /** `request`, parsed; an answer outside 2xx throws with the path and body. */
  json<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>;
  /** A command to completion inside the namespace (network only). */
  exec(cmd: string, args: readonly string[], opts?: RunOptions): Promise<Ran>;
  /** A long-running process inside the namespace, recorded so teardown stops it. */
  spawn(name: string, cmd: string, args: readonly string[], env?: NodeJS.ProcessEnv): Daemon;
  /** The host PID of a container's main process (`containerd://<id>` from a pod's status). */
  containerPid(containerId: string): Promise<number>;
  /** `ctr images import` of one more archive. */
  importImage(archive: ImageArchive): Promise<void>;
  /** Everything stopped and removed (tearDownNode). Idempotent. */
  stop(): Promise<void>;
}

const NODE_NAME = 'node-a';
const ns = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function must(what: string, [cmd, args]: [string, string[]], opts: RunOptions = {}): Promise<string> {
  const r = await run(cmd, args, { timeoutMs: 120_000, ...opts });
  if (r.code !== 0) throw new Error(`${what}: ${cmd} ${args.join(' ')} exited ${r.code}\n${r.stderr.slice(-3000)}`);
  return r.stdout;
}

const host = (cmd: string, ...args: string[]): [string, string[]] => [cmd, args];

export async function startRealNode(o: RealNodeOptions): Promise<RealNode> {
  const l = layoutOf(o.name);
  const log = o.log ?? ((): void => {});
  const t0 = Date.now();
  const tools = await ensureTools();
  const before = await tearDownNode(l);
  if (before.leftoverContainers + before.leftoverShims + before.leftoverMounts.length > 0)
    log(`cleaned a previous run of ${o.name}: ${JSON.stringify(before)}`);
  try {
    return await startIn(l, o, tools, t0, log);
  } catch (e) {
    const logs = existsSync(l.logs) ? readdirSync(l.logs) : [];
    const tails = logs.map((f) => `----- ${f} -----\n${tailFile(join(l.logs, f), 25)}`).join('\n');
    await tearDownNode(l);
    throw new Error(`real node ${o.name} failed to start: ${(e as Error).message}\n${tails}`, { cause: e });
  }
}

async function startIn(l: NodeLayout, o: RealNodeOptions, tools: ToolPaths, t0: number, log: (msg: string) => void): Promise<RealNode> {
  for (const d of [l.pids, l.logs, l.pki, l.mntnsDir, l.cniIpam, join(l.dir, 'etcd'), join(l.dir, 'kubelet'), join(l.dir, 'containerd')])
    await mkdir(d, { recursive: true });
  await writeFile(l.netnsBefore, [...cniNetnsFiles()].join('\n'));
  if (!existsSync(l.sysctlsOrig)) {
    const values = await must('sysctl', host('sysctl', ...KUBELET_SYSCTLS));
    await writeFile(l.sysctlsOrig, values.replaceAll(' = ', '='));
  }
  if (!existsSync(l.hostOrig)) await writeFile(l.hostOrig, JSON.stringify(await hostBefore()));

  // ---- the network namespace: lo with the node IP; the API server's ClusterIP by DNAT
  await must('netns', host('ip', 'netns', 'add', l.netns));
  await must('lo up', host('ip', '-n', l.netns, 'link', 'set', 'lo', 'up'));
  await must('node IP', host('ip', '-n', l.netns, 'addr', 'add', `${NODE_IP}/32`, 'dev', 'lo'));
  await must('ip_forward', inNetns(l, 'sysctl', ['-qw', 'net.ipv4.ip_forward=1']));
  for (const chain of ['PREROUTING', 'OUTPUT']) {
    const rule = ['-d', KUBERNETES_SERVICE_IP, '-p', 'tcp', '--dport', '443', '-j', 'DNAT', '--to-destination', `${NODE_IP}:${API_PORT}`];
    await must('kubernetes Service DNAT', inNetns(l, 'iptables', ['-t', 'nat', '-A', chain, ...rule]));
  }

  // ---- the private mount namespace of containerd and the kubelet, kept in an nsfs bind mount
  await must('bind ns', host('mount', '--bind', l.mntnsDir, l.mntnsDir));
  await must('private ns', host('mount', '--make-private', l.mntnsDir));
  await writeFile(l.mntnsPath, '');
  await must('unshare', host('unshare', `--mount=${l.mntnsPath}`, '--propagation', 'slave', 'true'));
  for (const [fixed, own] of Object.entries(KUBELET_FIXED_DIRS)) {
    if (!existsSync(fixed)) await mkdir(fixed);
    await mkdir(join(l.dir, own), { recursive: true });
    await must(`own ${fixed}`, host('nsenter', `--mount=${l.mntnsPath}`, 'mount', '--bind', join(l.dir, own), fixed));
  }
  log(`netns ${l.netns} and mount namespace ready (${ns(Date.now() - t0)})`);

  // ---- PKI: a CA, the API server's serving cert, its kubelet client cert, the SA keys, tokens
  const p = (f: string): string => join(l.pki, f);
  const openssl = (...args: string[]) => must('openssl', host('openssl', ...args));
  await openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=vkn-ca',
  );
  const sign = async (name: string, subj: string, ext?: string): Promise<void> => {
    await openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`), '-subj', subj);
    const extArgs: string[] = [];
    if (ext) {
      await writeFile(p(`${name}.ext`), ext);
      extArgs.push('-extfile', p(`${name}.ext`));
    }
    await openssl(
      'x509',
      '-req',
      '-in',
      p(`${name}.csr`),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-out',
      p(`${name}.crt`),
      '-days',
      '2',
      ...extArgs,
    );
  };
  const sans = [
    'IP:127.0.0.1',
    `IP:${NODE_IP}`,
    `IP:${KUBERNETES_SERVICE_IP}`,
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
    'DNS:kubernetes.default.svc.cluster.local',
  ];
  await sign('apiserver', '/CN=kube-apiserver', `subjectAltName=${sans.join(',')}\n`);
  await sign('kubelet-client', '/O=system:masters/CN=kube-apiserver-kubelet-client');
  await openssl('genrsa', '-out', p('sa.key'), '2048');
  await openssl('rsa', '-in', p('sa.key'), '-pubout', '-out', p('sa.pub'));
  const { randomBytes } = await import('node:crypto');
  const tok = (): string => randomBytes(24).toString('hex');
  const [admin, kcm, sched, kubelet] = [tok(), tok(), tok(), tok()];
  // The controller-manager in system:masters: with --use-service-account-credentials=false it needs
  // every controller's rights, more than its bootstrap role has.
  await writeFile(
    p('tokens.csv'),
    [
      `${admin},admin,admin,system:masters`,
      `${kcm},system:kube-controller-manager,kcm,system:masters`,
      `${sched},system:kube-scheduler,sched`,
      `${kubelet},system:node:${NODE_NAME},node-${NODE_NAME},system:nodes`,
    ].join('\n'),
    { mode: 0o600 },
  );
  const kubeconfig = async (name: string, token: string): Promise<string> => {
    const path = p(`${name}.kubeconfig`);
    const cfg = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'vkn', cluster: { server: `https://127.0.0.1:${API_PORT}`, 'certificate-authority': p('ca.crt') } }],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'vkn', context: { cluster: 'vkn', user: 'u', namespace: 'default' } }],
      'current-context': 'vkn',
    };
    await writeFile(path, JSON.stringify(cfg, null, 2), { mode: 0o600 });
    return path;
  };
  const adminKc = await kubeconfig('admin', admin);
  const kcmKc = await kubeconfig('kcm', kcm);
  const schedKc = await kubeconfig('sched', sched);
  const kubeletKc = await kubeconfig('kubelet', kubelet);

  const daemons = new Map<string, Daemon>();
  const start = async (name: string, [cmd, args]: [string, string[]], env?: NodeJS.ProcessEnv): Promise<Daemon> => {
    const d = spawnDaemon(name, cmd, args, join(l.logs, `${name}.log`), env);
    await writeFile(join(l.pids, name), String(d.pid));
    daemons.set(name, d);
    return d;
  };
  const abortOn = (d: Daemon) => () => (d.hasExited() ? `${d.name} exited (log ${d.logPath})` : undefined);

  // ---- etcd + kube-apiserver (bound to 0.0.0.0 inside the namespace: pods reach it at the node IP)
  await start(
    'etcd',
    inNetns(l, tools.etcd, [
      `--data-dir=${join(l.dir, 'etcd')}`,
      '--listen-client-urls=http://127.0.0.1:2379',
      '--advertise-client-urls=http://127.0.0.1:2379',
      '--listen-peer-urls=http://127.0.0.1:2380',
      '--initial-advertise-peer-urls=http://127.0.0.1:2380',
      '--initial-cluster=default=http://127.0.0.1:2380',
      '--listen-metrics-urls=http://127.0.0.1:2381',
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]),
  );
  const api = await start(
    'kube-apiserver',
    inNetns(l, tools.kubeApiserver, [
      '--etcd-servers=http://127.0.0.1:2379',
      `--secure-port=${API_PORT}`,
      '--bind-address=0.0.0.0',
      `--advertise-address=${NODE_IP}`,
      '--endpoint-reconciler-type=none',
      `--tls-cert-file=${p('apiserver.crt')}`,
      `--tls-private-key-file=${p('apiserver.key')}`,
      `--client-ca-file=${p('ca.crt')}`,
      `--token-auth-file=${p('tokens.csv')}`,
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${p('sa.pub')}`,
      `--service-account-signing-key-file=${p('sa.key')}`,
      `--service-cluster-ip-range=${SERVICE_RANGE}`,
      `--kubelet-client-certificate=${p('kubelet-client.crt')}`,
      `--kubelet-client-key=${p('kubelet-client.key')}`,
      '--kubelet-preferred-address-types=InternalIP',
      '--profiling=false',
    ]),
  );
  const curl = (path: string) =>
    run(
      ...inNetns(l, 'curl', [
        '-sf',
        '--cacert',
        p('ca.crt'),
        '-H',
        `Authorization: Bearer ${admin}`,
        `https://127.0.0.1:${API_PORT}${path}`,
      ]),
    );
  await waitFor('kube-apiserver /readyz', async () => (await curl('/readyz')).code === 0, {
    timeoutMs: 120_000,
    intervalMs: 300,
    abort: abortOn(api),
  });
  log(`kube-apiserver ready (${ns(Date.now() - t0)})`);

  // ---- kube-controller-manager, kube-scheduler, and the proxy the host side talks through
  const controllers = [
    'statefulset-controller',
    'disruption-controller',
    'garbage-collector-controller',
    'serviceaccount-controller',
    'serviceaccount-token-controller',
    'root-ca-certificate-publisher-controller',
    'node-lifecycle-controller',
    'endpoints-controller',
    'endpointslice-controller',
    'pod-garbage-collector-controller',
    'namespace-controller',
    'replicaset-controller',
    'deployment-controller',
    'ttl-controller',
  ];
  await start(
    'kube-controller-manager',
    inNetns(l, tools.kubeControllerManager, [
      `--kubeconfig=${kcmKc}`,
      '--leader-elect=false',
      `--controllers=${controllers.join(',')}`,
      '--secure-port=0',
      '--use-service-account-credentials=false',
      `--service-account-private-key-file=${p('sa.key')}`,
      `--root-ca-file=${p('ca.crt')}`,
      '--concurrent-statefulset-syncs=10',
      '--v=2',
    ]),
  );
  await start(
    'kube-scheduler',
    inNetns(l, tools.kubeScheduler, [`--kubeconfig=${schedKc}`, '--leader-elect=false', '--secure-port=0', '--v=2']),
  );
  const proxy = await start('kubectl-proxy', inNetns(l, 'kubectl', ['--kubeconfig', adminKc, 'proxy', `--unix-socket=${l.proxySocket}`]));

  const request = (method: string, path: string, body?: unknown, contentType?: string): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = httpRequest(
        {
          socketPath: l.proxySocket,
          path,
          method,
          headers: {
            Accept: 'application/json',
            ...(text !== undefined
              ? { 'Content-Type': contentType ?? 'application/json', 'Content-Length': String(Buffer.byteLength(text)) }
              : {}),
          },
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${path}`)));
      req.on('error', reject);
      if (text !== undefined) req.write(text);
      req.end();
    });
  const json = async <T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> => {
    const r = await request(method, path, body, contentType);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
    return JSON.parse(r.body) as T;
  };
  await waitFor(
    'ServiceAccount default/default',
    async () => (await request('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status === 200,
    { timeoutMs: 90_000, intervalMs: 300, abort: abortOn(proxy) },
  );
  log(`controllers and scheduler up (${ns(Date.now() - t0)})`);

  // ---- CNI: a bridge and host-local IPAM for the pod subnet, inside the namespace, no masquerade
  const cniConf = join(l.dir, 'cni-conf');
  await mkdir(cniConf, { recursive: true });
  await writeFile(
    join(cniConf, '10-vkn.conflist'),
    JSON.stringify({
      cniVersion: '0.4.0',
      name: l.cniNetwork,
      plugins: [
        {
          type: 'bridge',
          bridge: 'vknbr0',
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            dataDir: l.cniIpam,
            ranges: [[{ subnet: POD_SUBNET, gateway: POD_GATEWAY }]],
            routes: [{ dst: '0.0.0.0/0' }],
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    }),
  );

  // ---- containerd: its own root, state, socket and runc root; in the namespace and the mount namespace
  const cd = join(l.dir, 'containerd');
  await writeFile(
    join(cd, 'config.toml'),
    `version = 2
root = "${join(cd, 'root')}"
state = "${join(cd, 'state')}"
[grpc]
  address = "${l.containerdSocket}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"
  # root here lacks CAP_SYS_RESOURCE: the sandbox's oom_score_adj (-998) would fail in runc
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "${l.runcRoot}"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${cniConf}"
    max_conf_num = 1
[plugins."io.containerd.internal.v1.opt"]
  path = "${join(cd, 'opt')}"
`,
  );
  const containerd = await start('containerd', inNode(l, 'containerd', ['--config', join(cd, 'config.toml')]));
  const ctr = (args: readonly string[], opts: RunOptions = {}) =>
    run('ctr', ['--address', l.containerdSocket, '-n', 'k8s.io', ...args], { timeoutMs: 300_000, ...opts });
  await waitFor('containerd', async () => (await ctr(['version'])).code === 0, {
    timeoutMs: 60_000,
    intervalMs: 200,
    abort: abortOn(containerd),
  });
  const importImage = async (a: ImageArchive): Promise<void> => {
    const r = await ctr(['images', 'import', '--all-platforms', a.path]);
    if (r.code !== 0) throw new Error(`ctr images import ${a.path} (${a.ref}): ${r.stderr}`);
  };
  for (const a of o.images) await importImage(a);
  log(`containerd up, ${o.images.length} images imported (${ns(Date.now() - t0)})`);

  // ---- the kubelet: cgroupfs without QoS cgroups, memory-only eviction, no image GC
  const kd = join(l.dir, 'kubelet');
  await writeFile(join(l.dir, 'resolv.conf'), 'nameserver 127.0.0.1\n');
  await writeFile(
    join(kd, 'config.yaml'),
    JSON.stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      cgroupDriver: 'cgroupfs',
      cgroupsPerQOS: false,
      enforceNodeAllocatable: [],
      failSwapOn: false,
      containerRuntimeEndpoint: `unix://${l.containerdSocket}`,
      address: '0.0.0.0',
      port: 10250,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      healthzPort: 10248,
      authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: p('ca.crt') } },
      authorization: { mode: 'Webhook' },
      clusterDomain: 'cluster.local',
      clusterDNS: [],
      resolvConf: join(l.dir, 'resolv.conf'),
      // under the logs, which teardown keeps: the controller's and the servers' logs of the last run
      podLogsDir: join(l.logs, 'pods'),
      volumePluginDir: join(kd, 'volume-plugins'),
      evictionHard: { 'memory.available': '100Mi' },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      serializeImagePulls: false,
      maxPods: 50,
    }),
  );
  const kubeletD = await start(
    'kubelet',
    inNode(l, tools.kubelet, [
      `--config=${join(kd, 'config.yaml')}`,
      `--kubeconfig=${kubeletKc}`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${NODE_IP}`,
      `--root-dir=${kd}`,
      `--cert-dir=${join(kd, 'pki')}`,
      '--v=2',
    ]),
  );
  type NodeObj = { status?: { conditions?: { type: string; status: string }[] } };
  await waitFor(
    `Node ${NODE_NAME} Ready`,
    async () =>
      (await json<NodeObj>('GET', `/api/v1/nodes/${NODE_NAME}`)).status?.conditions?.some(
        (c) => c.type === 'Ready' && c.status === 'True',
      ) === true,
    { timeoutMs: 180_000, intervalMs: 300, abort: abortOn(kubeletD) },
  );
  const nodeReadyMs = Date.now() - t0;
  log(`Node ${NODE_NAME} Ready ${ns(nodeReadyMs)} after start`);

  const kubectl = (args: readonly string[], opts: Pick<RunOptions, 'input' | 'timeoutMs'> = {}) =>
    run(...inNetns(l, 'kubectl', ['--kubeconfig', adminKc, ...args]), { timeoutMs: 120_000, ...opts });
  let stopped = false;
  return {
    layout: l,
    nodeName: NODE_NAME,
    nodeReadyMs,
    kubectl,
    async apply(objectsOrYaml) {
      const input =
        typeof objectsOrYaml === 'string' ? objectsOrYaml : JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objectsOrYaml });
      const r = await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=valkey-krm-test', '-f', '-'], { input });
      if (r.code !== 0) throw new Error(`kubectl apply failed (${r.code}):\n${r.stderr}`);
    },
    request,
    json,
    exec: (cmd, args, opts) => run(...inNetns(l, cmd, args), { timeoutMs: 120_000, ...opts }),
    spawn(name, cmd, args, env) {
      const d = spawnDaemon(`x-${name}`, ...inNetns(l, cmd, args), join(l.logs, `x-${name}.log`), env);
      // the PID file lets teardown stop it after a crash; written synchronously so it is never missing
      writeFileSync(join(l.pids, `x-${name}`), String(d.pid));
      return d;
    },
    async containerPid(containerId) {
      const id = containerId.replace(/^containerd:\/\//, '');
      const r = await ctr(['tasks', 'ls']);
      const line = r.stdout.split('\n').find((s) => s.startsWith(`${id} `));
      const pid = Number(line?.trim().split(/\s+/)[1]);
      if (!(pid > 0)) throw new Error(`no running task for container ${id}:\n${r.stdout}`);
      return pid;
    },
    importImage,
    async stop() {
      if (stopped) return;
      stopped = true;
      await tearDownNode(l);
    },
  };
}

/** The last lines of one of the node's logs (kubelet, containerd, kube-apiserver, ...). */
export const nodeLog = (l: NodeLayout, name: string, lines = 40): string => tailFile(join(l.logs, `${name}.log`), lines);
