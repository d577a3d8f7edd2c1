// What every real-node e2e file sets up the same way: the images, the node, the CRDs, the shipped
// controller as its Deployment from deploy/controller/ (only the image reference changed, by a
// kustomize `images:` entry, built by the kustomize the tools script builds), the system users'
// Secrets, and the questions the cases ask (pods, ValkeyCluster status, CONFIG GET on a pod).
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { SYSTEM_USERNAMES } from '../../../src/api/index.js';
import { ensureTools } from '../apiserver.js';
import { run } from '../exec.js';
import { CRD_DIR, repoPath } from '../paths.js';
import { tailFile, waitFor } from '../process.js';
import { makePki, type TestPki } from '../tls.js';
import { valkeyCliPath } from '../valkey.js';
import { nodeImages, type NodeImages } from './images.js';
import { startNetnsWriter, type NetnsWriter } from './netns-writer.js';
import { renderPackage, type PackageInputs } from './package.js';
import { startRealNode, type RealNode } from './real-node.js';
import type { ValkeyBuild } from '../valkey.js';

export const CONTROLLER_NAMESPACE = 'valkey-system';

export interface Pod {
  metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string; containers: { image: string }[] };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { containerID?: string; restartCount: number; ready: boolean }[];
  };
}

export interface ClusterStatus {
  state?: string;
  message?: string;
  observedGeneration?: number;
  nodes?: { pod: string; shard: number; role: string; ip?: string; version?: string; health: string }[];
}

export const isReady = (p: Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
export const secondsSince = (t: number): string => `${((Date.now() - t) / 1000).toFixed(1)} s`;
/** One line of the suite's figures, on stdout so the test command's output carries it. */
export const figure = (text: string): void => void process.stdout.write(`[real node] ${text}\n`);

export interface NodeSuite {
  node: RealNode;
  images: NodeImages;
  pkg: PackageInputs;
  /** Render the package as it is now and apply it; returns when kubectl has. */
  applyPackage(): Promise<void>;
  pods(): Promise<Pod[]>;
  status(): Promise<ClusterStatus & { generation: number }>;
  /** Waits until the ValkeyCluster has observed its latest generation and is Active (with `also`). */
  waitActive(what: string, timeoutMs: number, also?: () => Promise<boolean>): Promise<void>;
  /** valkey-cli on a pod IP as the controller user, inside the namespace; stdout. */
  cli(ip: string, args: readonly string[]): Promise<string>;
  writer(label: string, shards?: number): Promise<NetnsWriter>;
  controllerPods(): Promise<Pod[]>;
  /** The last lines the kubelet kept of a pod's Valkey container (any of its restarts), for a failure's message. */
  podLog(pod: Pod, lines?: number): string;
  /** A TLS suite's CA and first certificate (a wildcard for the cluster's pods and its Service). */
  pki?: TestPki;
  /** A TLS suite: the cluster's TLS Secret applied with this certificate and key (and the CA). */
  applyTlsSecret(cert: string, key: string): Promise<void>;
  stop(): Promise<void>;
}

export interface NodeSuiteOptions {
  name: string;
  /** Valkey images besides valkey/valkey:9.1.2. */
  extraImages?: readonly { build: ValkeyBuild; tag: string }[];
  shards: number;
  replicasPerShard: number;
  /** A TLS cluster: a CA and certificate made here, the Secret created before the package is applied. */
  tls?: boolean;
}

const TLS_SECRET = 'cache-tls';

export async function startNodeSuite(o: NodeSuiteOptions): Promise<NodeSuite> {
  const images = await nodeImages(o.extraImages);
  const node = await startRealNode({ name: o.name, images: images.archives, log: (m) => figure(`${o.name}: ${m}`) });
  try {
    return await prepareNodeSuite(node, images, o);
  } catch (e) {
    await node.stop();
    throw e;
  }
}

/**
 * The CRDs, the shipped controller Deployment and the package on a running world: one real node
 * (startNodeSuite) or several (multi-node.ts, whose world is a RealNode too).
 */
export async function prepareNodeSuite(node: RealNode, images: NodeImages, o: NodeSuiteOptions): Promise<NodeSuite> {
  const pw = (): string => randomBytes(16).toString('hex');
  const pkg: PackageInputs = {
    namespace: 'demo',
    cluster: 'cache',
    image: { tag: '9.1.2', version: '9.1.2' },
    shards: o.shards,
    replicasPerShard: o.replicasPerShard,
    maxmemory: '100mb',
    users: [{ username: 'app', passwords: [pw()] }],
    passwords: { replication: pw(), controller: pw() },
    ...(o.tls ? { tlsSecret: TLS_SECRET } : {}),
  };
  const service = `${pkg.cluster}.${pkg.namespace}.svc.cluster.local`;
  // A year, so CertificateExpiringSoon stays False; one wildcard covers every pod's hostname.
  const pki = o.tls ? makePki([service, `*.${service}`], { days: 365 }) : undefined;
  const tlsSecret = (cert: string, key: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: TLS_SECRET, namespace: pkg.namespace },
    type: 'kubernetes.io/tls',
    stringData: { 'ca.crt': pki?.ca ?? '', 'tls.crt': cert, 'tls.key': key },
  });
  const pkgDir = join(node.layout.dir, 'package');
  const must = async (what: string, args: readonly string[], input?: string): Promise<string> => {
    const r = await node.kubectl(args, input === undefined ? {} : { input });
    if (r.code !== 0) throw new Error(`${what}: kubectl ${args.join(' ')} exited ${r.code}\n${r.stderr}`);
    return r.stdout;
  };
  await must('CRDs', ['apply', '--server-side', '-f', CRD_DIR]);
  await must('CRDs established', ['wait', '--for=condition=established', '--timeout=60s', 'crd', '--all']);
  await node.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: pkg.namespace } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'valkey-replication', namespace: pkg.namespace },
      stringData: { password: pkg.passwords.replication },
    },
    ...(pki ? [tlsSecret(pki.cert, pki.key)] : []),
  ]);

  // The shipped controller: deploy/controller/ as a kustomize base, only its image replaced.
  const tools = await ensureTools();
  const kdir = join(node.layout.dir, 'controller-kustomization');
  await mkdir(kdir, { recursive: true });
  const [newName, newTag] = images.project.split(/:(?=[^:]+$)/) as [string, string];
  // The name to replace is whatever deploy/controller/ ships (its image line without the tag).
  const shipped = /^\s*image:\s*(\S+?)(?::[^:/\s]+)?\s*$/m.exec(readFileSync(repoPath('deploy/controller/deployment.yaml'), 'utf8'))?.[1];
  if (shipped === undefined) throw new Error('deploy/controller/deployment.yaml: no image line to replace');
  await writeFile(
    join(kdir, 'kustomization.yaml'),
    JSON.stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: [relative(kdir, repoPath('deploy/controller'))],
      images: [{ name: shipped, newName, newTag }],
    }),
  );
  const built = await run(tools.kustomize, ['build', kdir]);
  if (built.code !== 0) throw new Error(`kustomize build ${kdir}: ${built.stderr}`);
  await node.apply(built.stdout);
  await node.apply([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'valkey-controller', namespace: CONTROLLER_NAMESPACE },
      stringData: { password: pkg.passwords.controller },
    },
  ]);
  const t = Date.now();
  const controllerPods = async (): Promise<Pod[]> =>
    (
      await node.json<{ items: Pod[] }>(
        'GET',
        `/api/v1/namespaces/${CONTROLLER_NAMESPACE}/pods?labelSelector=app.kubernetes.io/name=valkey-status-sync`,
      )
    ).items;
  await waitFor('the controller Deployment: 2 pods Ready', async () => (await controllerPods()).filter(isReady).length === 2, {
    timeoutMs: 180_000,
    intervalMs: 500,
  });
  figure(`controller Deployment (${images.project}) Ready in ${secondsSince(t)}`);

  const clusterPath = `/apis/valkey.gomomento.com/v1alpha1/namespaces/${pkg.namespace}/valkeyclusters/${pkg.cluster}`;
  const status = async () => {
    const vc = await node.json<{ metadata: { generation: number }; status?: ClusterStatus }>('GET', clusterPath);
    return { ...(vc.status ?? {}), generation: vc.metadata.generation };
  };
  const suite: NodeSuite = {
    node,
    images,
    pkg,
    async applyPackage() {
      const r = await renderPackage(pkg, pkgDir);
      await node.apply(r.yaml);
    },
    pods: async () =>
      (
        await node.json<{ items: Pod[] }>(
          'GET',
          `/api/v1/namespaces/${pkg.namespace}/pods?labelSelector=${encodeURIComponent(`valkey.gomomento.com/cluster=${pkg.cluster}`)}`,
        )
      ).items,
    status,
    async waitActive(what, timeoutMs, also) {
      let last = '';
      await waitFor(
        what,
        async () => {
          const s = await status();
          last = `${s.state ?? '-'} (observed ${s.observedGeneration ?? '-'} of ${s.generation}): ${s.message ?? ''}`;
          return s.state === 'Active' && s.observedGeneration === s.generation && (also ? await also() : true);
        },
        { timeoutMs, intervalMs: 500 },
      ).catch((e: Error) => {
        throw new Error(`${e.message}; last status: ${last}`);
      });
    },
    async cli(ip, args) {
      const r = await node.exec(valkeyCliPath(), [
        '-h',
        ip,
        '--user',
        SYSTEM_USERNAMES.controller,
        '--pass',
        pkg.passwords.controller,
        '--no-auth-warning',
        ...args,
      ]);
      if (r.code !== 0) throw new Error(`valkey-cli -h ${ip} ${args.join(' ')}: ${r.stderr}`);
      return r.stdout.trim();
    },
    writer: (label, shards = pkg.shards) =>
      startNetnsWriter(node, {
        namespace: pkg.namespace,
        cluster: pkg.cluster,
        shards,
        controllerPassword: pkg.passwords.controller,
        app: { username: 'app', password: pkg.users[0]?.passwords[0] ?? '' },
        label,
        ...(pki ? { tls: { ca: pki.ca, cert: pki.cert, key: pki.key, seedServername: service } } : {}),
      }),
    controllerPods,
    podLog(pod, lines = 40) {
      // one node keeps pod logs in <logs>/pods, each node of a multi-node world in <logs>/<node>/pods
      const podDir = `${pkg.namespace}_${pod.metadata.name}_${pod.metadata.uid}`;
      const nodeDirs = readdirSync(node.layout.logs, { withFileTypes: true }).filter((e) => e.isDirectory());
      const dir =
        [join(node.layout.logs, 'pods', podDir), ...nodeDirs.map((e) => join(node.layout.logs, e.name, 'pods', podDir))].find((d) =>
          existsSync(d),
        ) ?? join(node.layout.logs, 'pods', podDir);
      if (!existsSync(dir)) return `(no logs kept for ${pod.metadata.name}: ${dir} is missing)`;
      return readdirSync(dir)
        .flatMap((c) => readdirSync(join(dir, c)).map((f) => join(dir, c, f)))
        .sort()
        .map((f) => `----- ${relative(dir, f)} -----\n${tailFile(f, lines)}`)
        .join('\n');
    },
    ...(pki ? { pki } : {}),
    async applyTlsSecret(cert, key) {
      if (!pki) throw new Error('applyTlsSecret: this suite was started without tls');
      await node.apply([tlsSecret(cert, key)]);
    },
    stop: async () => {
      await node.stop();
      pki?.remove();
    },
  };
  return suite;
}
