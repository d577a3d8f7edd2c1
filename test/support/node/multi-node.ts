// Several real Kubernetes nodes for end-to-end tests of what Kubernetes does to a cluster (issue 31:
// node drains, node-pool upgrades, a lost node or zone): one control plane (etcd, kube-apiserver,
// kube-controller-manager with taint-based eviction, kube-scheduler) and N nodes, each with its own
// containerd + runc, CNI bridge and pod subnet, node IP, zone label, kubelet and private mount
// namespace, all inside ONE network namespace this harness creates (no link out). The namespace's
// own routing table routes between the nodes' bridges (directly connected subnets, ip_forward on in
// the namespace only). The recipe is ../shared/multi-node/README.md; the single-node harness it
// extends is real-node.ts (same settings, same teardown by PID file, runc state and socket path).
//
//   const w = await startMultiNode({ name: 'mn', nodes: [{ name: 'node-a', zone: 'zone-a' }, ...], images });
//   await w.kubectl(['drain', 'node-a', ...]);    // kubectl inside the namespace, as cluster admin
//   await w.crash('node-b');                      // node loss: every process SIGKILLed, its traffic dropped
//   await w.stop();                               // tearDownWorld: nothing left behind
//
// The world implements RealNode (layout = the world's: its netns, proxy socket, logs), so the node
// suite's controller Deployment, package and writer work on it unchanged.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { ensureTools, type ToolPaths } from '../apiserver.js';
import { run, type RunOptions } from '../exec.js';
import { spawnDaemon, tailFile, waitFor, type Daemon } from '../process.js';
import type { ImageArchive } from './images.js';
import {
  API_PORT,
  inNetns,
  KUBELET_FIXED_DIRS,
  KUBELET_SYSCTLS,
  KUBERNETES_SERVICE_IP,
  layoutOf,
  NODE_IP,
  SERVICE_RANGE,
  type NodeLayout,
} from './layout.js';
import type { RawResponse, RealNode } from './real-node.js';
import {
  cgroupDirs,
  cniNetnsFiles,
  hostBefore,
  pidsMentioning,
  removeRuntimeTraces,
  runcContainers,
  stopRuntime,
  tearDownNode,
  type TeardownReport,
} from './teardown.js';

export interface NodeSpec {
  /** The Node's name (hostname-override), 1-16 of [a-z0-9-]. */
  name: string;
  /** Its topology.kubernetes.io/zone label. */
  zone: string;
}

export interface WorldNode extends NodeSpec {
  /** The node IP, on the namespace's lo (the kubelet listens there). */
  ip: string;
  podSubnet: string;
  /** The node's runtime layout (its containerd, runc root, mount namespace); netns and proxy are the world's. */
  layout: NodeLayout;
}

export interface MultiNodeOptions {
  name: string;
  nodes: readonly NodeSpec[];
  images: readonly ImageArchive[];
  log?: (msg: string) => void;
}

export interface MultiNodeWorld extends RealNode {
  readonly nodes: readonly WorldNode[];
  /**
   * Node loss: the kubelet, containerd, the shims and every container process of the node SIGKILLed
   * at once, then every packet to or from its IP and pod subnet dropped inside the namespace (a
   * dead machine answers nothing: without the drop its pods' veths would answer with RST).
   * Returns how many processes were killed.
   */
  crash(node: string): Promise<number>;
}

/** The API server's address is NODE_IP (as on the single node); node i (1-based) gets 10.123.255.(10+i) and 10.123.i.0/24. */
const nodeIp = (i: number): string => `10.123.255.${10 + i}`;
const podSubnet = (i: number): string => `10.123.${i}.0/24`;
const podGateway = (i: number): string => `10.123.${i}.1`;

/** The runtime layout of one node of world `w` (its directory under the world's, its nsfs file in the world's ns/). */
export function worldNodeLayout(w: NodeLayout, name: string, i: number): NodeLayout {
  const dir = join(w.dir, 'nodes', name);
  return {
    ...w,
    name,
    dir,
    mntnsPath: join(w.mntnsDir, name),
    pids: join(dir, 'pids'),
    // under the world's logs, which teardown keeps
    logs: join(w.logs, name),
    containerdSocket: join(dir, 'containerd', 'containerd.sock'),
    runcRoot: join(dir, 'runc'),
    cniNetwork: `${w.cniNetwork}-${i}`,
    cniIpam: join(dir, 'cni-ipam'),
  };
}

/** The node layouts a world left on disk (running, half-started or crashed). */
const nodesOnDisk = (w: NodeLayout): NodeLayout[] => {
  const dir = join(w.dir, 'nodes');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((name, i) => {
      const index = Number(existsSync(join(dir, name, 'index')) ? readFileSync(join(dir, name, 'index'), 'utf8') : i + 1);
      return worldNodeLayout(w, name, index);
    });
};

/**
 * Removes every trace of a multi-node world: each node's runtime (kubelet, containers through its
 * containerd or runc's state root, containerd, shims by socket path, its mount namespace, CNI
 * results, cgroups), then the control plane, the namespace, the pod netns files and the host's
 * settings exactly as tearDownNode does for one node. Idempotent; safe after a crash.
 */
export async function tearDownWorld(w: NodeLayout): Promise<TeardownReport> {
  const report: TeardownReport = { leftoverContainers: 0, leftoverShims: 0, leftoverMounts: [], sysctlsRestored: false };
  // the writer and other extras first: they talk to the nodes
  if (existsSync(w.pids))
    for (const f of readdirSync(w.pids).filter((f) => f.startsWith('x-'))) {
      const pid = Number(readFileSync(join(w.pids, f), 'utf8'));
      if (pid > 0 && pidsMentioning(w.dir).includes(pid)) process.kill(pid, 'SIGKILL');
    }
  for (const n of nodesOnDisk(w)) {
    const known = await stopRuntime(n, report);
    for (const pid of pidsMentioning(n.dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    if (existsSync(n.mntnsPath)) await run('umount', [n.mntnsPath], { timeoutMs: 30_000 });
    removeRuntimeTraces(n, known);
  }
  const rest = await tearDownNode(w);
  return {
    leftoverContainers: report.leftoverContainers + rest.leftoverContainers,
    leftoverShims: report.leftoverShims + rest.leftoverShims,
    leftoverMounts: rest.leftoverMounts,
    sysctlsRestored: rest.sysctlsRestored,
  };
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const host = (cmd: string, ...args: string[]): [string, string[]] => [cmd, args];

async function must(what: string, [cmd, args]: [string, string[]], opts: RunOptions = {}): Promise<string> {
  const r = await run(cmd, args, { timeoutMs: 120_000, ...opts });
  if (r.code !== 0) throw new Error(`${what}: ${cmd} ${args.join(' ')} exited ${r.code}\n${r.stderr.slice(-3000)}`);
  return r.stdout;
}

export async function startMultiNode(o: MultiNodeOptions): Promise<MultiNodeWorld> {
  const w = layoutOf(o.name);
  const log = o.log ?? ((): void => {});
  const t0 = Date.now();
  const tools = await ensureTools();
  const before = await tearDownWorld(w);
  if (before.leftoverContainers + before.leftoverShims + before.leftoverMounts.length > 0)
    log(`cleaned a previous run of ${o.name}: ${JSON.stringify(before)}`);
  try {
    return await startIn(w, o, tools, t0, log);
  } catch (e) {
    const logDirs = [w.logs, ...o.nodes.map((n) => join(w.logs, n.name))];
    const tails = logDirs
      .flatMap((d) =>
        existsSync(d)
          ? readdirSync(d)
              .filter((f) => f.endsWith('.log'))
              .map((f) => join(d, f))
          : [],
      )
      .map((f) => `----- ${f} -----\n${tailFile(f, 20)}`)
      .join('\n');
    await tearDownWorld(w);
    throw new Error(`multi-node world ${o.name} failed to start: ${(e as Error).message}\n${tails}`, { cause: e });
  }
}

async function startIn(
  w: NodeLayout,
  o: MultiNodeOptions,
  tools: ToolPaths,
  t0: number,
  log: (msg: string) => void,
): Promise<MultiNodeWorld> {
  if (o.nodes.length < 1 || o.nodes.length > 9) throw new Error(`multi-node world ${o.name}: 1 to 9 nodes, not ${o.nodes.length}`);
  for (const d of [w.pids, w.logs, w.pki, w.mntnsDir, join(w.dir, 'etcd'), join(w.dir, 'nodes')]) await mkdir(d, { recursive: true });
  await writeFile(w.netnsBefore, [...cniNetnsFiles()].join('\n'));
  if (!existsSync(w.sysctlsOrig)) {
    const values = await must('sysctl', host('sysctl', ...KUBELET_SYSCTLS));
    await writeFile(w.sysctlsOrig, values.replaceAll(' = ', '='));
  }
  if (!existsSync(w.hostOrig)) await writeFile(w.hostOrig, JSON.stringify(await hostBefore()));

  // ---- the network namespace: lo carries 127.0.0.1, the API server's address and every node IP;
  //      ip_forward (per namespace) routes between the nodes' bridges; the kubernetes ClusterIP by DNAT
  await must('netns', host('ip', 'netns', 'add', w.netns));
  await must('lo up', host('ip', '-n', w.netns, 'link', 'set', 'lo', 'up'));
  await must('API IP', host('ip', '-n', w.netns, 'addr', 'add', `${NODE_IP}/32`, 'dev', 'lo'));
  for (const i of o.nodes.keys()) await must('node IP', host('ip', '-n', w.netns, 'addr', 'add', `${nodeIp(i + 1)}/32`, 'dev', 'lo'));
  await must('ip_forward', inNetns(w, 'sysctl', ['-qw', 'net.ipv4.ip_forward=1']));
  for (const chain of ['PREROUTING', 'OUTPUT']) {
    const rule = ['-d', KUBERNETES_SERVICE_IP, '-p', 'tcp', '--dport', '443', '-j', 'DNAT', '--to-destination', `${NODE_IP}:${API_PORT}`];
    await must('kubernetes Service DNAT', inNetns(w, 'iptables', ['-t', 'nat', '-A', chain, ...rule]));
  }
  // One directory, bind-mounted private, holds every node's mount-namespace file. The kernel does
  // not copy nsfs mounts into a mount namespace made later, so each namespace dies on its own.
  await must('bind ns', host('mount', '--bind', w.mntnsDir, w.mntnsDir));
  await must('private ns', host('mount', '--make-private', w.mntnsDir));

  // ---- PKI: a CA, the API server's serving cert, its kubelet client cert, the SA keys, a token per identity
  const p = (f: string): string => join(w.pki, f);
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
    const signArgs = ['-CA', p('ca.crt'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p(`${name}.crt`), '-days', '2'];
    await openssl('x509', '-req', '-in', p(`${name}.csr`), ...signArgs, ...extArgs);
  };
  const sans = [
    'IP:127.0.0.1',
    `IP:${NODE_IP}`,
    `IP:${KUBERNETES_SERVICE_IP}`,
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
  ];
  await sign(
    'apiserver',
    '/CN=kube-apiserver',
    `subjectAltName=${[...sans, 'DNS:kubernetes.default.svc', 'DNS:kubernetes.default.svc.cluster.local'].join(',')}\n`,
  );
  await sign('kubelet-client', '/O=system:masters/CN=kube-apiserver-kubelet-client');
  await openssl('genrsa', '-out', p('sa.key'), '2048');
  await openssl('rsa', '-in', p('sa.key'), '-pubout', '-out', p('sa.pub'));
  const tok = (): string => randomBytes(24).toString('hex');
  const [admin, kcm, sched] = [tok(), tok(), tok()];
  const kubeletTokens = o.nodes.map(() => tok());
  // The controller-manager in system:masters: with --use-service-account-credentials=false it needs
  // every controller's rights. Each kubelet is system:node:<name> (NodeRestriction lets it set its zone label).
  await writeFile(
    p('tokens.csv'),
    [
      `${admin},admin,admin,system:masters`,
      `${kcm},system:kube-controller-manager,kcm,system:masters`,
      `${sched},system:kube-scheduler,sched`,
      ...o.nodes.map((n, i) => `${kubeletTokens[i]},system:node:${n.name},node-${n.name},system:nodes`),
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

  const start = async (pidsDir: string, logsDir: string, name: string, [cmd, args]: [string, string[]]): Promise<Daemon> => {
    const d = spawnDaemon(name, cmd, args, join(logsDir, `${name}.log`));
    await writeFile(join(pidsDir, name), String(d.pid));
    return d;
  };
  const abortOn = (d: Daemon) => () => (d.hasExited() ? `${d.name} exited (log ${d.logPath})` : undefined);

  // ---- etcd + kube-apiserver (0.0.0.0 inside the namespace: pods reach it at NODE_IP or the ClusterIP)
  await start(
    w.pids,
    w.logs,
    'etcd',
    inNetns(w, tools.etcd, [
      `--data-dir=${join(w.dir, 'etcd')}`,
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
    w.pids,
    w.logs,
    'kube-apiserver',
    inNetns(w, tools.kubeApiserver, [
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
      ...inNetns(w, 'curl', [
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
  log(`kube-apiserver ready (${secs(Date.now() - t0)})`);

  // ---- kube-controller-manager: as on the single node, plus taint-eviction-controller (since 1.29
  //      what deletes pods from an unreachable node); Kubernetes' defaults for node monitoring
  const controllers = [
    'statefulset-controller',
    'disruption-controller',
    'garbage-collector-controller',
    'serviceaccount-controller',
    'serviceaccount-token-controller',
    'root-ca-certificate-publisher-controller',
    'node-lifecycle-controller',
    'taint-eviction-controller',
    'endpoints-controller',
    'endpointslice-controller',
    'pod-garbage-collector-controller',
    'namespace-controller',
    'replicaset-controller',
    'deployment-controller',
    'ttl-controller',
  ];
  await start(
    w.pids,
    w.logs,
    'kube-controller-manager',
    inNetns(w, tools.kubeControllerManager, [
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
    w.pids,
    w.logs,
    'kube-scheduler',
    inNetns(w, tools.kubeScheduler, [`--kubeconfig=${schedKc}`, '--leader-elect=false', '--secure-port=0', '--v=2']),
  );
  const proxy = await start(
    w.pids,
    w.logs,
    'kubectl-proxy',
    inNetns(w, 'kubectl', ['--kubeconfig', adminKc, 'proxy', `--unix-socket=${w.proxySocket}`]),
  );

  const request = (method: string, path: string, body?: unknown, contentType?: string): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = httpRequest(
        {
          socketPath: w.proxySocket,
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
  log(`controllers and scheduler up (${secs(Date.now() - t0)})`);

  // ---- the nodes, one after another (each imports the images: on 2 cores in parallel is no faster)
  const nodes: WorldNode[] = [];
  for (const [k, spec] of o.nodes.entries()) {
    const i = k + 1;
    const l = worldNodeLayout(w, spec.name, i);
    nodes.push({ ...spec, ip: nodeIp(i), podSubnet: podSubnet(i), layout: l });
    await startNode(w, l, i, spec, kubeletTokens[k] as string, tools, start, json, kubeconfig, o.images);
    log(`Node ${spec.name} (${nodeIp(i)}, ${spec.zone}) Ready (${secs(Date.now() - t0)})`);
  }

  const kubectl = (args: readonly string[], opts: Pick<RunOptions, 'input' | 'timeoutMs'> = {}) =>
    run(...inNetns(w, 'kubectl', ['--kubeconfig', adminKc, ...args]), { timeoutMs: 120_000, ...opts });
  const ctrOf = (l: NodeLayout) => (args: readonly string[]) =>
    run('ctr', ['--address', l.containerdSocket, '-n', 'k8s.io', ...args], { timeoutMs: 300_000 });
  let stopped = false;
  return {
    layout: w,
    nodeName: nodes[0]?.name ?? '',
    nodeReadyMs: Date.now() - t0,
    nodes,
    kubectl,
    async apply(objectsOrYaml) {
      const input =
        typeof objectsOrYaml === 'string' ? objectsOrYaml : JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objectsOrYaml });
      const r = await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=valkey-krm-test', '-f', '-'], { input });
      if (r.code !== 0) throw new Error(`kubectl apply failed (${r.code}):\n${r.stderr}`);
    },
    request,
    json,
    exec: (cmd, args, opts) => run(...inNetns(w, cmd, args), { timeoutMs: 120_000, ...opts }),
    spawn(name, cmd, args, env) {
      const d = spawnDaemon(`x-${name}`, ...inNetns(w, cmd, args), join(w.logs, `x-${name}.log`), env);
      writeFileSync(join(w.pids, `x-${name}`), String(d.pid));
      return d;
    },
    async containerPid(containerId) {
      const id = containerId.replace(/^containerd:\/\//, '');
      for (const n of nodes) {
        const line = (await ctrOf(n.layout)(['tasks', 'ls'])).stdout.split('\n').find((s) => s.startsWith(`${id} `));
        const pid = Number(line?.trim().split(/\s+/)[1]);
        if (pid > 0) return pid;
      }
      throw new Error(`no running task for container ${id} on any node`);
    },
    async importImage(a) {
      for (const n of nodes) {
        const r = await ctrOf(n.layout)(['images', 'import', '--all-platforms', a.path]);
        if (r.code !== 0) throw new Error(`ctr images import ${a.path} (${a.ref}) on ${n.name}: ${r.stderr}`);
      }
    },
    async crash(name) {
      const n = nodes.find((x) => x.name === name);
      if (!n) throw new Error(`crash: no node ${name} (nodes: ${nodes.map((x) => x.name).join(', ')})`);
      const pids = new Set<number>();
      for (const f of ['kubelet', 'containerd']) {
        const file = join(n.layout.pids, f);
        if (existsSync(file)) pids.add(Number(readFileSync(file, 'utf8')));
      }
      for (const pid of pidsMentioning(`-address ${n.layout.containerdSocket}`)) pids.add(pid);
      for (const id of await runcContainers(n.layout))
        for (const d of cgroupDirs('k8s.io', id))
          for (const pid of readFileSync(join(d, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) pids.add(Number(pid));
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
      for (const rule of [
        ['FORWARD', '-d', n.podSubnet],
        ['FORWARD', '-s', n.podSubnet],
        ['OUTPUT', '-d', n.podSubnet],
        ['OUTPUT', '-d', n.ip],
        ['INPUT', '-s', n.podSubnet],
      ])
        await must(`drop ${n.name}'s traffic`, inNetns(w, 'iptables', ['-I', ...rule, '-j', 'DROP']));
      return pids.size;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await tearDownWorld(w);
    },
  };
}

async function startNode(
  w: NodeLayout,
  l: NodeLayout,
  i: number,
  spec: NodeSpec,
  token: string,
  tools: ToolPaths,
  start: (pidsDir: string, logsDir: string, name: string, cmd: [string, string[]]) => Promise<Daemon>,
  json: <T>(method: string, path: string) => Promise<T>,
  kubeconfig: (name: string, token: string) => Promise<string>,
  images: readonly ImageArchive[],
): Promise<void> {
  for (const d of [l.pids, l.logs, l.cniIpam, join(l.dir, 'kubelet'), join(l.dir, 'containerd')]) await mkdir(d, { recursive: true });
  await writeFile(join(l.dir, 'index'), String(i));
  const inNode = (cmd: string, args: readonly string[]): [string, string[]] => [
    'nsenter',
    [`--net=${w.netnsPath}`, `--mount=${l.mntnsPath}`, '--', cmd, ...args],
  ];
  // ---- the node's private mount namespace: its own /var/lib/kubelet and /var/log/containers
  await writeFile(l.mntnsPath, '');
  await must('unshare', host('unshare', `--mount=${l.mntnsPath}`, '--propagation', 'slave', 'true'));
  for (const [fixed, own] of Object.entries(KUBELET_FIXED_DIRS)) {
    if (!existsSync(fixed)) await mkdir(fixed);
    await mkdir(join(l.dir, own), { recursive: true });
    await must(`own ${fixed}`, host('nsenter', `--mount=${l.mntnsPath}`, 'mount', '--bind', join(l.dir, own), fixed));
  }
  // ---- CNI: the node's bridge and pod subnet (routes between bridges: the namespace's own table)
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
          bridge: `vknbr${i}`,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            dataDir: l.cniIpam,
            ranges: [[{ subnet: podSubnet(i), gateway: podGateway(i) }]],
            routes: [{ dst: '0.0.0.0/0' }],
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    }),
  );
  // ---- containerd: its own root, state, socket and runc root
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
  const containerd = await start(l.pids, l.logs, 'containerd', inNode('containerd', ['--config', join(cd, 'config.toml')]));
  const ctr = (args: readonly string[]) => run('ctr', ['--address', l.containerdSocket, '-n', 'k8s.io', ...args], { timeoutMs: 300_000 });
  await waitFor(`${spec.name} containerd`, async () => (await ctr(['version'])).code === 0, {
    timeoutMs: 60_000,
    intervalMs: 200,
    abort: () => (containerd.hasExited() ? `containerd exited (log ${containerd.logPath})` : undefined),
  });
  for (const a of images) {
    const r = await ctr(['images', 'import', '--all-platforms', a.path]);
    if (r.code !== 0) throw new Error(`ctr images import ${a.path} (${a.ref}) on ${spec.name}: ${r.stderr}`);
  }
  // ---- the kubelet: its own address and healthz on the node IP, the zone label
  const kd = join(l.dir, 'kubelet');
  await writeFile(join(l.dir, 'resolv.conf'), 'nameserver 127.0.0.1\n');
  const p = (f: string): string => join(w.pki, f);
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
      address: nodeIp(i),
      port: 10250,
      readOnlyPort: 0,
      healthzBindAddress: nodeIp(i),
      healthzPort: 10248,
      authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: p('ca.crt') } },
      authorization: { mode: 'Webhook' },
      clusterDomain: 'cluster.local',
      clusterDNS: [],
      resolvConf: join(l.dir, 'resolv.conf'),
      podLogsDir: join(l.logs, 'pods'),
      volumePluginDir: join(kd, 'volume-plugins'),
      evictionHard: { 'memory.available': '100Mi' },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      serializeImagePulls: false,
      maxPods: 30,
    }),
  );
  const kubelet = await start(
    l.pids,
    l.logs,
    'kubelet',
    inNode(tools.kubelet, [
      `--config=${join(kd, 'config.yaml')}`,
      `--kubeconfig=${await kubeconfig(`kubelet-${spec.name}`, token)}`,
      `--hostname-override=${spec.name}`,
      `--node-ip=${nodeIp(i)}`,
      `--root-dir=${kd}`,
      `--cert-dir=${join(kd, 'pki')}`,
      `--node-labels=topology.kubernetes.io/zone=${spec.zone}`,
      '--v=2',
    ]),
  );
  type NodeObj = { status?: { conditions?: { type: string; status: string }[] } };
  await waitFor(
    `Node ${spec.name} Ready`,
    async () =>
      (await json<NodeObj>('GET', `/api/v1/nodes/${spec.name}`)).status?.conditions?.some(
        (c) => c.type === 'Ready' && c.status === 'True',
      ) === true,
    { timeoutMs: 180_000, intervalMs: 300, abort: () => (kubelet.hasExited() ? `kubelet exited (log ${kubelet.logPath})` : undefined) },
  );
}
