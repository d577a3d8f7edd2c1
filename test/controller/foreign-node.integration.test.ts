// One cluster never joins another (issue 37), against a real API server and real Valkey 9.1.2
// servers standing in for pods, the controller's pass as it runs in production. Two clusters,
// alpha (2 shards, 1 replica each) and bravo (1 shard, then 2 replicas), in one namespace (so one
// controller credential opens both), every node announcing its pod's hostname as rendered. A pod of
// bravo is given the exact address (client and bus port) a dead pod of alpha had, while alpha's
// Pod still shows that address; someone meets it into alpha; then bravo's controller pass brings
// it into bravo with alpha's nodes in its tables. Without the defence the controller itself meets
// that node into alpha (it answers at alpha's pod's address), and bravo's formation meets its own
// nodes from the node that knows alpha's: the two clusters merge, and
// test/valkey/cluster-merge.integration.test.ts shows what that does to their keys. With it: the
// node is never met as alpha's pod, the foreign node is forgotten on every node of alpha (Event
// ForeignNode) and alpha's nodes on it, both clusters keep all their slots, and a client writing
// to each throughout loses nothing.
import { describe, expect, it } from 'vitest';
import { SYSTEM_USERNAMES } from '../../src/api/index.js';
import { ClusterWriter } from '../support/controller/cluster-writer.js';
import {
  APP_PASSWORD,
  APP_USER,
  CONTROLLER_PASSWORD,
  apiCall,
  applyStatefulSet,
  clusterNodes,
  controllerCli,
  createCluster,
  createPod,
  deletePod,
  inNamespace,
  myId,
  patchClusterSpec,
  startController,
  useKubeWorld,
  waitForCluster,
  type ClusterObject,
  type NodeServer,
} from '../support/controller/world.js';
import { waitFor } from '../support/process.js';
import type { ApiServer } from '../support/apiserver.js';

type Pod = NodeServer & { uid: string; name: string };

const active = (c: ClusterObject) => c.status?.state === 'Active' && c.status.observedGeneration === c.metadata.generation;

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

/** Every node id a server lists, itself included. */
const idsListedBy = async (port: number): Promise<Set<string>> => new Set((await clusterNodes(port)).map((n) => n.id));

describe('a node of another cluster', () => {
  const suite = useKubeWorld();

  it('at a dead pod’s address is never met, is forgotten when someone meets it, and neither cluster loses a slot or a write', async () => {
    const { api, world, ns, book, startPod, startNode } = await inNamespace(suite, 'merge');
    const hostname = (cluster: string, pod: string) => `${pod}.${cluster}.${ns}.svc.cluster.local`;
    const pods = new Map<string, Pod>();
    const dead = new Set<string>();
    const add = async (cluster: string, shard: number, ordinal: number) => {
      const name = `${cluster}-${shard}-${ordinal}`;
      const p = await startPod({ ns, cluster, shard, ordinal, extraArgs: ['--cluster-announce-hostname', hostname(cluster, name)] });
      pods.set(name, p);
      return p;
    };
    const live = (cluster: string) => () => [...pods.values()].filter((p) => p.name.startsWith(`${cluster}-`) && !dead.has(p.name));

    await createCluster(api, { ns, name: 'alpha', shards: 2, replicasPerShard: 1 });
    await createCluster(api, { ns, name: 'bravo', shards: 1, replicasPerShard: 1 });
    for (let s = 0; s < 2; s++) for (const o of [0, 1]) await add('alpha', s, o);
    for (const o of [0, 1]) await add('bravo', 0, o);
    const controller = await startController({ world, book, namespace: ns });
    let wa: ClusterWriter | undefined;
    let wb: ClusterWriter | undefined;
    try {
      await waitForCluster(api, ns, 'alpha', 'alpha Active', active, 90_000);
      await waitForCluster(api, ns, 'bravo', 'bravo Active', active, 90_000);
      const alphaIds = new Set(await Promise.all(live('alpha')().map((p) => myId(p.port))));
      const bravoIds = new Set(await Promise.all(live('bravo')().map((p) => myId(p.port))));
      wa = writer(live('alpha'), 2, 'alpha');
      wb = writer(live('bravo'), 1, 'bravo');
      await waitFor('both writers have written', async () => (wa?.acknowledged ?? 0) > 200 && (wb?.acknowledged ?? 0) > 200, {
        timeoutMs: 30_000,
      });

      // alpha-1-1 (a replica) dies; its Pod still shows its address (a lost node's pods linger).
      const victim = pods.get('alpha-1-1') as Pod;
      const victimId = await myId(victim.port);
      const logMark = controller.logs.length;
      dead.add(victim.name);
      await victim.server.kill();
      // A new pod of bravo is given that exact address: client and bus port.
      const intruder = await startNode({
        port: victim.port,
        busPort: victim.busPort,
        extraArgs: ['--cluster-announce-hostname', hostname('bravo', 'bravo-0-2')],
      });
      const intruderId = await myId(intruder.port);

      // 1. The controller dials alpha-1-1 at that address, finds bravo-0-2, and does not meet it.
      const refused = await waitForCluster(
        api,
        ns,
        'alpha',
        'alpha names the node at alpha-1-1’s address',
        (c) => c.status?.message?.includes('announces hostname "bravo-0-2.bravo.merge.svc.cluster.local"') === true,
        30_000,
      );
      expect(refused.status?.message).toContain('not alpha-1-1.alpha.merge.svc');
      const passes = controller.metrics.reconciles.get({ kind: 'cluster', result: 'ok' });
      await waitFor('four more passes', () => controller.metrics.reconciles.get({ kind: 'cluster', result: 'ok' }) >= passes + 4, {
        timeoutMs: 20_000,
      });
      for (const p of live('alpha')()) expect((await idsListedBy(p.port)).has(intruderId), p.name).toBe(false);
      expect(
        controller.logs
          .slice(logMark)
          .some((l) => l.includes('"formation step"') && l.includes('CLUSTER MEET') && l.includes('(alpha-1-1)')),
      ).toBe(false);

      // 2. Someone meets that address into alpha (a tool that trusts a stale IP): bravo-0-2 enters
      //    alpha's tables. The controller names it in an Event and forgets it on every node.
      const anchor = pods.get('alpha-0-0') as Pod;
      expect(
        (await controllerCli(anchor.port, 'CLUSTER', 'MEET', '127.0.0.1', String(intruder.port), String(intruder.busPort))).trim(),
      ).toBe('OK');
      await waitFor(
        'a ForeignNode Event names the node',
        async () => (await events(api, ns)).some((e) => e.reason === 'ForeignNode' && e.message.includes(intruderId)),
        { timeoutMs: 30_000 },
      );
      const event = (await events(api, ns)).find((e) => e.reason === 'ForeignNode' && e.message.includes(intruderId));
      expect(event?.type).toBe('Warning');
      expect(event?.message).toContain(`at 127.0.0.1:${intruder.port}`);
      expect(event?.message).toContain('hostname bravo-0-2.bravo.merge.svc.cluster.local');
      await waitFor(
        'no node of alpha lists bravo-0-2',
        async () => {
          for (const p of live('alpha')()) if ((await idsListedBy(p.port)).has(intruderId)) return false;
          return true;
        },
        { timeoutMs: 30_000 },
      );

      // 3. alpha-1-1 is replaced as the StatefulSet controller would: the Pod goes, a new one comes
      //    up at a new address. alpha heals (its old node is departed, not foreign).
      await deletePod(api, ns, victim.name);
      pods.delete(victim.name);
      dead.delete(victim.name);
      const fresh = await add('alpha', 1, 1);
      const freshId = await myId(fresh.port);
      await waitForCluster(
        api,
        ns,
        'alpha',
        'alpha Active with the new alpha-1-1',
        (c) => active(c) && c.status?.nodes?.find((n) => n.pod === 'alpha-1-1')?.nodeId === freshId,
        60_000,
      );

      // 4. bravo grows a replica: bravo-0-2 is its pod, at the reused address, with alpha's nodes in
      //    its tables from the meet. bravo's pass forgets them there before it meets bravo-0-2.
      await patchClusterSpec(api, ns, 'bravo', { replicasPerShard: 2 });
      await applyStatefulSet(api, { ns, name: 'bravo', shards: 1, replicasPerShard: 2 }, 0);
      const uid = await createPod(api, { ns, cluster: 'bravo', shard: 0, ordinal: 2, ip: '127.0.0.1' });
      book.set(uid, intruder.port, intruder.busPort);
      pods.set('bravo-0-2', { ...intruder, uid, name: 'bravo-0-2' });
      await waitForCluster(api, ns, 'bravo', 'bravo Active with 2 replicas', (c) => active(c) && c.status?.nodes?.length === 3, 60_000);

      // Each cluster lists only its own nodes; each holds all its slots.
      const alphaNow = new Set([...alphaIds].filter((id) => id !== victimId)).add(freshId);
      const bravoNow = new Set(bravoIds).add(intruderId);
      await waitFor(
        'every node lists only its own cluster',
        async () => {
          for (const p of live('alpha')()) if (![...(await idsListedBy(p.port))].every((id) => alphaNow.has(id))) return false;
          for (const p of live('bravo')()) if (![...(await idsListedBy(p.port))].every((id) => bravoNow.has(id))) return false;
          return true;
        },
        { timeoutMs: 30_000 },
      );
      for (const [cluster, ids] of [
        ['alpha', alphaNow],
        ['bravo', bravoNow],
      ] as const) {
        const view = await clusterNodes((live(cluster)()[0] as Pod).port);
        const owners = view.filter((n) => n.slots.length > 0);
        expect(
          owners.every((n) => ids.has(n.id)),
          cluster,
        ).toBe(true);
        expect(owners.flatMap((n) => n.slots).sort(), cluster).toEqual(cluster === 'alpha' ? ['0-8191', '8192-16383'] : ['0-16383']);
      }

      const [ra, rb] = [await wa.stop(), await wb.stop()];
      wa = undefined;
      wb = undefined;
      console.log(
        `foreign node: alpha ${ra.acknowledged} acknowledged, ${ra.lost} lost (${ra.failedAttempts} refused attempts); bravo ${rb.acknowledged} acknowledged, ${rb.lost} lost (${rb.failedAttempts} refused attempts)`,
      );
      expect(ra.lost).toBe(0);
      expect(rb.lost).toBe(0);
      expect(ra.acknowledged).toBeGreaterThan(200);
      expect(rb.acknowledged).toBeGreaterThan(200);
    } finally {
      await wa?.stop();
      await wb?.stop();
      await controller.stop();
    }
  }, 300_000);
});
