// The controller against a real kube-apiserver and real Valkey 9.1.2 servers (cluster mode) standing
// in for pods. Everything is the production
// code path, the strict version policy included, authenticated as the controller's
// ServiceAccount with the RBAC from deploy/controller/.
import { describe, expect, it } from 'vitest';
import type { NodeSession, OpenSession } from '../../src/controller/valkey/node-session.js';
import {
  appCli,
  clusterInfo,
  clusterNodes,
  createCluster,
  deletePod,
  getCluster,
  myId,
  patchClusterSpec,
  inNamespace,
  useKubeWorld,
  startController,
  waitForCluster,
  applyStatefulSet,
  type ClusterObject,
  type NodeServer,
} from '../support/controller/world.js';
import { waitFor } from '../support/process.js';

const active = (c: ClusterObject) => c.status?.state === 'Active' && c.status.observedGeneration === c.metadata.generation;

describe('cluster formation against a real API server and real servers', () => {
  const suite = useKubeWorld();

  it('forms a 3-shard cluster with a replica per shard, grows replicas, heals a replaced replica and primary', async () => {
    const { api, world, ns, book, startPod } = await inNamespace(suite, 'formation');
    const shape = { ns, name: 'sessions', shards: 3, replicasPerShard: 1 };
    await createCluster(api, shape);
    const pods = new Map<string, NodeServer & { uid: string; name: string }>();
    const addPod = async (shard: number, ordinal: number) => {
      const p = await startPod({ ns, cluster: 'sessions', shard, ordinal });
      pods.set(p.name, p);
      return p;
    };
    /** A pod is replaced: its server stops, the Pod goes, a new server comes up under the same name. */
    const replacePod = async (shard: number, ordinal: number) => {
      const old = pods.get(`sessions-${shard}-${ordinal}`)!;
      const oldId = await myId(old.port);
      await old.server.stop();
      await deletePod(api, ns, old.name);
      const fresh = await addPod(shard, ordinal);
      return { oldId, newId: await myId(fresh.port), fresh };
    };
    for (let s = 0; s < 3; s++) for (let o = 0; o < 2; o++) await addPod(s, o);
    const controller = await startController({ world, book, namespace: ns });
    try {
      const formed = await waitForCluster(api, ns, 'sessions', 'Active', active, 60_000);
      expect(formed.status?.message).toBe('3 shard(s) with 1 replica(s) each serve all 16384 slots; cluster_state ok');
      expect(formed.status?.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
        'VersionCheck=True/AtLeastFloor',
        // The StatefulSets declare 9.0.1; the pods run 9.1.2: the drift is reported, not hidden.
        'VersionMatchesImage=False/DeclaredVersionDiffers',
        'ClusterFormed=True/Formed',
        'Ready=True/Active',
        // Every pod of this world runs on the one Node node-a: losing it would lose every primary.
        'PrimariesSpread=False/TooFewNodes',
      ]);
      const nodes = formed.status?.nodes ?? [];
      expect(nodes.map((n) => `${n.pod}:${n.shard}:${n.role}:${n.health}:${n.version}`)).toEqual([
        'sessions-0-0:0:primary:online:9.1.2',
        'sessions-0-1:0:replica:online:9.1.2',
        'sessions-1-0:1:primary:online:9.1.2',
        'sessions-1-1:1:replica:online:9.1.2',
        'sessions-2-0:2:primary:online:9.1.2',
        'sessions-2-1:2:replica:online:9.1.2',
      ]);

      // What the servers themselves say, through valkey-cli.
      for (const p of pods.values()) {
        const info = await clusterInfo(p.port);
        expect(info).toMatchObject({ cluster_state: 'ok', cluster_slots_assigned: '16384', cluster_known_nodes: '6', cluster_size: '3' });
      }
      const view = await clusterNodes(pods.get('sessions-0-0')!.port);
      const idOf = async (pod: string) => myId(pods.get(pod)!.port);
      for (const [s, slots] of [
        [0, '0-5460'],
        [1, '5461-10922'],
        [2, '10923-16383'],
      ] as const) {
        const primary = view.find((n) => n.id === nodes.find((x) => x.pod === `sessions-${s}-0`)?.nodeId);
        expect(primary?.slots).toEqual([slots]);
        expect(view.filter((n) => n.primary === primary?.id).map((n) => n.id)).toEqual([await idOf(`sessions-${s}-1`)]);
      }

      // Steady state: reconciles keep running, status is never rewritten.
      const rv = formed.metadata.resourceVersion;
      const writes = controller.metrics.statusWrites.get();
      const passes = controller.metrics.reconciles.get({ kind: 'cluster', result: 'ok' });
      await waitFor('two more reconcile passes', () => controller.metrics.reconciles.get({ kind: 'cluster', result: 'ok' }) >= passes + 2, {
        timeoutMs: 10_000,
      });
      expect(controller.metrics.statusWrites.get()).toBe(writes);
      expect((await getCluster(api, ns, 'sessions')).metadata.resourceVersion).toBe(rv);

      // kubectl shows the state.
      const table = await api.kubectl(['get', 'valkeycluster', 'sessions', '-n', ns]);
      // No spec.autoscaling: the DESIRED SHARDS column is empty.
      expect(table.stdout).toMatch(
        /^NAME\s+CONFIG\s+SHARDS\s+REPLICAS\s+STATE\s+DESIRED SHARDS\s+AGE\nsessions\s+standard\s+3\s+1\s+Active\s+\d+s\n/,
      );

      // replicasPerShard grows: git renders bigger StatefulSets, the pods appear, the controller attaches them.
      await patchClusterSpec(api, ns, 'sessions', { replicasPerShard: 2 });
      for (let s = 0; s < 3; s++) await applyStatefulSet(api, { ...shape, replicasPerShard: 2 }, s);
      await waitForCluster(api, ns, 'sessions', 'Updating after the spec change', (c) => c.status?.state !== 'Active', 10_000);
      for (let s = 0; s < 3; s++) await addPod(s, 2);
      const grown = await waitForCluster(
        api,
        ns,
        'sessions',
        'Active with 2 replicas',
        (c) => active(c) && c.status?.nodes?.length === 9,
        60_000,
      );
      expect(grown.status?.message).toBe('3 shard(s) with 2 replica(s) each serve all 16384 slots; cluster_state ok');

      // A replica's pod is replaced: new server, new node id, same pod name.
      const { oldId: oldReplicaId, newId: newReplicaId } = await replacePod(1, 1);
      const healed = await waitForCluster(
        api,
        ns,
        'sessions',
        'Active after the replica was replaced',
        (c) => active(c) && c.status?.nodes?.find((n) => n.pod === 'sessions-1-1')?.nodeId === newReplicaId,
        60_000,
      );
      const primary1 = healed.status?.nodes?.find((n) => n.pod === 'sessions-1-0')?.nodeId;
      const after = await clusterNodes(pods.get('sessions-0-0')!.port);
      expect(after.find((n) => n.id === newReplicaId)?.primary).toBe(primary1);
      expect(after.some((n) => n.id === oldReplicaId)).toBe(false);
      await waitFor(
        'every node forgot the old replica',
        async () => {
          for (const p of pods.values()) if ((await clusterInfo(p.port)).cluster_known_nodes !== '9') return false;
          return true;
        },
        { timeoutMs: 15_000 },
      );

      // A primary's pod is replaced: a replica takes over its slots, the new pod joins that shard as a
      // replica and, once in sync, takes the primary back (ordinal 0 stays the primary, so lowering
      // replicasPerShard never removes one).
      const { oldId: oldPrimaryId, newId, fresh: newPrimaryPod } = await replacePod(2, 0);
      const recovered = await waitForCluster(
        api,
        ns,
        'sessions',
        'Active after the primary was replaced',
        (c) => active(c) && c.status?.nodes?.find((n) => n.pod === 'sessions-2-0')?.nodeId === newId,
        60_000,
      );
      const shard2 = recovered.status?.nodes?.filter((n) => n.shard === 2) ?? [];
      expect(shard2.filter((n) => n.role === 'primary').map((n) => n.pod)).toHaveLength(1);
      expect(shard2.find((n) => n.pod === 'sessions-2-0')?.role).toBe('primary');
      const finalView = await clusterNodes(pods.get('sessions-0-0')!.port);
      const newShard2Primary = finalView.find((n) => n.slots.includes('10923-16383'));
      expect(newShard2Primary?.id).toBe(newId);
      expect(controller.logs.some((l) => l.includes('"failed back to ordinal 0"'))).toBe(true);
      expect(finalView.some((n) => n.id === oldPrimaryId)).toBe(false);
      expect((await clusterInfo(newPrimaryPod.port)).cluster_state).toBe('ok');
    } finally {
      await controller.stop();
    }
  }, 200_000);

  it('a controller restart mid-formation finishes the job and resets nothing that holds data', async () => {
    const { api, world, ns, book, startPod } = await inNamespace(suite, 'restart');
    await createCluster(api, { ns, name: 'orders', shards: 2, replicasPerShard: 1 });
    const pods = new Map<string, NodeServer>();
    for (let s = 0; s < 2; s++)
      for (let o = 0; o < 2; o++) {
        // Serve the shards that have slots while others have none, so data can go in mid-formation.
        const p = await startPod({ ns, cluster: 'orders', shard: s, ordinal: o, extraArgs: ['--cluster-require-full-coverage', 'no'] });
        pods.set(p.name, p);
      }
    const port = (pod: string) => pods.get(pod)!.port;

    // The first controller "dies" mid-formation: its first ADDSLOTSRANGE goes through, every
    // later one and every REPLICATE fail, as if the process had stopped right there.
    let slotsCommands = 0;
    const crashAfterFirstSlots =
      (open: OpenSession): OpenSession =>
      async (endpoint, tls, namespace) => {
        const s: NodeSession = await open(endpoint, tls, namespace);
        return {
          ...s,
          addSlotsRange: async (ranges) => {
            if (slotsCommands++ > 0) throw new Error('simulated crash');
            await s.addSlotsRange(ranges);
          },
          replicate: async () => {
            throw new Error('simulated crash');
          },
        };
      };
    const first = await startController({ world, book, namespace: ns, wrapOpen: crashAfterFirstSlots });
    await waitFor(
      'the first controller met all nodes and assigned shard 0',
      async () =>
        (await clusterInfo(port('orders-0-0'))).cluster_slots_assigned === '8192' &&
        (await clusterInfo(port('orders-1-1'))).cluster_known_nodes === '4',
      { timeoutMs: 30_000 },
    );
    await first.stop();

    // Half-formed: shard 0 holds its slots, shard 1 none, no replica attached. Put data in.
    const shard0Primary = await myId(port('orders-0-0'));
    expect((await clusterNodes(port('orders-0-0'))).find((n) => n.id === shard0Primary)?.slots).toEqual(['0-8191']);
    expect((await clusterInfo(port('orders-1-0'))).cluster_slots_assigned).toBe('8192');
    expect(Number(await appCli(port('orders-0-0'), 'CLUSTER', 'KEYSLOT', 'bar'))).toBeLessThan(8192);
    await waitFor('shard 0 serves its slots', async () => (await clusterInfo(port('orders-0-0'))).cluster_state === 'ok', {
      timeoutMs: 10_000,
    });
    expect(await appCli(port('orders-0-0'), 'SET', 'bar', 'kept')).toBe('OK');
    const before = await getCluster(api, ns, 'orders');
    expect(before.status?.state).toBe('Creating');

    const second = await startController({ world, book, namespace: ns });
    try {
      const done = await waitForCluster(api, ns, 'orders', 'Active after the restart', active, 60_000);
      expect(done.status?.nodes?.map((n) => `${n.pod}:${n.role}`)).toEqual([
        'orders-0-0:primary',
        'orders-0-1:replica',
        'orders-1-0:primary',
        'orders-1-1:replica',
      ]);
      const view = await clusterNodes(port('orders-1-1'));
      expect(view.find((n) => n.id === shard0Primary)?.slots).toEqual(['0-8191']);
      expect(view.find((n) => n.id === (done.status?.nodes?.[2]?.nodeId ?? ''))?.slots).toEqual(['8192-16383']);
      expect(await appCli(port('orders-1-0'), 'GET', 'bar')).toBe('kept');
      // The second controller sent no slots for shard 0 and never reset a node.
      const steps = second.logs.filter((l) => l.includes('"formation step"'));
      expect(steps.some((l) => l.includes('ADDSLOTSRANGE 8192-16383 on orders-1-0'))).toBe(true);
      expect(steps.some((l) => l.includes('ADDSLOTSRANGE 0-'))).toBe(false);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
