// One cluster never joins another (issue 37), on real Valkey 9.1.2 servers driven by the
// controller's pass code as it runs in production (observeCluster with its ownership proof and
// hostname check, the pass planner, the formation executor), with the pods and StatefulSets handed
// to it as plain objects instead of from an API server (test/controller/foreign-node.integration
// .test.ts is the same story against a real API server). Two clusters, alpha (2 shards, 1 replica
// each) and bravo (1 shard, 1 replica, then 2), one controller credential for both, every node
// announcing its pod's hostname as rendered. alpha-1-1 dies and a new pod of bravo gets its exact
// address while alpha's Pod still shows it; someone meets that node into alpha; later bravo takes
// it in with alpha's nodes in its tables. Both clusters keep every slot and a client writing to each
// throughout loses nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LABELS, SYSTEM_USERNAMES, type ValkeyCluster } from '../../src/api/index.js';
import { strictPolicy } from '../../src/controller/cluster/version-gate.js';
import { planPass, type PassPlan } from '../../src/controller/cluster/pass-planner.js';
import type { Endpoint, NodeObservation } from '../../src/controller/cluster/observation.js';
import type { Pod, StatefulSet } from '../../src/controller/kube/types.js';
import { observeCluster, type NodeAccess } from '../../src/controller/reconcile/observe-cluster.js';
import { executeActions } from '../../src/controller/valkey/execute-plan.js';
import { sessionOpener } from '../../src/controller/valkey/node-session.js';
import { ClusterWriter } from '../support/controller/cluster-writer.js';
import { APP_PASSWORD, APP_USER, CONTROLLER_PASSWORD, usersAcl, type World } from '../support/controller/api-world.js';
import { clusterNodes, controllerCli, myId, startNode, type NodeServer } from '../support/controller/nodes.js';
import { waitFor } from '../support/process.js';

const NS = 'merge';
const dir = mkdtempSync(join(tmpdir(), 'valkey-krm-foreign-'));
const aclPath = join(dir, 'users.acl');
writeFileSync(aclPath, usersAcl());
// startNode reads only the ACL paths of a world: no API server is needed here.
const world = { aclPath, pre9AclPath: aclPath } as World;
const servers: NodeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.server.stop()));
  rmSync(dir, { recursive: true, force: true });
});

const hostname = (cluster: string, pod: string) => `${pod}.${cluster}.${NS}.svc.cluster.local`;

/** What the API server would hold for one cluster: its shard StatefulSets and its pods, each where it listens. */
class FakeCluster {
  readonly pods = new Map<string, { pod: Pod; endpoint: Endpoint }>();
  constructor(
    readonly name: string,
    public shards: number,
    public replicasPerShard: number,
  ) {}
  get object(): ValkeyCluster {
    return {
      apiVersion: 'valkey.gomomento.com/v1alpha1',
      kind: 'ValkeyCluster',
      metadata: { name: this.name, namespace: NS },
      spec: { configRef: 'standard', shards: this.shards, replicasPerShard: this.replicasPerShard },
    } as unknown as ValkeyCluster;
  }
  statefulSets(): StatefulSet[] {
    return Array.from({ length: this.shards }, (_, s) => ({
      metadata: { name: `${this.name}-${s}`, namespace: NS, uid: `uid-${this.name}-${s}` },
    })) as unknown as StatefulSet[];
  }
  /** A pod as the StatefulSet controller makes it (pod-ownership.ts proves it), at `endpoint`. */
  setPod(shard: number, ordinal: number, endpoint: Endpoint): void {
    const name = `${this.name}-${shard}-${ordinal}`;
    const set = `${this.name}-${shard}`;
    const pod = {
      metadata: {
        name,
        namespace: NS,
        uid: `pod-${name}-${endpoint.port}`,
        labels: {
          [LABELS.cluster]: this.name,
          [LABELS.shard]: String(shard),
          'statefulset.kubernetes.io/pod-name': name,
          'controller-revision-hash': `${set}-abc`,
        },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: set, uid: `uid-${set}`, controller: true }],
      },
      spec: { nodeName: 'node-a' },
      status: { phase: 'Running', podIP: endpoint.host },
    } as unknown as Pod;
    this.pods.set(name, { pod, endpoint });
  }
}

const open = sessionOpener(async () => ({ username: SYSTEM_USERNAMES.controller, password: CONTROLLER_PASSWORD }), {
  connectMs: 1_000,
  commandMs: 2_000,
});

/** One controller pass over `c`: observe, plan, carry out formation's steps. Returns what it saw and planned. */
async function pass(c: FakeCluster): Promise<{ plan: PassPlan; observations: NodeObservation[] }> {
  const nodes: NodeAccess = {
    open,
    policy: strictPolicy,
    endpointOf: (pod) => c.pods.get(pod.metadata.name)?.endpoint,
    clusterDomain: 'cluster.local',
  };
  const seen = await observeCluster(
    c.object,
    {
      pods: () => [...c.pods.values()].map((p) => p.pod),
      statefulSets: () => c.statefulSets(),
      readSecret: () => Promise.reject(new Error('no Secret in this test')),
    },
    nodes,
    Date.now(),
  );
  try {
    const plan = planPass({
      identity: { cluster: c.name, namespace: NS },
      shards: c.shards,
      replicasPerShard: c.replicasPerShard,
      observations: seen.observations,
      primaries: [],
      roll: [],
      rollSlotFree: false,
    });
    if (plan.now.kind === 'formation') await executeActions(plan.now.actions, seen.sessions);
    return { plan, observations: seen.observations };
  } finally {
    for (const s of seen.sessions.values()) s.close();
  }
}

/** Passes until one plans nothing for formation and every pod answers in a formed cluster. */
async function passUntilFormed(c: FakeCluster, what: string): Promise<void> {
  await waitFor(
    what,
    async () => {
      const { plan, observations } = await pass(c);
      const formed = observations.every(
        (o) => o.state === 'answered' && o.info.state === 'ok' && o.info.slotsAssigned === 16384 && o.info.knownNodes === c.pods.size,
      );
      const replicas = observations.filter((o) => o.state === 'answered' && o.replication?.role === 'replica' && o.replication.linkUp);
      return (
        formed &&
        plan.formation.actions.length === 0 &&
        plan.formation.waiting.length === 0 &&
        replicas.length === c.shards * c.replicasPerShard
      );
    },
    { timeoutMs: 60_000, intervalMs: 300 },
  );
}

async function startFor(c: FakeCluster, shard: number, ordinal: number, at?: { port: number; busPort: number }): Promise<NodeServer> {
  const pod = `${c.name}-${shard}-${ordinal}`;
  const node = await startNode(world, { ...(at ?? {}), extraArgs: ['--cluster-announce-hostname', hostname(c.name, pod)] });
  servers.push(node);
  c.setPod(shard, ordinal, { host: '127.0.0.1', port: node.port, busPort: node.busPort });
  return node;
}

const idsListedBy = async (port: number): Promise<Set<string>> => new Set((await clusterNodes(port)).map((n) => n.id));
const portsOf = (c: FakeCluster) => [...c.pods.values()].map((p) => p.endpoint.port);

function writer(c: FakeCluster, prefix: string): ClusterWriter {
  const w = new ClusterWriter({
    seeds: async () => portsOf(c).map((p) => `127.0.0.1:${p}`),
    admin: { username: SYSTEM_USERNAMES.controller, password: CONTROLLER_PASSWORD },
    app: { username: APP_USER, password: APP_PASSWORD },
    shards: c.shards,
    prefix,
    announcedPorts: true,
  });
  w.start();
  return w;
}

describe('a node of another cluster, against the pass code', () => {
  it('at a dead pod’s address is never met, is forgotten when someone meets it, and neither cluster loses a slot or a write', async () => {
    const alpha = new FakeCluster('alpha', 2, 1);
    const bravo = new FakeCluster('bravo', 1, 1);
    const nodes = new Map<string, NodeServer>();
    for (let s = 0; s < 2; s++) for (const o of [0, 1]) nodes.set(`alpha-${s}-${o}`, await startFor(alpha, s, o));
    for (const o of [0, 1]) nodes.set(`bravo-0-${o}`, await startFor(bravo, 0, o));
    await passUntilFormed(alpha, 'alpha formed');
    await passUntilFormed(bravo, 'bravo formed');
    const alphaIds = new Set(await Promise.all(portsOf(alpha).map((p) => myId(p))));
    const bravoIds = new Set(await Promise.all(portsOf(bravo).map((p) => myId(p))));

    const wa = writer(alpha, 'alpha');
    const wb = writer(bravo, 'bravo');
    try {
      await waitFor('both writers have written', async () => wa.acknowledged > 200 && wb.acknowledged > 200, { timeoutMs: 30_000 });

      // alpha-1-1 (a replica) dies; its Pod still shows its address. A new pod of bravo gets that
      // exact address, client and bus port.
      const victim = nodes.get('alpha-1-1') as NodeServer;
      const victimId = await myId(victim.port);
      await victim.server.kill();
      const intruder = await startNode(world, {
        port: victim.port,
        busPort: victim.busPort,
        extraArgs: ['--cluster-announce-hostname', hostname('bravo', 'bravo-0-2')],
      });
      servers.push(intruder);
      const intruderId = await myId(intruder.port);

      // 1. The pass dials alpha-1-1 at that address, finds bravo-0-2, counts it as not answering
      //    and never meets it.
      for (let i = 0; i < 6; i++) {
        const { plan, observations } = await pass(alpha);
        const at = observations.find((o) => o.pod === 'alpha-1-1');
        expect(at?.state).toBe('unreachable');
        expect(at?.state === 'unreachable' ? at.error : '').toContain(
          'announces hostname "bravo-0-2.bravo.merge.svc.cluster.local", not alpha-1-1.alpha.merge.svc',
        );
        const actions = plan.now.kind === 'formation' ? plan.now.actions : [];
        expect(actions.filter((a) => a.kind === 'meet')).toEqual([]);
        await new Promise((r) => setTimeout(r, 300));
      }
      for (const p of portsOf(alpha).filter((p) => p !== victim.port)) expect((await idsListedBy(p)).has(intruderId)).toBe(false);

      // 2. Someone meets that address into alpha (a tool trusting a stale IP). The next pass names
      //    the node and forgets it on every node of alpha that lists it.
      const anchor = nodes.get('alpha-0-0') as NodeServer;
      expect(
        (await controllerCli(anchor.port, 'CLUSTER', 'MEET', '127.0.0.1', String(intruder.port), String(intruder.busPort))).trim(),
      ).toBe('OK');
      await waitFor('alpha-0-0 lists the met node', async () => (await idsListedBy(anchor.port)).has(intruderId), { timeoutMs: 10_000 });
      const reports: string[] = [];
      const forgets: string[] = [];
      await waitFor(
        'no node of alpha lists bravo-0-2',
        async () => {
          const { plan } = await pass(alpha);
          for (const f of plan.formation.foreign ?? []) reports.push(f.message);
          if (plan.now.kind === 'formation')
            for (const a of plan.now.actions) if (a.kind === 'forget' && a.nodeId === intruderId) forgets.push(a.on);
          for (const p of portsOf(alpha).filter((p) => p !== victim.port)) if ((await idsListedBy(p)).has(intruderId)) return false;
          return true;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(reports[0]).toContain(
        `a node of another cluster at 127.0.0.1:${intruder.port} (id ${intruderId}, hostname bravo-0-2.bravo.merge.svc.cluster.local`,
      );
      expect(new Set(forgets).has('alpha-0-0')).toBe(true);

      // 3. alpha-1-1 is replaced: a new pod at a new address. alpha heals; its old node is departed.
      const fresh = await startFor(alpha, 1, 1);
      nodes.set('alpha-1-1', fresh);
      const freshId = await myId(fresh.port);
      await passUntilFormed(alpha, 'alpha healed with the new alpha-1-1');

      // 4. bravo grows a replica: bravo-0-2 is its pod, with alpha's nodes in its tables from the
      //    meet. bravo's passes forget them there before it is met into bravo.
      bravo.replicasPerShard = 2;
      bravo.setPod(0, 2, { host: '127.0.0.1', port: intruder.port, busPort: intruder.busPort });
      const { plan: first } = await pass(bravo);
      const listed = await idsListedBy(intruder.port);
      if ([...listed].some((id) => alphaIds.has(id))) {
        expect(first.formation.foreign?.length ?? 0).toBeGreaterThan(0);
        expect(first.now.kind === 'formation' ? first.now.actions.filter((a) => a.kind === 'meet') : []).toEqual([]);
      }
      await passUntilFormed(bravo, 'bravo formed with bravo-0-2');

      // Each cluster lists only its own nodes and holds all its slots.
      const alphaNow = new Set([...alphaIds].filter((id) => id !== victimId)).add(freshId);
      const bravoNow = new Set(bravoIds).add(intruderId);
      for (const p of portsOf(alpha))
        expect(
          [...(await idsListedBy(p))].every((id) => alphaNow.has(id)),
          `alpha node ${p}`,
        ).toBe(true);
      for (const p of portsOf(bravo))
        expect(
          [...(await idsListedBy(p))].every((id) => bravoNow.has(id)),
          `bravo node ${p}`,
        ).toBe(true);
      for (const [c, ids, slots] of [
        [alpha, alphaNow, ['0-8191', '8192-16383']],
        [bravo, bravoNow, ['0-16383']],
      ] as const) {
        const owners = (await clusterNodes(portsOf(c)[0] as number)).filter((n) => n.slots.length > 0);
        expect(
          owners.every((n) => ids.has(n.id)),
          c.name,
        ).toBe(true);
        expect(owners.flatMap((n) => n.slots).sort(), c.name).toEqual([...slots]);
      }
    } finally {
      const [ra, rb] = [await wa.stop(), await wb.stop()];
      console.log(
        `foreign node (pass code, real servers): alpha ${ra.acknowledged} acknowledged, ${ra.lost} lost (${ra.failedAttempts} refused attempts); bravo ${rb.acknowledged} acknowledged, ${rb.lost} lost (${rb.failedAttempts} refused attempts)`,
      );
      expect(ra.lost).toBe(0);
      expect(rb.lost).toBe(0);
    }
  }, 240_000);
});
