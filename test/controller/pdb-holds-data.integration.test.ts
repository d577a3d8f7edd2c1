// Available means holds the data (issue 31), with the real API server's Eviction API: the rendered
// readiness probe (probe.sh ready, run by the kubelet stand-in on the real Valkey process) and the
// rendered PodDisruptionBudget, kept current by the real kube-controller-manager's disruption
// controller. A shard's replica is replaced and, while the new pod is still syncing its copy (the
// primary's snapshot slowed down), an eviction of the primary (the shard's last full copy, as a
// `kubectl drain` of its node would ask) is refused with 429; once the new replica holds its copy
// the same eviction is allowed. The evicted primary's preStop hook (probe.sh handover, run by the
// stand-in as a kubelet runs it) holds it while the controller, cluster-wide as shipped, hands the
// shard to the replica (HandedOver); the re-created pod joins as the new replica. A client writes
// and reads as the application user throughout; it and the keys loaded before count what was lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_USERNAMES } from '../../src/api/index.js';
import type { App } from '../../src/controller/app.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { ensureTools } from '../support/apiserver.js';
import { prepareWorld } from '../support/controller/api-world.js';
import type { WriterReport } from '../support/controller/cluster-writer.js';
import {
  apiJson,
  appUserAcl,
  appWriter,
  clusterPods,
  renderClusterObjects,
  startDay2World,
  startKubeController,
  stopControllerAndWorld,
} from '../support/controller/day2-world.js';
import type { KubeWorld } from '../support/kube-world.js';
import { cluster } from '../support/objects.js';
import { waitFor } from '../support/process.js';
import { rawCommand } from '../support/servers.js';

const NS = 'pdb-holds-data';
const NAME = 'held';
const REPLICATION_PASSWORD = 'replication-password-for-pdb-holds-data';
const CONTROLLER_PASSWORD = 'controller-password-for-pdb-holds-data';
const APP_PASSWORD = 'app-password-for-pdb-holds-data';
/** Keys loaded before the replica is replaced: with rdb-key-save-delay 1000 µs, about 10 s of full sync. */
const KEYS = 10_000;

interface PodObject {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status?: { podIP?: string; conditions?: { type: string; status: string }[] };
}
interface ClusterObject {
  status?: { state?: string; message?: string; nodes?: { pod: string; role: string; ip?: string }[] };
}
interface EventList {
  items: { reason: string; type: string; message: string; involvedObject: { kind: string; name: string } }[];
}

const isReady = (p: PodObject | undefined): boolean =>
  p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

describe('the shard PDB and the readiness probe keep a drain from evicting the last full copy (real API server)', () => {
  let world: KubeWorld;
  let app: App | undefined;
  const logs: string[] = [];
  const clusterPath = `/apis/valkey.gomomento.com/v1alpha1/namespaces/${NS}/valkeyclusters/${NAME}`;
  const getPod = async (name: string): Promise<PodObject | undefined> => {
    const res = await world.api.request('GET', `/api/v1/namespaces/${NS}/pods/${name}`);
    return res.status === 200 ? (JSON.parse(res.body) as PodObject) : undefined;
  };
  const evict = (name: string) =>
    world.api.request('POST', `/api/v1/namespaces/${NS}/pods/${name}/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name, namespace: NS },
    });
  const disruptionsAllowed = async (): Promise<number | undefined> =>
    (
      await apiJson<{ status?: { disruptionsAllowed?: number } }>(
        world,
        'GET',
        `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/${NAME}-0`,
      )
    ).status?.disruptionsAllowed;
  const asController = (ip: string, command: string[]) =>
    rawCommand(6379, [['AUTH', SYSTEM_USERNAMES.controller, CONTROLLER_PASSWORD], command], {
      host: ip,
      // INFO's bulk reply spans many lines: it ends after its last field.
      ...(command[0] === 'INFO'
        ? { done: (r: string) => r.startsWith('-') || /(repl_backlog_histlen:\d+|# Keyspace(\r\ndb0:[^\r]*)?)\r\n\r\n$/.test(r) }
        : {}),
    });
  const events = async () => (await apiJson<EventList>(world, 'GET', `/api/v1/namespaces/${NS}/events`)).items;
  const activeStatus = async (): Promise<ClusterObject> => {
    let c: ClusterObject = {};
    await waitFor(
      'the cluster Active',
      async () => {
        c = await apiJson<ClusterObject>(world, 'GET', clusterPath);
        return c.status?.state === 'Active';
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    return c;
  };

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    world = await startDay2World({
      images: { 'valkey/valkey:9.0.1': { build: '9.1.2' } },
      configSyncDelayMs: 1_000,
      namespace: NS,
      replicationPassword: REPLICATION_PASSWORD,
      // The kubelet stand-in runs the rendered probe.sh ready, as the real kubelet does.
      readiness: 'script',
    });
    const prepared = await prepareWorld(world.api);
    const valkeyCluster = cluster(NAME, { shards: 1, replicasPerShard: 1 }, NS);
    const objects = renderClusterObjects<{ kind: string; data?: Record<string, string> }>(
      { replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD },
      [valkeyCluster],
    );
    // An application user, as a ValkeyCluster's acl would render it: the client writes as this user.
    const cm = objects.find((o) => o.kind === 'ConfigMap');
    if (cm) cm.data = { ...cm.data, 'users.acl': `${cm.data?.['users.acl'] ?? ''}${appUserAcl([APP_PASSWORD])}` };
    await world.apply([...objects, valkeyCluster]);
    app = await startKubeController({
      controllerKubeconfig: prepared.controllerKubeconfig,
      namespace: NS,
      // As shipped: it reads Nodes, which the drain handover's choice of replica needs.
      clusterWide: true,
      controllerPassword: CONTROLLER_PASSWORD,
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics: controllerMetrics(),
    });
  }, 180_000);

  afterAll(async () => {
    await stopControllerAndWorld(app, logs, world);
  }, 60_000);

  it('refuses (429) the eviction of the primary while the re-created replica is still syncing, allows it once in sync, hands the shard over, and nothing is lost', async () => {
    const formed = await activeStatus();
    const primary = formed.status?.nodes?.find((n) => n.role === 'primary');
    const replica = formed.status?.nodes?.find((n) => n.role === 'replica');
    expect(primary?.ip && replica).toBeTruthy();
    const primaryPod = primary?.pod as string;
    const replicaPod = replica?.pod as string;
    const primaryIp = primary?.ip as string;
    await waitFor('both pods Ready', async () => isReady(await getPod(primaryPod)) && isReady(await getPod(replicaPod)), {
      timeoutMs: 60_000,
    });
    await waitFor('the PDB allows one disruption', async () => (await disruptionsAllowed()) === 1, { timeoutMs: 30_000 });

    // KEYS keys on the primary (as the replication user, the one rendered user that may write any key).
    const sets = Array.from({ length: KEYS }, (_, i) => ['SET', `k:${String(i)}`, 'v'.repeat(32)]);
    await rawCommand(6379, [['AUTH', SYSTEM_USERNAMES.replication, REPLICATION_PASSWORD], ...sets], { host: primaryIp, timeoutMs: 60_000 });
    expect(await asController(primaryIp, ['INFO', 'keyspace'])).toContain(`keys=${String(KEYS)},`);

    const writer = appWriter({
      podIps: async () => (await clusterPods<PodObject>(world, NS, NAME)).flatMap((p) => (p.status?.podIP ? [p.status.podIP] : [])),
      controllerPassword: CONTROLLER_PASSWORD,
      appPassword: APP_PASSWORD,
      shards: 1,
      prefix: 'app:pdb',
    });
    writer.start();
    let report: WriterReport | undefined;
    let keysAfter = '';
    let ackedBeforeCount = 0;
    let handedOverAfterMs: number | undefined;
    try {
      // A full sync to a new replica takes about KEYS ms from here on.
      expect(await asController(primaryIp, ['CONFIG', 'SET', 'rdb-key-save-delay', '1000'])).toContain('+OK');

      // The replica's pod is replaced (its node drained): the new pod is empty until it has synced.
      const old = await getPod(replicaPod);
      const del = await world.api.request('DELETE', `/api/v1/namespaces/${NS}/pods/${replicaPod}`);
      expect(del.status, del.body).toBe(200);
      await waitFor(
        'the replica re-created, attached and syncing (not Ready)',
        async () => {
          const p = await getPod(replicaPod);
          return p !== undefined && p.metadata.uid !== old?.metadata.uid && p.metadata.deletionTimestamp === undefined && !isReady(p);
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      await waitFor('the PDB allows no disruption', async () => (await disruptionsAllowed()) === 0, { timeoutMs: 30_000, intervalMs: 200 });
      const info = await asController(primaryIp, ['INFO', 'replication']);
      const refused = await evict(primaryPod);
      console.log(`[pdb] eviction of ${primaryPod} while its replica syncs: ${String(refused.status)} ${refused.body.slice(0, 200)}`);
      expect(refused.status, refused.body).toBe(429);
      expect(refused.body).toContain('disruption budget');
      // The primary has no replica online yet: the shard's only full copy is the one this eviction asked for.
      expect(info).not.toMatch(/slave0:.*state=online/);

      // Once the new replica holds its copy it is Ready, the budget is back, and the same eviction goes.
      expect(await asController(primaryIp, ['CONFIG', 'SET', 'rdb-key-save-delay', '0'])).toContain('+OK');
      await waitFor('the new replica Ready (in sync)', async () => isReady(await getPod(replicaPod)), { timeoutMs: 120_000 });
      await waitFor('the PDB allows one disruption again', async () => (await disruptionsAllowed()) === 1, { timeoutMs: 30_000 });
      const evictedAt = Date.now();
      const allowed = await evict(primaryPod);
      expect(allowed.status, allowed.body).toBe(201);
      // The preStop hook holds the primary while the controller hands the shard to the replica.
      await waitFor('the HandedOver Event', async () => (await events()).some((e) => e.reason === 'HandedOver'), {
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      handedOverAfterMs = Date.now() - evictedAt;
      await waitFor(
        'the shard whole again: Active, every pod Ready',
        async () => {
          const c = await apiJson<ClusterObject>(world, 'GET', clusterPath);
          const pods = await clusterPods<PodObject>(world, NS, NAME);
          return (
            c.status?.state === 'Active' &&
            (c.status.nodes ?? []).every((n) => n.ip !== undefined) &&
            pods.length === 2 &&
            pods.every((p) => isReady(p) && p.metadata.deletionTimestamp === undefined)
          );
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      );
      // (The re-created pod at ordinal 0 may have the primary back by now: the failback.)
      const newPrimary = (await apiJson<ClusterObject>(world, 'GET', clusterPath)).status?.nodes?.find((n) => n.role === 'primary');
      ackedBeforeCount = writer.acknowledged;
      keysAfter = await asController(newPrimary?.ip as string, ['INFO', 'keyspace']);
    } finally {
      report = await writer.stop();
      const c = await apiJson<ClusterObject>(world, 'GET', clusterPath).catch(() => ({}) as ClusterObject);
      console.log(
        `[pdb] client: ${String(report.acknowledged)} writes acknowledged, ${String(report.lost)} lost, ${String(report.failedAttempts)} refused attempts, longest pause ${report.longestPauseMs.map((ms) => `${String(ms)} ms`).join(' / ')}; ` +
          `handed over ${handedOverAfterMs === undefined ? 'never' : `${String(handedOverAfterMs)} ms after the eviction`}; ` +
          `loaded keys after: ${keysAfter.split('\r\n').find((l) => l.startsWith('db0:')) ?? '?'}; cluster ${c.status?.state ?? '?'}: ${c.status?.message ?? ''}; ` +
          `events: ${(await events().catch(() => [])).map((e) => `${e.type} ${e.reason}`).join(', ')}`,
      );
    }
    expect(report.lost).toBe(0);
    expect(report.acknowledged).toBeGreaterThan(0);
    // The keys loaded before plus every write the client had acknowledged when they were counted: none went with the old primary.
    const db0 = /db0:keys=(\d+),/.exec(keysAfter);
    expect(Number(db0?.[1])).toBeGreaterThanOrEqual(KEYS + ackedBeforeCount);
    expect((await events()).filter((e) => e.type === 'Warning')).toEqual([]);
  }, 300_000);
});
