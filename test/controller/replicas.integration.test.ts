// Replicas down in the real kube world (issue 13): real kube-apiserver, etcd and
// kube-controller-manager, the kubelet stand-in running real Valkey pods, the controller in-process
// as its ServiceAccount. A failover moves shard 0's primary to ordinal 2; the controller fails it
// back to ordinal 0, and only then is replicasPerShard lowered from 2 to 1, so the StatefulSet
// controller's removal of the highest ordinal never removes a primary. iovalkey's cluster client
// (test/support/client-workload.ts) writes and reads keys over all slots for the whole run; the test
// prints acknowledged writes lost, errors other than MOVED/ASK and the longest pause.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/controller/app.js';
import { countSlots } from '../../src/api/contract/slots.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';
import { ensureTools } from '../support/apiserver.js';
import { clusterClient, loadKeys, startWorkload, type WorkloadReport } from '../support/client-workload.js';
import { apiJson, clusterPods, stopControllerAndWorld } from '../support/controller/day2-world.js';
import {
  controllerCommand,
  startWorkloadController,
  startWorkloadWorld,
  workloadClusterObjects,
} from '../support/controller/workload-world.js';
import type { KubeWorld } from '../support/kube-world.js';
import { waitFor } from '../support/process.js';

const NS = 'replicas';
const NAME = 'shrink';
const SHARDS = 2;
const REPLICATION_PASSWORD = 'replication-password-for-replicas';
const CONTROLLER_PASSWORD = 'controller-password-for-replicas';
const APP_PASSWORD = 'app-password-for-replicas';
const KEYS = 5_000;
const TOTAL_SLOTS = 16384;

interface PodObject {
  metadata: { name: string; deletionTimestamp?: string };
  status?: { podIP?: string };
}
interface ClusterObject {
  metadata?: { generation?: number };
  status?: {
    state?: string;
    message?: string;
    observedGeneration?: number;
    nodes?: { pod: string; role: string; nodeId?: string }[];
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}
interface EventObject {
  reason: string;
  message: string;
  /** The recorder bumps one Event's count for a repeat within its window instead of adding another. */
  count?: number;
}

const rendered = (replicasPerShard: number) =>
  workloadClusterObjects(
    { replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD, app: APP_PASSWORD },
    { name: NAME, namespace: NS },
    { shards: SHARDS, replicasPerShard },
  );

describe('replicas in the kube world: 2 -> 1 after a failover moved a primary to ordinal 2', () => {
  let world: KubeWorld;
  let app: App | undefined;
  const logs: string[] = [];
  const metrics = controllerMetrics();

  const request = <T>(method: string, path: string): Promise<T> => apiJson<T>(world, method, path);
  const pods = (): Promise<PodObject[]> => clusterPods<PodObject>(world, NS, NAME);
  const clusterObject = () => request<ClusterObject>('GET', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${NS}/valkeyclusters/${NAME}`);
  const events = async (reason: string): Promise<EventObject[]> =>
    (await request<{ items: EventObject[] }>('GET', `/api/v1/namespaces/${NS}/events`)).items.filter((e) => e.reason === reason);
  const ipOf = async (pod: string): Promise<string> => {
    const ip = (await pods()).find((p) => p.metadata.name === pod)?.status?.podIP;
    if (!ip) throw new Error(`pod ${pod} has no IP`);
    return ip;
  };
  /** One command on one pod as the controller user. */
  const call = async (pod: string, ...args: [string, ...string[]]): Promise<string> =>
    controllerCommand(await ipOf(pod), CONTROLLER_PASSWORD, ...args);
  const clusterView = async (pod: string) => parseClusterNodes((await call(pod, 'CLUSTER', 'NODES')).trim());
  const active = (c: ClusterObject): boolean => c.status?.state === 'Active' && c.status.observedGeneration === c.metadata?.generation;

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    const started = await startWorkloadWorld({ namespace: NS, replicationPassword: REPLICATION_PASSWORD });
    world = started.world;
    const { prepared } = started;
    await world.apply(rendered(2));
    app = await startWorkloadController({
      controllerKubeconfig: prepared.controllerKubeconfig,
      namespace: NS,
      controllerPassword: CONTROLLER_PASSWORD,
      resyncMs: 1_000,
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics,
    });
    await waitFor('2 shards with 2 replicas each Active', async () => active(await clusterObject()), {
      timeoutMs: 180_000,
      intervalMs: 250,
    });
  }, 300_000);

  afterAll(async () => {
    await stopControllerAndWorld(app, logs, world);
  }, 60_000);

  it('fails the primary back to ordinal 0, then removes ordinal 2 of each shard without removing a primary, forgets it and loses no write', async () => {
    const t0 = Date.now();
    const seed = { host: await ipOf(`${NAME}-0-0`), port: 6379 };
    const loader = clusterClient(seed, APP_PASSWORD);
    await loadKeys(loader, KEYS);
    loader.disconnect();
    const workload = startWorkload(seed, APP_PASSWORD, KEYS);
    let stopped: WorkloadReport | undefined;
    let stopError = 'not within 90 s';
    const violations: string[] = [];
    let failbackMs = 0;
    let scaleDownMs = 0;
    try {
      // (Formation may already have failed a shard back: it takes whichever pod answers first as a
      // primary. Only a failback after this failover counts.)
      const shard0Back = async () =>
        (await events('FailedBack'))
          .filter((e) => e.message.includes(`${NAME}-0-0 takes shard 0's primary back from ${NAME}-0-2`))
          .reduce((n, e) => n + (e.count ?? 1), 0);
      const earlier = await shard0Back();
      // A failover moves shard 0's primary to ordinal 2 (graceful, as a node restart or a roll would leave it).
      expect(await call(`${NAME}-0-2`, 'CLUSTER', 'FAILOVER')).toBe('OK');
      const failedOver = Date.now();
      let sawPrimaryAt2 = false;
      await waitFor(
        'the controller failed shard 0 back to ordinal 0',
        async () => {
          if (!sawPrimaryAt2) sawPrimaryAt2 = (await call(`${NAME}-0-2`, 'ROLE').catch(() => '')).startsWith('master');
          return sawPrimaryAt2 && (await shard0Back()) > earlier;
        },
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      failbackMs = Date.now() - failedOver;
      expect(sawPrimaryAt2).toBe(true);
      let settled: ClusterObject = {};
      await waitFor(
        'Active with every primary at ordinal 0',
        async () => {
          settled = await clusterObject();
          return active(settled);
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      const primaries = settled.status?.nodes?.filter((n) => n.role === 'primary').map((n) => n.pod);
      expect(primaries).toEqual([`${NAME}-0-0`, `${NAME}-1-0`]);
      const remaining = (settled.status?.nodes ?? []).filter((n) => !n.pod.endsWith('-2'));
      const remainingIds = new Set(remaining.map((n) => n.nodeId));
      const primaryIds = new Set(settled.status?.nodes?.filter((n) => n.role === 'primary').map((n) => n.nodeId));

      // Now git lowers replicasPerShard: the StatefulSets drop to 2 pods, and their controller
      // deletes ordinal 2 of both shards at once (podManagementPolicy Parallel).
      const applied = Date.now();
      await world.apply(rendered(1));
      let activeWhileListed = false;
      await waitFor(
        'ordinal 2 removed and forgotten, status Active again',
        async () => {
          // Every slot is owned by a live node, and every owner is an ordinal 0 (the primaries kept).
          for (const pod of [`${NAME}-0-0`, `${NAME}-1-0`]) {
            const view = await clusterView(pod).catch(() => undefined);
            if (!view) continue;
            const owners = view.filter((n) => n.slots.length > 0);
            const owned = owners.reduce((n, o) => n + countSlots(o.slots), 0);
            const dead = owners.filter((o) => o.flags.has('fail') || o.flags.has('fail?'));
            const moved = owners.filter((o) => !primaryIds.has(o.id));
            if (owned !== TOTAL_SLOTS) violations.push(`${pod} sees ${owned} slots owned`);
            if (dead.length) violations.push(`${pod} sees slots on a failed node ${dead.map((d) => d.id).join(', ')}`);
            if (moved.length) violations.push(`${pod} sees slots on ${moved.map((d) => d.id).join(', ')}, not an ordinal 0`);
          }
          const c = await clusterObject();
          const names = (await pods()).map((p) => p.metadata.name).sort();
          if (!active(c)) return false;
          // Status promises Active only once every node forgot the removed ones.
          for (const n of remaining) {
            const ids = (await clusterView(n.pod)).map((x) => x.id);
            if (ids.length !== remainingIds.size || ids.some((id) => !remainingIds.has(id))) activeWhileListed = true;
          }
          return names.length === remaining.length;
        },
        { timeoutMs: 180_000, intervalMs: 250, abort: () => violations[0] },
      );
      scaleDownMs = Date.now() - applied;
      expect(activeWhileListed).toBe(false);
      const names = (await pods()).map((p) => p.metadata.name).sort();
      expect(names).toEqual([`${NAME}-0-0`, `${NAME}-0-1`, `${NAME}-1-0`, `${NAME}-1-1`]);
      const done = await clusterObject();
      expect(done.status?.nodes?.map((n) => `${n.pod}:${n.role}`)).toEqual([
        `${NAME}-0-0:primary`,
        `${NAME}-0-1:replica`,
        `${NAME}-1-0:primary`,
        `${NAME}-1-1:replica`,
      ]);
      expect(done.status?.message).toBe(`${SHARDS} shard(s) with 1 replica(s) each serve all ${TOTAL_SLOTS} slots; cluster_state ok`);
      // The removed nodes are forgotten: every remaining node lists exactly the remaining ones.
      for (const n of remaining) expect(new Set((await clusterView(n.pod)).map((x) => x.id))).toEqual(remainingIds);
    } finally {
      // A shard left without a primary would keep the client retrying its reads for ever: say so instead.
      // Its failure must not hide the test's own.
      stopped = await Promise.race([workload.stop(), new Promise<undefined>((r) => setTimeout(r, 90_000, undefined))]).catch(
        (e: unknown) => {
          stopError = e instanceof Error ? e.message : String(e);
          return undefined;
        },
      );
    }
    if (!stopped)
      throw new Error(`the workload could not read its keys back (${stopError}); violations: ${violations.slice(0, 3).join('; ')}`);
    const report = stopped;
    const odd = Object.entries(report.errors).filter(([m]) => !/^(MOVED|ASK)\b/.test(m));
    process.stdout.write(
      `[replicas] ${SHARDS} shards, replicas 2 -> 1 after a failover to ordinal 2, ${KEYS} keys, ${((Date.now() - t0) / 1000).toFixed(1)} s: ` +
        `failed back ${(failbackMs / 1000).toFixed(1)} s after the failover, scaled down and forgotten in ${(scaleDownMs / 1000).toFixed(1)} s; ` +
        `${report.writes} writes, ${report.reads} reads, ${report.lostWrites} acknowledged writes lost, ${report.staleReads} stale reads, ` +
        `errors other than MOVED/ASK: ${JSON.stringify(Object.fromEntries(odd))}, longest pause ${report.maxPauseMs.toFixed(0)} ms; ` +
        `primary-removal violations: ${violations.length ? violations.slice(0, 3).join('; ') : 'none'}\n`,
    );
    expect(violations).toEqual([]);
    expect(report.lostWrites).toBe(0);
    expect(odd).toEqual([]);
  }, 600_000);
});
