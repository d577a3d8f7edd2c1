// Day-2 in the real kube world (issue 12, DESIGN §8): real kube-apiserver, etcd and
// kube-controller-manager (StatefulSet and disruption controllers), the kubelet stand-in running
// real Valkey pods, and the controller in-process as its ServiceAccount (deploy/controller/rbac.yaml).
// A client writes and reads through the cluster for the whole run; every test prints the
// acknowledged writes lost and the longest time a shard refused writes. The controller runs with
// leader election, as the shipped Deployment's two replicas do; the roll case evicts the leader
// mid-roll and its standby finishes the roll. (A leader SIGKILLed mid-operation, with no graceful
// stop: migration-interrupted.integration.test.ts, case (a).)
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/controller/app.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { ensureTools } from '../support/apiserver.js';
import { sha256 } from '../support/hash.js';
import type { KubeWorld } from '../support/kube-world.js';
import { waitFor } from '../support/process.js';
import { rawCommand } from '../support/servers.js';
import { cluster, role } from '../support/objects.js';
import type { WriterReport } from '../support/controller/cluster-writer.js';
import { getLease, prepareWorld, shortLeaseElection } from '../support/controller/api-world.js';
import {
  apiJson,
  appUserAcl,
  appWriter,
  clusterPods,
  maxmemoryOf,
  renderClusterObjects,
  startDay2World,
  startKubeController,
  stopControllerAndWorld,
} from '../support/controller/day2-world.js';

const NS = 'day2';
const NAME = 'sessions';
const LONE = 'lone';
const SHARDS = 3;
const REPLICATION_PASSWORD = 'replication-password-for-day2';
const CONTROLLER_PASSWORD = 'controller-password-for-day2';
const APP_OLD = 'app-password-old';
const APP_NEW = 'app-password-new';
const CONFIG_SYNC_DELAY_MS = 3_000;
const TEST_TIMEOUT_MS = 240_000;

type Obj = Record<string, unknown> & {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
};
interface PodObject {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec: { containers: { image: string }[] };
  status?: { podIP?: string; conditions?: { type: string; status: string }[] };
}
interface ClusterObject {
  status?: { state?: string; message?: string; conditions?: { type: string; status: string; reason: string; message: string }[] };
}

function rendered(name: string, shards: number, replicasPerShard: number): Obj[] {
  const objects = renderClusterObjects<Obj>({ replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD }, [
    role('reader'),
    cluster(name, { shards, replicasPerShard }, NS),
  ]);
  // An application user, as a ValkeyCluster's acl would render it: the test writes as this user.
  const cm = objects.find((o) => o.kind === 'ConfigMap') as Obj;
  cm.data = { ...cm.data, 'users.acl': `${cm.data?.['users.acl'] ?? ''}${appUserAcl([APP_OLD])}` };
  return objects;
}

describe('day-2 in the kube world: live settings, ACLs, failover-first rolls', () => {
  let world: KubeWorld;
  let app: App | undefined;
  let logs: string[] = [];
  let metrics = controllerMetrics();
  let objects: Obj[];

  const request = <T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> =>
    apiJson<T>(world, method, path, body, contentType);
  const pods = (cluster = NAME): Promise<PodObject[]> => clusterPods<PodObject>(world, NS, cluster);
  const clusterObject = (name = NAME) =>
    request<ClusterObject>('GET', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${NS}/valkeyclusters/${name}`);
  const condition = (c: ClusterObject, type: string) => c.status?.conditions?.find((x) => x.type === type);
  const waitState = (state: string, name = NAME, timeoutMs = 120_000, also: (c: ClusterObject) => boolean = () => true) =>
    waitFor(
      `${name} ${state}`,
      async () => {
        const c = await clusterObject(name);
        return c.status?.state === state && also(c);
      },
      { timeoutMs, intervalMs: 250 },
    );
  const whole = (c: ClusterObject) =>
    condition(c, 'RollInProgress')?.status !== 'True' && condition(c, 'LiveConfigApplied')?.status !== 'False';

  /** A controller replica with leader election (short lease, as resilience.integration's election case). */
  const startReplica = (identity: string, out: { logs: string[]; metrics: ReturnType<typeof controllerMetrics> }) =>
    startKubeController({
      controllerKubeconfig,
      namespace: NS,
      controllerPassword: CONTROLLER_PASSWORD,
      leaderElection: shortLeaseElection(identity),
      log: jsonLogger({ level: 'info', write: (l) => out.logs.push(l) }),
      metrics: out.metrics,
    });
  const startController = async (): Promise<void> => {
    metrics = controllerMetrics();
    logs = [];
    app = await startReplica('status-sync-a', { logs, metrics });
  };
  let controllerKubeconfig = '';

  const writer = (prefix: string) =>
    appWriter({
      podIps: async () => (await pods()).flatMap((p) => (p.status?.podIP ? [p.status.podIP] : [])),
      controllerPassword: CONTROLLER_PASSWORD,
      appPassword: APP_OLD,
      shards: SHARDS,
      prefix: `app:${prefix}`,
    });
  const print = (what: string, r: WriterReport) =>
    process.stdout.write(
      `[day2] ${what}: ${r.acknowledged} writes acknowledged, ${r.lost} lost, ${r.failedAttempts} refused attempts, longest pause per shard ${r.longestPauseMs.map((ms) => `${ms} ms`).join(' / ')}\n`,
    );
  const counter = async (name: string): Promise<number> => {
    const m = (await metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
    return (m?.values ?? []).reduce((n, v) => n + Number(v.value), 0);
  };

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    const build = { build: '9.1.2' as const };
    world = await startDay2World({
      images: { 'valkey/valkey:9.0.1': build, 'valkey/valkey:9.0.2': build, 'valkey/valkey:8.0.1': { build: '8.0.1' } },
      configSyncDelayMs: CONFIG_SYNC_DELAY_MS,
      namespace: NS,
      replicationPassword: REPLICATION_PASSWORD,
    });
    controllerKubeconfig = (await prepareWorld(world.api)).controllerKubeconfig;
    objects = rendered(NAME, SHARDS, 1);
    await world.apply([...objects, cluster(NAME, { shards: SHARDS, replicasPerShard: 1 }, NS)]);
    await startController();
    await waitState('Active', NAME, 180_000);
  }, 300_000);

  afterAll(async () => {
    await stopControllerAndWorld(app, logs, world);
  }, 60_000);

  it(
    'a live-only change (maxmemory) restarts nothing and shows in CONFIG GET on every node',
    async () => {
      const w = writer('live');
      w.start();
      const before = await pods();
      const pids = before.map((p) => world.kubelet.pod(NS, p.metadata.name)?.pid);
      const cm = objects.find((o) => o.kind === 'ConfigMap') as Obj;
      cm.data = { ...cm.data, 'valkey.conf': (cm.data?.['valkey.conf'] ?? '').replace('maxmemory 1500mb', 'maxmemory 1200mb') };
      const t0 = Date.now();
      await world.apply([cm]);
      const file = `${world.kubelet.pod(NS, before[0]?.metadata.name as string)?.volumeDir('config') ?? ''}/valkey.conf`;
      let fileAt = 0;
      await waitFor(
        'maxmemory 1200mb live on every node',
        async () => {
          if (!fileAt && (await readFile(file, 'utf8')).includes('maxmemory 1200mb')) fileAt = Date.now();
          const replies = await Promise.all(before.map((p) => maxmemoryOf(p.status?.podIP as string, CONTROLLER_PASSWORD)));
          return replies.every((r) => r.includes('1258291200'));
        },
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      const liveAt = Date.now();
      process.stdout.write(
        `[day2] live apply: ConfigMap applied -> live on every node in ${liveAt - t0} ms (the pod's file changed after ${fileAt ? fileAt - t0 : 'n/a'} ms)\n`,
      );
      const after = await pods();
      expect(after.map((p) => p.metadata.uid).sort()).toEqual(before.map((p) => p.metadata.uid).sort());
      expect(after.map((p) => world.kubelet.pod(NS, p.metadata.name)?.pid)).toEqual(pids);
      expect(await counter('valkey_status_sync_live_applies_total')).toBeGreaterThanOrEqual(6);
      const r = await w.stop();
      print('live setting', r);
      expect(r.lost).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a password rotation and a new user reach every node with no restart, and only after the file is there',
    async () => {
      // The test before changed the same ConfigMap and the controller applied it live before the
      // kubelet's files caught up; a projection still pending would carry this change too, early.
      await new Promise((r) => setTimeout(r, CONFIG_SYNC_DELAY_MS + 500));
      const before = await pods();
      const pids = before.map((p) => world.kubelet.pod(NS, p.metadata.name)?.pid);
      const cm = objects.find((o) => o.kind === 'ConfigMap') as Obj;
      const acl = (cm.data?.['users.acl'] ?? '').replace(
        appUserAcl([APP_OLD]),
        `${appUserAcl([APP_OLD, APP_NEW])}user reporting on #${sha256('r')} resetchannels ~report:* -@all +@read\n`,
      );
      cm.data = { ...cm.data, 'users.acl': acl };
      const t0 = Date.now();
      await world.apply([cm]);
      const ips = before.map((p) => p.status?.podIP as string);
      const authNew = async (ip: string) => (await rawCommand(6379, [['AUTH', 'app', APP_NEW]], { host: ip })).startsWith('+OK');
      await waitFor('the new password works on every node', async () => (await Promise.all(ips.map(authNew))).every(Boolean), {
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      const elapsed = Date.now() - t0;
      process.stdout.write(
        `[day2] ACL: new password live on every node ${elapsed} ms after the ConfigMap changed (kubelet delay ${CONFIG_SYNC_DELAY_MS} ms)\n`,
      );
      // The load waited for the file: not before the kubelet's delay.
      expect(elapsed).toBeGreaterThanOrEqual(CONFIG_SYNC_DELAY_MS);
      for (const ip of ips) {
        expect((await rawCommand(6379, [['AUTH', 'app', APP_OLD]], { host: ip })).startsWith('+OK')).toBe(true);
        expect((await rawCommand(6379, [['AUTH', 'reporting', 'r']], { host: ip })).startsWith('+OK')).toBe(true);
      }
      expect((await pods()).map((p) => world.kubelet.pod(NS, p.metadata.name)?.pid)).toEqual(pids);
      expect(await counter('valkey_status_sync_live_applies_total')).toBeGreaterThanOrEqual(12);
      await waitState('Active', NAME, 30_000, whole);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'an image change rolls every pod failover-first, with no acknowledged write lost; the leader evicted mid-roll, its standby finishes the roll and leaves nothing half-done',
    async () => {
      // The Deployment's second replica: it waits on the Lease and reconciles nothing meanwhile.
      const standby = { logs: [] as string[], metrics: controllerMetrics() };
      const standbyApp = await startReplica('status-sync-b', standby);
      const leader = { logs, metrics };
      const count = async (m: typeof metrics, name: string) =>
        ((await m.registry.getMetricsAsJSON()).find((x) => x.name === name)?.values ?? []).reduce((n, v) => n + Number(v.value), 0);
      const w = writer('roll');
      w.start();
      await new Promise((r) => setTimeout(r, 1000));
      const t0 = Date.now();
      const sets = objects.filter((o) => o.kind === 'StatefulSet') as (Obj & {
        spec: { template: { spec: { containers: { image: string }[] } } };
      })[];
      for (const s of sets) for (const c of s.spec.template.spec.containers) c.image = 'valkey/valkey:9.0.2';
      await world.apply(sets);
      let handedOverMs = 0;
      try {
        // Mid-operation: a shard's primary was just failed over to its rolled replica, and the old
        // primary (now a replica of the old revision) is not evicted yet.
        await waitFor('the roll failed a primary over', async () => leader.logs.some((l) => l.includes('roll: failed over')), {
          timeoutMs: 120_000,
          intervalMs: 50,
        });
        expect(await count(standby.metrics, 'valkey_status_sync_reconciles_total')).toBe(0);
        expect(standbyApp.isLeader()).toBe(false);
        // The leader's pod is evicted (its node drained): SIGTERM, a graceful stop that releases the Lease.
        const stoppedAt = Date.now();
        await app?.stop();
        app = standbyApp;
        logs = standby.logs;
        metrics = standby.metrics;
        await waitFor('the standby leads', () => standbyApp.isLeader(), { timeoutMs: 15_000, intervalMs: 50 });
        handedOverMs = Date.now() - stoppedAt;
        expect((await getLease(world.api)).spec.holderIdentity).toBe('status-sync-b');
        await waitFor(
          'every pod on 9.0.2',
          async () => {
            const ps = await pods();
            return ps.length === SHARDS * 2 && ps.every((p) => p.spec.containers[0]?.image === 'valkey/valkey:9.0.2');
          },
          { timeoutMs: 200_000, intervalMs: 250 },
        );
        await waitState('Active', NAME, 60_000, whole);
      } finally {
        // Whatever happened, the standby is `app` from here on (the teardown stops it), and the leader is stopped.
        if (app !== standbyApp) {
          await app?.stop();
          app = standbyApp;
        }
      }
      const seconds = (Date.now() - t0) / 1000;
      const failovers =
        (await count(leader.metrics, 'valkey_status_sync_failovers_total')) +
        (await count(standby.metrics, 'valkey_status_sync_failovers_total'));
      const evicted = (l: readonly string[]) =>
        l.filter((x) => x.includes('roll: evicted')).map((x) => (JSON.parse(x) as { pod: string }).pod);
      const byLeader = evicted(leader.logs);
      const byStandby = evicted(standby.logs);
      const r = await w.stop();
      print(
        `roll of ${SHARDS}x1 in ${seconds.toFixed(1)} s with ${failovers} failovers; leader evicted after its first failover, standby leading ${handedOverMs} ms later; ` +
          `evictions by the leader ${byLeader.join(' ') || '-'}, by the standby ${byStandby.join(' ') || '-'}`,
        r,
      );
      expect(r.lost).toBe(0);
      expect(r.acknowledged).toBeGreaterThan(100);
      expect(failovers).toBeGreaterThanOrEqual(SHARDS);
      // Nothing half-done or done twice: every pod was evicted exactly once, by one leader or the other,
      // and the standby did the rest of the roll.
      expect([...byLeader, ...byStandby].sort()).toEqual(
        Array.from({ length: SHARDS }, (_, s) => [`${NAME}-${s}-0`, `${NAME}-${s}-1`])
          .flat()
          .sort(),
      );
      expect(byStandby.length).toBeGreaterThan(0);
      // One primary with its slots and one replica per shard, every replica in sync (whole: no roll, nothing pending).
      const status = (await clusterObject()).status as { nodes?: { pod: string; role: string }[] } | undefined;
      expect(status?.nodes?.filter((n) => n.role === 'primary')).toHaveLength(SHARDS);
      expect(status?.nodes?.filter((n) => n.role === 'replica')).toHaveLength(SHARDS);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a zero-replica cluster's roll is held until the opt-in",
    async () => {
      const lone = rendered(LONE, 1, 0);
      await world.apply([...lone, cluster(LONE, { shards: 1, replicasPerShard: 0 }, NS)]);
      await waitState('Active', LONE, 120_000);
      const sts = lone.find((o) => o.kind === 'StatefulSet') as Obj & { spec: { template: { spec: { containers: { image: string }[] } } } };
      const uid = (await pods(LONE))[0]?.metadata.uid;
      for (const c of sts.spec.template.spec.containers) c.image = 'valkey/valkey:9.0.2';
      await world.apply([sts]);
      await waitFor('roll held', async () => condition(await clusterObject(LONE), 'RollHeld')?.status === 'True', {
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      const held = await clusterObject(LONE);
      expect(held.status?.message).toMatch(/no replica: rolling lone-0-0 would lose its data/);
      await new Promise((r) => setTimeout(r, 3000));
      expect((await pods(LONE))[0]?.metadata.uid).toBe(uid);
      sts.metadata.annotations = { ...sts.metadata.annotations, 'valkey.gomomento.com/allow-data-loss-roll': 'true' };
      await world.apply([sts]);
      await waitFor('rolled after the opt-in', async () => (await pods(LONE))[0]?.spec.containers[0]?.image === 'valkey/valkey:9.0.2', {
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      await waitState('Active', LONE, 120_000, whole);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a new image whose binary is 8.0.1 stops the roll after one pod, says why, and the rest keeps serving; reverted, the bad pod is replaced',
    async () => {
      const w = writer('bad');
      w.start();
      const sets = objects.filter((o) => o.kind === 'StatefulSet') as (Obj & {
        spec: { template: { spec: { containers: Record<string, unknown>[] } } };
      })[];
      const good = sets.map((s) => s.spec.template.spec.containers.map((c) => ({ ...c })));
      for (const s of sets)
        s.spec.template.spec.containers = s.spec.template.spec.containers.map((c) => ({
          ...c,
          image: 'valkey/valkey:8.0.1',
          terminationMessagePolicy: 'FallbackToLogsOnError',
        }));
      await world.apply(sets);
      await waitFor('roll held', async () => condition(await clusterObject(), 'RollHeld')?.status === 'True', {
        timeoutMs: 120_000,
        intervalMs: 250,
      });
      const c = await clusterObject();
      process.stdout.write(`[day2] held: ${c.status?.message}\n`);
      expect(c.status?.message).toMatch(
        // 8.0.1 stops at the rendered valkey.conf's 9.0 line, before it reads users.acl.
        /runs valkey_version 8\.0\.1 \(read from its start-up log: its container exits at start-up with "\*\*\* FATAL CONFIG FILE ERROR \(Version 8\.0\.1\) \*\*\* .*'shutdown-on-sigterm failover'/,
      );
      await new Promise((r) => setTimeout(r, 3000));
      const images = (await pods()).map((p) => p.spec.containers[0]?.image);
      expect(images.filter((i) => i === 'valkey/valkey:8.0.1')).toHaveLength(1);
      // Git goes back to the image before: the one pod that cannot run is replaced by the
      // controller (nobody deletes it by hand), and the cluster is Active again.
      const t = Date.now();
      sets.forEach((s, i) => {
        s.spec.template.spec.containers = good[i] as Record<string, unknown>[];
      });
      await world.apply(sets);
      await waitFor(
        'the bad pod replaced, Active',
        async () =>
          (await clusterObject()).status?.state === 'Active' &&
          (await pods()).every((p) => p.spec.containers[0]?.image !== 'valkey/valkey:8.0.1'),
        { timeoutMs: 120_000, intervalMs: 250 },
      );
      process.stdout.write(
        `[day2] back on the previous image: the bad pod replaced, Active ${((Date.now() - t) / 1000).toFixed(1)} s after the revert\n`,
      );
      const r = await w.stop();
      print('bad image held, then reverted', r);
      expect(r.lost).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
