// The longer real-node cases (`npm run test:node`; CI runs only ../smoke.test.ts): ACL changes
// through the kubelet's real projection, replicas per shard up and down, a frozen server caught by
// the rendered readiness probe, an image below the version floor held after one pod, a roll with
// the leading controller pod deleted mid-way, and the rendered placement applied by the real
// scheduler. A client writes and reads inside the node's namespace through every case.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONTROLLER_NAMESPACE,
  figure,
  isReady,
  secondsSince,
  startNodeSuite,
  type NodeSuite,
  type Pod,
} from '../../support/node/node-suite.js';
import { waitFor } from '../../support/process.js';
import { valkeyCliPath } from '../../support/valkey.js';

const MIN = 60_000;
const ROLLED_TAG = '9.1.2-rebuilt';

describe('day-2 cases on a real node, with the shipped controller Deployment', () => {
  let s: NodeSuite;
  const suiteStart = Date.now();
  beforeAll(async () => {
    s = await startNodeSuite({
      name: 'day2',
      extraImages: [
        { build: '9.1.2', tag: ROLLED_TAG },
        { build: '8.0.1', tag: '8.0.1' },
      ],
      shards: 3,
      replicasPerShard: 1,
    });
    figure(`day2: Node Ready ${(s.node.nodeReadyMs / 1000).toFixed(1)} s after start`);
    const t = Date.now();
    await s.applyPackage();
    await s.waitActive('ValkeyCluster Active', 10 * MIN);
    figure(`day2: Active ${secondsSince(t)} after apply`);
  }, 30 * MIN);
  afterAll(async () => {
    await s?.stop();
    figure(`day2: wall time ${secondsSince(suiteStart)}`);
  }, 5 * MIN);

  const livePods = async (): Promise<Pod[]> => (await s.pods()).filter((p) => !p.metadata.deletionTimestamp);
  const readyPods = async (): Promise<Pod[]> => (await livePods()).filter(isReady);
  const ipsOf = (pods: readonly Pod[]): string[] => pods.flatMap((p) => (p.status?.podIP ? [p.status.podIP] : []));
  const restarts = (pods: readonly Pod[]): string[] =>
    pods.map((p) => `${p.metadata.uid}:${p.status?.containerStatuses?.[0]?.restartCount ?? '-'}`).sort();
  // AUTH itself, not `--user --pass ping`: valkey-cli goes on after a refused AUTH as the rendered
  // `default` user, which may PING, so a PONG says nothing about the password.
  const authAs = async (ip: string, user: string, password: string): Promise<boolean> =>
    (await s.node.exec(valkeyCliPath(), ['-h', ip, 'auth', user, password])).stdout.trim() === 'OK';
  const everyPod = async (check: (ip: string) => Promise<boolean>): Promise<boolean> => {
    const pods = await readyPods();
    if (pods.length !== s.pkg.shards * (s.pkg.replicasPerShard + 1)) return false;
    for (const ip of ipsOf(pods)) if (!(await check(ip))) return false;
    return true;
  };

  it(
    'adds a user and rotates its password through the projected users.acl, without a restart',
    async () => {
      const before = restarts(await readyPods());
      const w = await s.writer('acl change');
      // The check can fail: before the change no pod knows rotor.
      expect(await authAs(ipsOf(await readyPods())[0] as string, 'rotor', 'first-secret')).toBe(false);
      s.pkg.users = [s.pkg.users[0] as { username: string; passwords: string[] }, { username: 'rotor', passwords: ['first-secret'] }];
      let t = Date.now();
      await s.applyPackage();
      await waitFor('user rotor accepted on every pod', () => everyPod(async (ip) => authAs(ip, 'rotor', 'first-secret')), {
        timeoutMs: 5 * MIN,
        intervalMs: 500,
      });
      figure(`acl change: new user accepted on all 6 nodes ${secondsSince(t)} after apply`);
      s.pkg.users = [s.pkg.users[0] as { username: string; passwords: string[] }, { username: 'rotor', passwords: ['second-secret'] }];
      t = Date.now();
      await s.applyPackage();
      await waitFor(
        'the old password refused and the new one accepted on every pod',
        () => everyPod(async (ip) => (await authAs(ip, 'rotor', 'second-secret')) && !(await authAs(ip, 'rotor', 'first-secret'))),
        { timeoutMs: 5 * MIN, intervalMs: 500 },
      );
      figure(`acl change: password rotated on all 6 nodes ${secondsSince(t)} after apply`);
      await s.waitActive('Active after the ACL changes', 3 * MIN);
      const r = await w.stop();
      expect(restarts(await readyPods())).toEqual(before);
      expect(r.lost).toBe(0);
    },
    15 * MIN,
  );

  it(
    'replicas per shard 1 → 2 → 1: the new replicas sync and serve, then the extra ones go; no other pod restarted',
    async () => {
      const w = await s.writer('replicas 1-2-1');
      const before = restarts(await readyPods());
      const inSync = async (ip: string): Promise<boolean> => {
        const info = await s.cli(ip, ['info', 'replication']);
        return /^role:master/m.test(info) || /^master_link_status:up/m.test(info);
      };
      const nodesByRole = async (role: string): Promise<number> => ((await s.status()).nodes ?? []).filter((n) => n.role === role).length;
      s.pkg.replicasPerShard = 2;
      let t = Date.now();
      await s.applyPackage();
      await s.waitActive(
        'Active with 2 replicas per shard, every replica in sync',
        10 * MIN,
        async () => (await nodesByRole('replica')) === 6 && (await everyPod(inSync)),
      );
      figure(`replicas 1 → 2: 9 pods Ready, every replica in sync, Active ${secondsSince(t)} after apply`);
      const grown = await readyPods();
      // The pods that were there before are the same processes (no restart); three are new.
      expect(restarts(grown).filter((r) => before.includes(r))).toEqual(before);
      s.pkg.replicasPerShard = 1;
      t = Date.now();
      await s.applyPackage();
      await s.waitActive(
        'Active with 1 replica per shard, the extra pods gone',
        10 * MIN,
        async () => (await livePods()).length === 6 && (await nodesByRole('replica')) === 3 && (await nodesByRole('primary')) === 3,
      );
      figure(`replicas 2 → 1: the third pod of every shard gone, Active ${secondsSince(t)} after apply`);
      const r = await w.stop();
      expect(restarts(await readyPods())).toEqual(before);
      expect(r.lost).toBe(0);
    },
    25 * MIN,
  );

  it(
    'a frozen valkey-server (SIGSTOP) turns its pod NotReady through the rendered probe, and Ready again after SIGCONT',
    async () => {
      const w = await s.writer('frozen server');
      const replica = (await s.status()).nodes?.find((n) => n.role === 'replica');
      const pod = (await livePods()).find((p) => p.metadata.name === replica?.pod) as Pod;
      const pid = await s.node.containerPid(pod.status?.containerStatuses?.[0]?.containerID ?? '');
      const podReady = async (): Promise<boolean> =>
        isReady(await s.node.json<Pod>('GET', `/api/v1/namespaces/${s.pkg.namespace}/pods/${pod.metadata.name}`));
      let t = Date.now();
      process.kill(pid, 'SIGSTOP');
      try {
        await waitFor('the frozen pod NotReady', async () => !(await podReady()), { timeoutMs: 3 * MIN, intervalMs: 500 });
        figure(`frozen server: ${pod.metadata.name} NotReady ${secondsSince(t)} after SIGSTOP`);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      t = Date.now();
      await waitFor('Ready again', podReady, { timeoutMs: 3 * MIN, intervalMs: 500 });
      figure(`frozen server: Ready again ${secondsSince(t)} after SIGCONT`);
      await s.waitActive('Active after the freeze', 5 * MIN);
      const r = await w.stop();
      expect(r.lost).toBe(0);
    },
    12 * MIN,
  );

  it(
    'holds a roll to an image whose server is below the version floor after its first pod',
    async () => {
      const w = await s.writer('image below the floor');
      const before = new Map((await livePods()).map((p) => [p.metadata.name, p.spec.containers[0]?.image]));
      // The ValkeyImage claims 9.1.2 (the render-time floor passes); the binary in the image is 8.0.1.
      s.pkg.image = { tag: '8.0.1', version: '9.1.2' };
      const t = Date.now();
      await s.applyPackage();
      const onBad = async (): Promise<Pod[]> => (await livePods()).filter((p) => p.spec.containers[0]?.image === 'valkey/valkey:8.0.1');
      await waitFor('a first pod on the 8.0.1 image', async () => (await onBad()).length === 1, { timeoutMs: 5 * MIN, intervalMs: 500 });
      figure(`image below the floor: first pod re-created on 8.0.1 ${secondsSince(t)} after apply`);
      await sleep(90_000);
      const bad = await onBad();
      const status = await s.status();
      figure(`image below the floor: after 90 s ${bad.length} pod(s) on 8.0.1; state ${status.state}: ${status.message ?? ''}`);
      expect(bad).toHaveLength(1);
      expect(status.state).not.toBe('Active');
      // Back to the image the cluster ran: the held pod is replaced and the cluster is Active again.
      s.pkg.image = { tag: ROLLED_TAG, version: '9.1.2' };
      await s.applyPackage();
      await s.waitActive(
        'back on the previous image, Active',
        15 * MIN,
        async () => (await readyPods()).length === 6 && (await onBad()).length === 0,
      );
      figure(`image below the floor: back to ${before.values().next().value}, Active ${secondsSince(t)} after the first apply`);
      const r = await w.stop();
      expect(r.lost).toBe(0);
    },
    30 * MIN,
  );

  it(
    'finishes a roll when the leading controller pod is deleted mid-way (the standby takes the Lease)',
    async () => {
      const w = await s.writer('controller deleted mid-roll');
      const before = new Set((await livePods()).map((p) => p.metadata.uid));
      s.pkg.image = { tag: '9.1.2', version: '9.1.2' };
      const t = Date.now();
      await s.applyPackage();
      await waitFor(
        'the roll under way (a first pod re-created)',
        async () => (await livePods()).some((p) => !before.has(p.metadata.uid)),
        {
          timeoutMs: 5 * MIN,
          intervalMs: 500,
        },
      );
      const lease = await s.node.json<{ spec: { holderIdentity?: string } }>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/${CONTROLLER_NAMESPACE}/leases/valkey-status-sync`,
      );
      const leader = lease.spec.holderIdentity ?? '';
      const leaderPod = (await s.controllerPods()).find((p) => leader.includes(p.metadata.name));
      expect(leaderPod, `a controller pod holding the Lease (${leader})`).toBeDefined();
      await s.node.json('DELETE', `/api/v1/namespaces/${CONTROLLER_NAMESPACE}/pods/${leaderPod?.metadata.name}`);
      figure(`controller deleted mid-roll: deleted the leader ${leaderPod?.metadata.name} ${secondsSince(t)} after apply`);
      await s.waitActive('the roll finished by the new leader, Active', 20 * MIN, async () => {
        const pods = await readyPods();
        return pods.length === 6 && pods.every((p) => !before.has(p.metadata.uid) && p.spec.containers[0]?.image === 'valkey/valkey:9.1.2');
      });
      const lease2 = await s.node.json<{ spec: { holderIdentity?: string } }>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/${CONTROLLER_NAMESPACE}/leases/valkey-status-sync`,
      );
      figure(`controller deleted mid-roll: Active ${secondsSince(t)} after apply; Lease now held by ${lease2.spec.holderIdentity}`);
      expect(lease2.spec.holderIdentity).not.toBe(leader);
      const r = await w.stop();
      expect(r.lost).toBe(0);
    },
    25 * MIN,
  );

  it(
    'the real scheduler applies the rendered placement: pods for a zone the node is not in stay Pending, then schedule',
    async () => {
      const w = await s.writer('placement');
      await s.node.json(
        'PATCH',
        `/api/v1/nodes/${s.node.nodeName}`,
        { metadata: { labels: { 'topology.kubernetes.io/zone': 'zone-a' } } },
        'application/merge-patch+json',
      );
      const before = new Set((await livePods()).map((p) => p.metadata.uid));
      s.pkg.placement = { zones: ['zone-b'] };
      const t = Date.now();
      await s.applyPackage();
      type Ev = { reason: string; message: string; involvedObject: { name: string } };
      const refused = async (): Promise<Ev | undefined> =>
        (
          await s.node.json<{ items: Ev[] }>('GET', `/api/v1/namespaces/${s.pkg.namespace}/events?fieldSelector=reason=FailedScheduling`)
        ).items.at(-1);
      await waitFor('FailedScheduling for the first re-created pod', async () => (await refused()) !== undefined, {
        timeoutMs: 5 * MIN,
        intervalMs: 1_000,
      });
      const ev = await refused();
      figure(`placement: ${ev?.involvedObject.name} refused by the scheduler ${secondsSince(t)} after apply: ${ev?.message}`);
      expect(ev?.message).toMatch(/node affinity|selector/i);
      const pending = (await livePods()).filter((p) => p.status?.phase === 'Pending' && !p.spec.nodeName);
      expect(pending).toHaveLength(1);
      await s.node.json(
        'PATCH',
        `/api/v1/nodes/${s.node.nodeName}`,
        { metadata: { labels: { 'topology.kubernetes.io/zone': 'zone-b' } } },
        'application/merge-patch+json',
      );
      await s.waitActive('every pod re-created in zone-b, Active', 20 * MIN, async () => {
        const pods = await readyPods();
        return pods.length === 6 && pods.every((p) => !before.has(p.metadata.uid));
      });
      figure(`placement: every pod scheduled into zone-b, Active ${secondsSince(t)} after apply`);

      // The shipped nodeSpread `required` on one Node: a shard's second pod cannot go where its
      // first one is, so the scheduler refuses the first re-created pod and the roll holds there.
      // Back to bestEffort (git reverted): that pod is replaced and the cluster is Active again.
      const spreadBefore = new Set((await livePods()).map((p) => p.metadata.uid));
      s.pkg.nodeSpread = 'required';
      const t2 = Date.now();
      await s.applyPackage();
      const antiAffinity = async (): Promise<Ev | undefined> =>
        // The zone case's refusals above name node affinity; this one names pod anti-affinity.
        (
          await s.node.json<{ items: Ev[] }>('GET', `/api/v1/namespaces/${s.pkg.namespace}/events?fieldSelector=reason=FailedScheduling`)
        ).items.find((e) => /anti-affinity/i.test(e.message));
      await waitFor('FailedScheduling on pod anti-affinity', async () => (await antiAffinity()) !== undefined, {
        timeoutMs: 5 * MIN,
        intervalMs: 1_000,
      });
      const refusedSpread = await antiAffinity();
      figure(
        `placement: nodeSpread required on one Node: ${refusedSpread?.involvedObject.name} refused ${secondsSince(t2)} after apply: ${refusedSpread?.message}`,
      );
      await sleep(20_000);
      const held = (await livePods()).filter((p) => !spreadBefore.has(p.metadata.uid));
      expect(held).toHaveLength(1);
      expect(held[0]?.spec.nodeName).toBeUndefined();
      expect((await s.status()).state).not.toBe('Active');
      s.pkg.nodeSpread = 'bestEffort';
      await s.applyPackage();
      await s.waitActive('back on bestEffort, Active', 15 * MIN, async () => (await readyPods()).length === 6);
      figure(`placement: back to nodeSpread bestEffort, Active ${secondsSince(t2)} after the first apply`);
      const r = await w.stop();
      expect(r.lost).toBe(0);
    },
    35 * MIN,
  );
});
