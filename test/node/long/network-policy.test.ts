// The rendered NetworkPolicy enforced by a real enforcer on a real node (issue 37; `npm run
// test:long`, not CI). kube-router's network-policy controller (iptables + ipset, built from its Go
// module by scripts/build-kube-router.sh; TEST-ONLY, see that script for why v2.1.0 is acceptable
// only here) runs inside the node's own network namespace with its router and service proxy off.
// With it enforcing from before the package is applied:
//   - the cluster forms, serves and fails over (bus gossip and votes, replication, the controller's
//     pods reaching both ports, the rendered probes), and a client writes and reads with nothing lost;
//   - from inside real pods' network namespaces: another cluster's pod in the same namespace is
//     refused on the bus port but reaches the client port (every pod of the namespace may), a pod of
//     another namespace is refused on both, the cluster's own pods and the controller's reach both;
//   - with the NetworkPolicy deleted, the other cluster's pod reaches the bus (the refusal was the
//     policy's), and applied again, it is refused again;
//   - a Valkey node of another cluster, run in that pod (its IP), MEETs every pod of the cluster:
//     for three node timeouts no node of the cluster lists it, nor it any of theirs (the merge of
//     docs/security.md prevented, not only undone by the controller); without the policy the same
//     MEET gets it into the tables, and once it is stopped and the policy is back the cluster is
//     Active with no node listing it.
// The writer runs in the node's namespace, not in a pod: kube-router, like most enforcers, always
// lets a node reach its own pods (its kubelet), so the writer proves the data path, the probes
// prove the policy.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS } from '../../../src/api/index.js';
import { run } from '../../support/exec.js';
import { PAUSE_IMAGE, nodeImages } from '../../support/node/images.js';
import { SERVICE_RANGE } from '../../support/node/layout.js';
import {
  CONTROLLER_NAMESPACE,
  figure,
  isReady,
  prepareNodeSuite,
  secondsSince,
  type NodeSuite,
  type Pod,
} from '../../support/node/node-suite.js';
import { renderPackage } from '../../support/node/package.js';
import { startRealNode, type RealNode } from '../../support/node/real-node.js';
import { repoPath } from '../../support/paths.js';
import { SUPPORTED_BUILD, valkeyCliPath, valkeyServerPath } from '../../support/valkey.js';
import { tailFile, waitFor, type Daemon } from '../../support/process.js';

const MIN = 60_000;
const CLIENT_PORT = 6379;
const BUS_PORT = 16379;
const ELSEWHERE = 'elsewhere';

type Reach = 'open' | 'refused' | 'timeout';

/** kube-router from the tools cache (built on first use) and the ipset command it runs. */
function kubeRouterPath(): string {
  const env = execFileSync('bash', [repoPath('scripts/build-kube-router.sh'), '--print-env'], { encoding: 'utf8' });
  const bin = /^KUBE_ROUTER=(.+)$/m.exec(env)?.[1];
  if (!bin || !existsSync(bin)) throw new Error(`scripts/build-kube-router.sh printed no usable KUBE_ROUTER=: ${env}`);
  const ipset = execFileSync('bash', ['-c', 'command -v ipset || true'], { encoding: 'utf8' }).trim();
  if (!ipset) throw new Error('kube-router needs the ipset command: apt-get install ipset (scripts/test-all.sh installs it)');
  return bin;
}

describe('the rendered NetworkPolicy, enforced by kube-router on a real node', () => {
  let s: NodeSuite;
  let node: RealNode;
  let router: Daemon;
  const suiteStart = Date.now();
  beforeAll(async () => {
    const bin = kubeRouterPath();
    const images = await nodeImages();
    node = await startRealNode({ name: 'netpol', images: images.archives, log: (m) => figure(`netpol: ${m}`) });
    try {
      // Bridged pod-to-pod packets must pass iptables for any enforcer on a bridge CNI (per namespace).
      const sys = await node.exec('sysctl', ['-w', 'net.bridge.bridge-nf-call-iptables=1']);
      if (sys.code !== 0) throw new Error(`sysctl net.bridge.bridge-nf-call-iptables=1: ${sys.stderr}`);
      router = node.spawn('kube-router', bin, [
        `--kubeconfig=${join(node.layout.pki, 'admin.kubeconfig')}`,
        `--hostname-override=${node.nodeName}`,
        '--run-firewall=true',
        '--run-router=false',
        '--run-service-proxy=false',
        `--service-cluster-ip-range=${SERVICE_RANGE}`,
        '--metrics-port=0',
        '--v=1',
      ]);
      await waitFor('kube-router healthy', async () => (await node.exec('curl', ['-sf', 'http://127.0.0.1:20244/healthz'])).code === 0, {
        timeoutMs: 2 * MIN,
        intervalMs: 500,
        abort: () => (router.hasExited() ? `kube-router exited:\n${tailFile(router.logPath, 40)}` : undefined),
      });
      await waitFor(
        'kube-router hooked FORWARD',
        async () => (await iptablesSave()).includes('-A FORWARD') && (await iptablesSave()).includes('KUBE-ROUTER-FORWARD'),
        {
          timeoutMs: MIN,
          intervalMs: 500,
        },
      );
      figure(`netpol: kube-router's firewall controller up ${secondsSince(suiteStart)} after start`);
      s = await prepareNodeSuite(node, images, { name: 'netpol', shards: 3, replicasPerShard: 1 });
    } catch (e) {
      await node.stop();
      throw e;
    }
    const rendered = await renderPackage(s.pkg);
    expect(rendered.yaml).toMatch(/^kind: NetworkPolicy$/m);
    const t = Date.now();
    await s.applyPackage();
    await s.waitActive('the ValkeyCluster Active with its NetworkPolicy enforced', 10 * MIN, async () => (await readyPods()).length === 6);
    figure(`netpol: 6 pods Ready, formed, Active ${secondsSince(t)} after apply, with the policy enforced`);
  }, 30 * MIN);
  afterAll(async () => {
    await s?.stop();
    await node?.stop();
    figure(`netpol: wall time ${secondsSince(suiteStart)}`);
  }, 5 * MIN);

  const iptablesSave = async (): Promise<string> => (await node.exec('iptables-save', ['-t', 'filter'])).stdout;
  const readyPods = async (): Promise<Pod[]> => (await s.pods()).filter((p) => !p.metadata.deletionTimestamp && isReady(p));
  type Ev = { reason: string; message: string };
  const foreignEvents = async (): Promise<string[]> =>
    (await node.json<{ items: Ev[] }>('GET', `/api/v1/namespaces/${s.pkg.namespace}/events`)).items
      .filter((e) => e.reason === 'ForeignNode')
      .map((e) => e.message);
  const policyPath = () => `/apis/networking.k8s.io/v1/namespaces/${s.pkg.namespace}/networkpolicies/${s.pkg.cluster}`;

  /** The host PID of a pod's first container: its network namespace is the pod's. */
  const podPid = async (p: Pod): Promise<number> => {
    const id = p.status?.containerStatuses?.[0]?.containerID;
    if (!id) throw new Error(`pod ${p.metadata.name} has no running container`);
    return node.containerPid(id);
  };
  /** A TCP connect from inside a pod's network namespace (its own IP, through the bridge and iptables). */
  const reach = async (fromPid: number, ip: string, port: number): Promise<Reach> => {
    const r = await run(
      'nsenter',
      [`--net=/proc/${fromPid}/ns/net`, '--', 'timeout', '4', 'bash', '-c', `exec 3<>/dev/tcp/${ip}/${port}`],
      {
        timeoutMs: 20_000,
      },
    );
    if (r.code === 0) return 'open';
    if (r.code === 124) return 'timeout';
    if (/refused/i.test(r.stderr)) return 'refused';
    throw new Error(`connect ${ip}:${port} from pid ${fromPid}: exit ${r.code}: ${r.stderr}`);
  };
  const probePod = (name: string, namespace: string, labels: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: {
      containers: [{ name: 'probe', image: PAUSE_IMAGE, imagePullPolicy: 'Never' }],
      terminationGracePeriodSeconds: 0,
    },
  });
  const runningPod = async (namespace: string, name: string): Promise<Pod> => {
    let pod: Pod | undefined;
    await waitFor(
      `pod ${namespace}/${name} running`,
      async () => {
        pod = await node.json<Pod>('GET', `/api/v1/namespaces/${namespace}/pods/${name}`);
        return pod.status?.phase === 'Running' && !!pod.status.podIP && !!pod.status.containerStatuses?.[0]?.containerID;
      },
      { timeoutMs: 3 * MIN, intervalMs: 500 },
    );
    return pod as Pod;
  };

  it(
    'the cluster serves and fails over with the policy in force: a primary deleted, its replica promoted, the new pod joined, nothing lost',
    async () => {
      // The policy is really installed: kube-router's chain for it and the ipsets of its peers.
      expect(await iptablesSave()).toMatch(/KUBE-NWPLCY-/);
      const w = await s.writer('netpol failover');
      await sleep(3_000);
      const before = await s.status();
      const primary = before.nodes?.find((n) => n.role === 'primary' && n.shard === 1);
      const replica = before.nodes?.find((n) => n.role === 'replica' && n.shard === 1);
      expect(primary && replica).toBeTruthy();
      const old = (await readyPods()).find((p) => p.metadata.name === primary?.pod) as Pod;
      const replicaIp = (await readyPods()).find((p) => p.metadata.name === replica?.pod)?.status?.podIP as string;
      const t = Date.now();
      await node.json('DELETE', `/api/v1/namespaces/${s.pkg.namespace}/pods/${old.metadata.name}`);
      // The controller's handover (it reaches both pods, the replica asks its primary over the bus)
      // promotes the replica in about a second; the bound is smoke.test.ts's for the same case. A
      // policy that cut the handover would leave it to Valkey's own, after the 15 s preStop hold.
      await waitFor('the replica promoted by the controller’s handover', async () => /^master/.test(await s.cli(replicaIp, ['role'])), {
        timeoutMs: 10_000,
        intervalMs: 200,
      });
      figure(`netpol failover: ${replica?.pod} primary ${secondsSince(t)} after the delete`);
      await waitFor(
        'the pod re-created and Ready',
        async () => {
          const pods = await readyPods();
          const again = pods.find((p) => p.metadata.name === old.metadata.name);
          return pods.length === 6 && again !== undefined && again.metadata.uid !== old.metadata.uid;
        },
        { timeoutMs: 5 * MIN, intervalMs: 500 },
      );
      await sleep(3_000);
      await s.waitActive('Active with the re-created pod', 5 * MIN, async () => {
        const nodes = (await s.status()).nodes ?? [];
        return nodes.length === 6 && nodes.every((n) => n.health === 'online');
      });
      figure(`netpol failover: Active with 6 online nodes ${secondsSince(t)} after the delete`);
      const r = await w.stop();
      expect(r.acknowledged).toBeGreaterThan(0);
      expect(r.lost).toBe(0);
    },
    15 * MIN,
  );

  it(
    'from real pods: another cluster’s pod is refused on the bus and reaches the client port, another namespace’s pod is refused on both, own and controller pods reach both',
    async () => {
      await node.apply([
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ELSEWHERE } },
        probePod('other-cluster', s.pkg.namespace, { [LABELS.cluster]: 'other', [LABELS.name]: 'valkey', [LABELS.instance]: 'other' }),
        probePod('plain', ELSEWHERE, { app: 'plain' }),
      ]);
      const other = await podPid(await runningPod(s.pkg.namespace, 'other-cluster'));
      const plain = await podPid(await runningPod(ELSEWHERE, 'plain'));
      const pods = await readyPods();
      expect(pods).toHaveLength(6);
      const [a, b] = pods as [Pod, Pod];
      const target = b.status?.podIP as string;
      const own = await podPid(a);
      const controller = (await s.controllerPods()).find(isReady);
      if (!controller) throw new Error(`no Ready controller pod in ${CONTROLLER_NAMESPACE}`);
      const ctl = await podPid(controller);
      const matrix = async (): Promise<Record<string, Reach>> => ({
        'own pod → bus': await reach(own, target, BUS_PORT),
        'own pod → client': await reach(own, target, CLIENT_PORT),
        'controller pod → bus': await reach(ctl, target, BUS_PORT),
        'controller pod → client': await reach(ctl, target, CLIENT_PORT),
        'other cluster’s pod (same namespace) → bus': await reach(other, target, BUS_PORT),
        'other cluster’s pod (same namespace) → client': await reach(other, target, CLIENT_PORT),
        'pod of another namespace → bus': await reach(plain, target, BUS_PORT),
        'pod of another namespace → client': await reach(plain, target, CLIENT_PORT),
      });
      const expected: Record<string, Reach> = {
        'own pod → bus': 'open',
        'own pod → client': 'open',
        'controller pod → bus': 'open',
        'controller pod → client': 'open',
        'other cluster’s pod (same namespace) → bus': 'refused',
        'other cluster’s pod (same namespace) → client': 'open',
        'pod of another namespace → bus': 'refused',
        'pod of another namespace → client': 'refused',
      };
      // kube-router adds a new pod to the policy's sets on its pod event, a moment after it runs:
      // the matrix is read until it holds (or a minute), then asserted as last read.
      const settled = async (): Promise<Record<string, Reach>> => {
        let last: Record<string, Reach> = {};
        const t0 = Date.now();
        await waitFor(
          'the connection matrix as the policy says',
          async () => {
            last = await matrix();
            return isDeepStrictEqual(last, expected);
          },
          {
            timeoutMs: MIN,
            intervalMs: 1_000,
          },
        ).catch(() => undefined);
        figure(`netpol: connection matrix read for ${secondsSince(t0)}: ${JSON.stringify(last)}`);
        return last;
      };
      expect(await settled()).toEqual(expected);

      // The refusals are the policy's: without it the other cluster's pod reaches the bus ...
      let t = Date.now();
      await node.json('DELETE', policyPath());
      await waitFor(
        'the bus open to the other cluster’s pod without the policy',
        async () => (await reach(other, target, BUS_PORT)) === 'open',
        {
          timeoutMs: 2 * MIN,
          intervalMs: 500,
        },
      );
      expect(await reach(plain, target, CLIENT_PORT)).toBe('open');
      figure(`netpol: policy deleted, the bus open to the other cluster's pod ${secondsSince(t)} later`);
      // ... and the package applied again (as GitOps does) closes it again.
      t = Date.now();
      await s.applyPackage();
      await waitFor('the bus refused again with the policy re-applied', async () => (await reach(other, target, BUS_PORT)) === 'refused', {
        timeoutMs: 2 * MIN,
        intervalMs: 500,
      });
      figure(`netpol: policy re-applied, the bus refused again ${secondsSince(t)} later`);
      expect(await settled()).toEqual(expected);
      await s.waitActive('still Active', 2 * MIN);
    },
    15 * MIN,
  );

  it(
    'a Valkey node in another cluster’s pod that MEETs every pod of the cluster is never let in; without the policy it gets in, and is forgotten',
    async () => {
      // Valkey 9.1.2 run inside the other cluster's pod (its network namespace, so its IP), as a
      // node of another cluster given a dead pod's address would be; it MEETs every pod.
      const otherPod = await runningPod(s.pkg.namespace, 'other-cluster');
      const otherIp = otherPod.status?.podIP as string;
      const otherPid = await podPid(otherPod);
      const dir = join(node.layout.dir, 'foreign-valkey');
      await mkdir(dir, { recursive: true });
      const foreign = node.spawn('foreign-valkey', 'nsenter', [
        `--net=/proc/${otherPid}/ns/net`,
        '--',
        valkeyServerPath(SUPPORTED_BUILD),
        '--port',
        String(CLIENT_PORT),
        '--cluster-enabled',
        'yes',
        '--cluster-node-timeout',
        '5000',
        '--dir',
        dir,
        '--protected-mode',
        'no',
        '--save',
        '',
      ]);
      let foreignId = '';
      try {
        const fcli = async (...args: string[]): Promise<string> => {
          const r = await node.exec(valkeyCliPath(), ['-h', otherIp, ...args]);
          if (r.code !== 0) throw new Error(`valkey-cli -h ${otherIp} ${args.join(' ')}: ${r.stderr}`);
          return r.stdout.trim();
        };
        await waitFor('the foreign node answers', async () => (await fcli('ping')) === 'PONG', {
          timeoutMs: MIN,
          intervalMs: 300,
          abort: () => (foreign.hasExited() ? `valkey-server exited:\n${tailFile(foreign.logPath, 20)}` : undefined),
        });
        foreignId = await fcli('cluster', 'myid');
        const pods = await readyPods();
        const ips = pods.map((p) => p.status?.podIP as string);
        const ownIds = await Promise.all(ips.map((ip) => s.cli(ip, ['cluster', 'myid'])));
        for (const ip of ips) expect(await fcli('cluster', 'meet', ip, String(CLIENT_PORT))).toBe('OK');
        const t = Date.now();
        // Three node timeouts: a MEET whose bus connection worked joins in well under a second.
        while (Date.now() - t < 15_000) {
          for (const ip of ips) expect(await s.cli(ip, ['cluster', 'nodes'])).not.toContain(foreignId);
          await sleep(500);
        }
        const seen = await fcli('cluster', 'nodes');
        figure(
          `netpol: a foreign node MEETing all 6 pods, 15 s later: its own table ${JSON.stringify(seen.split('\n').map((l) => l.split(' ').slice(1, 3).join(' ')))}`,
        );
        for (const id of ownIds) expect(seen).not.toContain(id);
        await s.waitActive('Active, no foreign node', MIN);
        expect(await foreignEvents()).toEqual([]);

        // The control: without the policy the same MEET gets the foreign node into the cluster's
        // tables (seen there, or reported by the controller's own defence, which forgets it) ...
        await node.json('DELETE', policyPath());
        await waitFor('the bus open without the policy', async () => (await reach(otherPid, ips[0] as string, BUS_PORT)) === 'open', {
          timeoutMs: 2 * MIN,
          intervalMs: 500,
        });
        const t2 = Date.now();
        for (const ip of ips) await fcli('cluster', 'meet', ip, String(CLIENT_PORT));
        let how = '';
        await waitFor(
          'the foreign node in the cluster’s tables without the policy',
          async () => {
            for (const ip of ips) if ((await s.cli(ip, ['cluster', 'nodes'])).includes(foreignId)) how = `listed by ${ip}`;
            if (!how && (await foreignEvents()).length > 0) how = 'a ForeignNode Event';
            return how !== '';
          },
          { timeoutMs: MIN, intervalMs: 200 },
        );
        figure(`netpol: without the policy the foreign node got in (${how}) ${secondsSince(t2)} after its first MEET`);
      } finally {
        await foreign.stop();
      }
      // ... and, the foreign server gone and the package applied again, the cluster is its own.
      await s.applyPackage();
      await s.waitActive('Active again, the foreign node forgotten everywhere', 5 * MIN, async () => {
        for (const p of await readyPods())
          if ((await s.cli(p.status?.podIP as string, ['cluster', 'nodes'])).includes(foreignId)) return false;
        return true;
      });
      figure(`netpol: the foreign node forgotten; the controller's ForeignNode Events: ${(await foreignEvents()).length}`);
    },
    10 * MIN,
  );
});
