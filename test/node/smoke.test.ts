// The real-node smoke set (CI runs it; the longer cases are in test/node/long/): the rendered
// package on a real kubelet and containerd, the shipped controller as its Deployment, and a client
// writing and reading inside the node's network namespace through every case, its lost writes
// and longest pause printed per case. Each case starts from where the one before left the cluster.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/process.js';
import { figure, isReady, secondsSince, startNodeSuite, type NodeSuite, type Pod } from '../support/node/node-suite.js';
import { hostSnapshot, leftovers, netnsInode, runcContainers } from '../support/node/teardown.js';

const MIN = 60_000;
const ROLLED_TAG = '9.1.2-rebuilt';

describe('a cluster on a real node, with the shipped controller Deployment', () => {
  let s: NodeSuite;
  let host: Awaited<ReturnType<typeof hostSnapshot>>;
  let nodeNetns: number;
  const suiteStart = Date.now();
  beforeAll(async () => {
    host = await hostSnapshot();
    s = await startNodeSuite({ name: 'smoke', extraImages: [{ build: '9.1.2', tag: ROLLED_TAG }], shards: 3, replicasPerShard: 1 });
    nodeNetns = netnsInode(s.node.layout.netnsPath);
    figure(`smoke: Node Ready ${(s.node.nodeReadyMs / 1000).toFixed(1)} s after start`);
  }, 30 * MIN);
  // After the suite nothing of the node is left on the host (test/node/teardown.test.ts covers a crash).
  afterAll(async () => {
    if (!s) return;
    const containerIds = await runcContainers(s.node.layout);
    await s.stop();
    figure(`smoke: wall time ${secondsSince(suiteStart)}`);
    expect(await leftovers(s.node.layout, { netnsInode: nodeNetns, containerIds, ...host })).toEqual([]);
  }, 5 * MIN);

  const readyPods = async (): Promise<Pod[]> => (await s.pods()).filter((p) => isReady(p) && !p.metadata.deletionTimestamp);
  const ipsOf = (pods: readonly Pod[]): string[] => pods.flatMap((p) => (p.status?.podIP ? [p.status.podIP] : []));

  it(
    'creates the cluster from the rendered package: pods Ready through the rendered probes, formed, Active',
    async () => {
      const t = Date.now();
      await s.applyPackage();
      await waitFor('6 pods Ready', async () => (await readyPods()).length === 6, { timeoutMs: 5 * MIN, intervalMs: 500 });
      figure(`create: 6 pods Ready ${secondsSince(t)} after apply`);
      await s.waitActive('ValkeyCluster Active', 5 * MIN);
      figure(`create: Active ${secondsSince(t)} after apply`);
      const status = await s.status();
      expect(status.nodes?.filter((n) => n.role === 'primary')).toHaveLength(3);
      expect(status.nodes?.filter((n) => n.role === 'replica')).toHaveLength(3);
      const pods = await readyPods();
      for (const p of pods) expect(p.spec.nodeName).toBe(s.node.nodeName);
      expect(await s.cli(ipsOf(pods)[0] as string, ['cluster', 'info'])).toMatch(/cluster_state:ok[\s\S]*cluster_size:3/);
      const w = await s.writer('create');
      await sleep(5_000);
      const r = await w.stop();
      expect(r.acknowledged).toBeGreaterThan(50);
      expect(r.lost).toBe(0);
    },
    12 * MIN,
  );

  it(
    'applies a live setting (maxmemory) on every node without restarting a pod',
    async () => {
      const before = await readyPods();
      const w = await s.writer('live setting');
      s.pkg.maxmemory = '150mb';
      const t = Date.now();
      await s.applyPackage();
      await waitFor(
        'maxmemory 150mb on every pod',
        async () => {
          for (const ip of ipsOf(before))
            if ((await s.cli(ip, ['config', 'get', 'maxmemory'])).split('\n')[1] !== '157286400') return false;
          return true;
        },
        { timeoutMs: 3 * MIN, intervalMs: 500 },
      );
      figure(`live setting: maxmemory 150mb on all 6 nodes ${secondsSince(t)} after apply`);
      await s.waitActive('Active after the live change', 3 * MIN);
      const r = await w.stop();
      const after = await readyPods();
      expect(after.map((p) => [p.metadata.uid, p.status?.containerStatuses?.[0]?.restartCount]).sort()).toEqual(
        before.map((p) => [p.metadata.uid, p.status?.containerStatuses?.[0]?.restartCount]).sort(),
      );
      expect(r.lost).toBe(0);
    },
    8 * MIN,
  );

  it(
    'a primary pod deleted by hand hands its shard to its replica before it exits (shutdown-on-sigterm failover): no node-timeout wait, nothing lost',
    async () => {
      const w = await s.writer('primary pod deleted');
      const before = await s.status();
      const primary = before.nodes?.find((n) => n.role === 'primary' && n.shard === 1);
      const replica = before.nodes?.find((n) => n.role === 'replica' && n.shard === 1);
      expect(primary && replica).toBeTruthy();
      const old = (await readyPods()).find((p) => p.metadata.name === primary?.pod) as Pod;
      const replicaPod = (await readyPods()).find((p) => p.metadata.name === replica?.pod) as Pod;
      const replicaIp = replicaPod.status?.podIP as string;
      const t = Date.now();
      await s.node.json('DELETE', `/api/v1/namespaces/${s.pkg.namespace}/pods/${old.metadata.name}`);
      // The replica is primary while the old pod is still terminating: the handover came from the
      // stopping server, not from the cluster noticing it gone (cluster-node-timeout, 15 s).
      await waitFor('the replica promoted', async () => /^master/.test(await s.cli(replicaIp, ['role'])), {
        timeoutMs: 10_000,
        intervalMs: 100,
      }).catch((e: Error) => {
        // What the two servers said about the handover, so a failure here can be read without a re-run.
        throw new Error(`${e.message}\nthe deleted primary's log:\n${s.podLog(old)}\nthe replica's log:\n${s.podLog(replicaPod)}`);
      });
      figure(`primary pod deleted: ${replica?.pod} primary ${secondsSince(t)} after the delete`);
      const healed = async (): Promise<boolean> => {
        const pods = await readyPods();
        const again = pods.find((p) => p.metadata.name === old.metadata.name);
        return pods.length === 6 && again !== undefined && again.metadata.uid !== old.metadata.uid;
      };
      await waitFor('the pod re-created and Ready', healed, { timeoutMs: 5 * MIN, intervalMs: 500 });
      await sleep(3_000); // the controller sees the new pod before Active counts
      // Re-created as a new node: made a replica, then given its shard back (failback to ordinal 0).
      await s.waitActive('Active with the re-created pod', 5 * MIN, async () => {
        const nodes = (await s.status()).nodes ?? [];
        return nodes.every((n) => n.health === 'online') && nodes.find((n) => n.pod === old.metadata.name)?.role === 'primary';
      });
      const again = (await readyPods()).find((p) => p.metadata.name === old.metadata.name);
      figure(
        `primary pod deleted: ${old.metadata.name} ${old.status?.podIP} → ${again?.status?.podIP}, Active ${secondsSince(t)} after the delete`,
      );
      const r = await w.stop();
      expect(r.lost).toBe(0);
      // Shard 1 was without a primary for far less than cluster-node-timeout (15 s).
      expect(r.longestPauseMs[1]).toBeLessThan(5_000);
    },
    12 * MIN,
  );

  it(
    'rolls every pod, failover first, on an image change, losing no acknowledged write',
    async () => {
      const before = new Set((await s.pods()).map((p) => p.metadata.uid));
      const w = await s.writer('image roll');
      s.pkg.image = { tag: ROLLED_TAG, version: '9.1.2' };
      const t = Date.now();
      await s.applyPackage();
      const rolled = async (): Promise<boolean> => {
        const pods = await readyPods();
        return (
          pods.length === 6 &&
          pods.every((p) => p.spec.containers[0]?.image === `valkey/valkey:${ROLLED_TAG}` && !before.has(p.metadata.uid))
        );
      };
      await s.waitActive('every pod re-created on the new image, Active', 20 * MIN, rolled);
      figure(`image roll: 6 pods re-created on valkey/valkey:${ROLLED_TAG}, Active ${secondsSince(t)} after apply`);
      const r = await w.stop();
      expect(r.lost).toBe(0);
      const status = await s.status();
      expect(status.nodes?.filter((n) => n.role === 'primary')).toHaveLength(3);
    },
    25 * MIN,
  );

  it(
    'scales shards 3 → 4 → 3, moving slots both ways, losing no acknowledged write',
    async () => {
      const w = await s.writer('shards 3-4-3', 4);
      s.pkg.shards = 4;
      let t = Date.now();
      await s.applyPackage();
      const sized = (n: number) => async (): Promise<boolean> => {
        const pods = await readyPods();
        if (pods.length !== n * 2) return false;
        return /cluster_size:(\d+)/.exec(await s.cli(ipsOf(pods)[0] as string, ['cluster', 'info']))?.[1] === String(n);
      };
      await s.waitActive('4 shards serving slots, Active', 15 * MIN, sized(4));
      figure(`shards 3 → 4: Active with 4 shards serving slots ${secondsSince(t)} after apply`);
      s.pkg.shards = 3;
      t = Date.now();
      await s.applyPackage();
      const retired = async (): Promise<boolean> =>
        (await s.node.request('GET', `/apis/apps/v1/namespaces/${s.pkg.namespace}/statefulsets/${s.pkg.cluster}-3`)).status === 404 &&
        (await sized(3)());
      await s.waitActive('3 shards, the fourth StatefulSet deleted, Active', 15 * MIN, retired);
      figure(`shards 4 → 3: Active with 3 shards, cache-3 deleted ${secondsSince(t)} after apply`);
      const r = await w.stop();
      expect(r.lost).toBe(0);
    },
    32 * MIN,
  );
});
