// Node loss against a real API server and real Valkey 9.1.2 servers (issue 31): a node holding a
// majority of the primaries is lost, first as Kubernetes still calls it Ready (a partition as far
// as anyone can tell: the controller must not promote without the vote), then NotReady (the
// controller takes over without the vote, and the cluster serves every slot again); and a whole
// shard lost, reported as DataLost until a person acknowledges it. A client writes throughout.
import { describe, expect, it } from 'vitest';
import { SYSTEM_USERNAMES } from '../../src/api/index.js';
import { ClusterWriter } from '../support/controller/cluster-writer.js';
import {
  APP_PASSWORD,
  APP_USER,
  CONTROLLER_PASSWORD,
  apiCall,
  clusterInfo,
  clusterNodes,
  createCluster,
  deletePod,
  inNamespace,
  startController,
  useKubeWorld,
  waitForCluster,
  type ClusterObject,
  type NodeServer,
} from '../support/controller/world.js';
import { registerNodes } from '../support/kubelet/nodes.js';
import { mergePatch } from '../support/kubelet/merge-patch.js';
import { waitFor } from '../support/process.js';
import type { ApiServer } from '../support/apiserver.js';

type Pod = NodeServer & { uid: string; name: string };

const condition = (c: ClusterObject, type: string) => c.status?.conditions?.find((x) => x.type === type);

/** What the node lifecycle controller does once a kubelet stops posting status. */
async function markNodeLost(api: ApiServer, node: string): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await mergePatch(api, `/api/v1/nodes/${node}/status`, {
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'Unknown',
          reason: 'NodeStatusUnknown',
          message: 'Kubelet stopped posting node status.',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
    },
  });
}

async function events(api: ApiServer, ns: string): Promise<{ reason: string; type: string; message: string }[]> {
  return (await apiCall<{ items: { reason: string; type: string; message: string }[] }>(api, 'GET', `/api/v1/namespaces/${ns}/events`))
    .items;
}

function writer(live: () => Pod[], shards: number, prefix: string): ClusterWriter {
  const w = new ClusterWriter({
    seeds: async () => live().map((p) => `127.0.0.1:${p.port}`),
    admin: { username: SYSTEM_USERNAMES.controller, password: CONTROLLER_PASSWORD },
    app: { username: APP_USER, password: APP_PASSWORD },
    shards,
    prefix,
    announcedPorts: true,
  });
  w.start();
  return w;
}

describe('node loss', () => {
  const suite = useKubeWorld();

  it('a node holding a majority of the primaries: no takeover while it is Ready, a takeover without the vote once it is lost', async () => {
    const { api, world, ns, book, startPod } = await inNamespace(suite, 'majority');
    // node-a (zone-a) is the world's; node-c gets zone-c.
    await registerNodes(api, ['node-a', 'node-b', 'node-c'], '127.0.0.1');
    const shape = { ns, name: 'cache', shards: 3, replicasPerShard: 1 };
    await createCluster(api, shape);
    // Every ordinal 0 on node-c, every ordinal 1 on node-a: no layout keeps node-c under half the
    // primaries (PrimariesSpread False), so losing node-c loses the vote.
    const pods = new Map<string, Pod>();
    for (let s = 0; s < 3; s++)
      for (const o of [0, 1]) {
        const p = await startPod({ ns, cluster: 'cache', shard: s, ordinal: o, node: o === 0 ? 'node-c' : 'node-a' });
        pods.set(p.name, p);
      }
    const dead = new Set<string>();
    const live = () => [...pods.values()].filter((p) => !dead.has(p.name));
    // Cluster-wide, as shipped: a controller that watches listed namespaces only does not read Nodes.
    const controller = await startController({ world, book });
    let w: ClusterWriter | undefined;
    try {
      const formed = await waitForCluster(
        api,
        ns,
        'cache',
        'Active, spread as far as two nodes allow',
        (c) => c.status?.state === 'Active' && condition(c, 'PrimariesSpread')?.reason === 'TooFewNodes',
        90_000,
      );
      expect(condition(formed, 'PrimariesSpread')?.message).toContain('node node-c holds 2 of the 3 primaries');
      const primariesOnC = formed.status?.nodes?.filter((n) => n.role === 'primary' && n.pod.endsWith('-0')).map((n) => n.pod) ?? [];
      expect(primariesOnC).toHaveLength(2);
      const survivingShard = [0, 1, 2].find((s) => !primariesOnC.includes(`cache-${s}-0`)) as number;

      w = writer(live, 3, 'majority');
      await waitFor('the writer has written', async () => (w?.acknowledged ?? 0) > 200, { timeoutMs: 30_000 });

      // node-c crashes: every process on it at once. Kubernetes still says Ready.
      for (const p of live()) if (p.name.endsWith('-0')) dead.add(p.name);
      await Promise.all([...dead].map((name) => pods.get(name)?.server.kill()));
      const partition = await waitForCluster(
        api,
        ns,
        'cache',
        'MajorityLost, waiting for Kubernetes',
        (c) => condition(c, 'MajorityLost')?.reason === 'WaitingForKubernetes',
        60_000,
      );
      expect(condition(partition, 'MajorityLost')?.message).toMatch(/^1 of 3 slot-owning primaries answer, not a majority/);
      expect(condition(partition, 'MajorityLost')?.message).toContain('a partition, not a loss');
      // The decision was taken in the pass that wrote this status: the orphaned replicas are still replicas.
      const orphaned = primariesOnC.map((p) => p.replace(/-0$/, '-1'));
      for (const r of orphaned)
        expect((await clusterNodes(pods.get(r)!.port)).find((n) => n.flags.includes('myself'))?.flags).toContain('slave');
      expect((await events(api, ns)).filter((e) => e.reason === 'TakeoverWithoutVote')).toEqual([]);

      // The node lifecycle controller marks node-c Unknown: now Kubernetes holds its pods gone.
      const lostAt = Date.now();
      await markNodeLost(api, 'node-c');
      const healed = await waitForCluster(
        api,
        ns,
        'cache',
        'the majority back, node-c named lost',
        (c) => condition(c, 'MajorityLost')?.reason === 'MajorityBack' && condition(c, 'NodeLost')?.status === 'True',
        60_000,
      );
      const servingMs = Date.now() - lostAt;
      await waitFor('every live node serves all slots', async () => {
        for (const p of live()) {
          const info = await clusterInfo(p.port).catch(() => undefined);
          if (info?.cluster_state !== 'ok') return false;
        }
        return true;
      });
      for (const r of orphaned)
        expect((await clusterNodes(pods.get(r)!.port)).find((n) => n.flags.includes('myself'))?.flags).toContain('master');
      expect(condition(healed, 'NodeLost')?.message).toContain(
        'cannot be replaced until Kubernetes knows the node is gone: kubectl taint node node-c node.kubernetes.io/out-of-service=nodeshutdown:NoExecute',
      );
      const takeovers = (await events(api, ns)).filter((e) => e.reason === 'TakeoverWithoutVote');
      expect(takeovers.map((e) => e.type)).toEqual(['Warning', 'Warning']);
      for (const r of orphaned)
        expect(takeovers.some((e) => e.message.includes(`replica ${r} took over`) && e.message.includes('Node node-c is Unknown'))).toBe(
          true,
        );

      const report = await w.stop();
      w = undefined;
      console.log(
        `majority loss (3 shards x 1 replica, 2 of 3 primaries on the lost node): served again ${servingMs} ms after the Node went Unknown; ` +
          `${report.acknowledged} acknowledged writes, lost per shard ${report.lostByShard.join('/')}, longest pause per shard ${report.longestPauseMs.join('/')} ms`,
      );
      expect(report.acknowledged).toBeGreaterThan(0);
      // The lost shards' replicas were in sync when their primaries were killed; replication is
      // asynchronous, so what a crash can lose there is printed above, and the shard that kept its
      // primary must lose nothing.
      expect(report.lostByShard[survivingShard]).toBe(0);
    } finally {
      await w?.stop();
      await controller.stop();
    }
  }, 240_000);

  it('a whole shard lost: DataLost, a Warning and the metric until the annotation names its time', async () => {
    const { api, world, ns, book, startPod } = await inNamespace(suite, 'shardlost');
    const shape = { ns, name: 'cache', shards: 3, replicasPerShard: 0 };
    await createCluster(api, shape);
    const pods = new Map<string, Pod>();
    for (let s = 0; s < 3; s++) pods.set(`cache-${s}-0`, await startPod({ ns, cluster: 'cache', shard: s, ordinal: 0 }));
    // Cluster-wide, as shipped: a controller that watches listed namespaces only does not read Nodes.
    const controller = await startController({ world, book });
    let w: ClusterWriter | undefined;
    try {
      await waitForCluster(api, ns, 'cache', 'Active', (c) => c.status?.state === 'Active', 60_000);
      const gone = new Set<string>();
      w = writer(() => [...pods.values()].filter((p) => !gone.has(p.name)), 3, 'shardlost');
      await waitFor('the writer has written', async () => (w?.acknowledged ?? 0) > 200, { timeoutMs: 30_000 });

      // Shard 1's only pod is lost with its data, and its StatefulSet re-creates it empty.
      const old = pods.get('cache-1-0') as Pod;
      gone.add(old.name);
      await old.server.kill();
      await deletePod(api, ns, old.name);
      const fresh = await startPod({ ns, cluster: 'cache', shard: 1, ordinal: 0 });
      pods.set(fresh.name, fresh);
      gone.delete(fresh.name);

      const lost = await waitForCluster(api, ns, 'cache', 'DataLost', (c) => condition(c, 'DataLost')?.status === 'True', 60_000);
      const since = condition(lost, 'DataLost')?.lastTransitionTime as string;
      expect(condition(lost, 'DataLost')?.message).toBe(
        `shard 1: slots 5461-10922 (5462) were given to cache-1-0, which holds none of their keys, at ${since}; ` +
          `acknowledge with kubectl annotate valkeycluster -n ${ns} cache valkey.gomomento.com/data-loss-acknowledged=${since} --overwrite`,
      );
      expect(condition(lost, 'Stalled')).toMatchObject({ status: 'True', reason: 'DataLost' });
      const warnings = (await events(api, ns)).filter((e) => e.reason === 'DataLost');
      expect(warnings.map((e) => [e.type, e.message])).toEqual([
        ['Warning', `shard 1: slots 5461-10922 (5462) were given to cache-1-0, which holds none of their keys, at ${since}`],
      ]);
      expect(controller.metrics.registry.render()).toMatch(/^valkey_status_sync_data_lost_clusters 1$/m);
      expect(controller.metrics.registry.render()).toMatch(/^valkey_status_sync_slots_lost_total 5462$/m);

      // Back to Active, but never plainly: the message says the data is gone, until acknowledged.
      const serving = await waitForCluster(api, ns, 'cache', 'Active again', (c) => c.status?.state === 'Active', 60_000);
      expect(serving.status?.message).toMatch(/^DATA LOST \(see condition DataLost\): shard 1: slots 5461-10922/);
      expect(condition(serving, 'DataLost')?.status).toBe('True');

      const report = await w.stop();
      w = undefined;
      console.log(
        `whole shard lost (3 shards x 0 replicas): ${report.acknowledged} acknowledged writes, lost per shard ${report.lostByShard.join('/')}`,
      );
      expect(report.lostByShard[0]).toBe(0);
      expect(report.lostByShard[2]).toBe(0);
      expect(report.lostByShard[1]).toBeGreaterThan(0);

      // The condition's own time acknowledges it (another value would not: cluster/data-loss.ts's tests).
      await mergePatch(api, `/apis/valkey.gomomento.com/v1alpha1/namespaces/${ns}/valkeyclusters/cache`, {
        metadata: { annotations: { 'valkey.gomomento.com/data-loss-acknowledged': since } },
      });
      const acked = await waitForCluster(api, ns, 'cache', 'acknowledged', (c) => condition(c, 'DataLost')?.status === 'False', 30_000);
      expect(condition(acked, 'DataLost')?.reason).toBe('Acknowledged');
      expect(condition(acked, 'Stalled')).toBeUndefined();
      expect(acked.status?.message).toBe('3 shard(s) with 0 replica(s) each serve all 16384 slots; cluster_state ok');
      await waitFor('the gauge back to 0', async () =>
        /^valkey_status_sync_data_lost_clusters 0$/m.test(controller.metrics.registry.render()),
      );
    } finally {
      await w?.stop();
      await controller.stop();
    }
  }, 240_000);
});
