// The day-2 test world is real (DESIGN §8, issue 12 "Tested for real"): a rendered 1-shard x
// 2-replica cluster applied to a real kube-apiserver becomes pods through the real StatefulSet
// controller, and each pod a real Valkey process on its own loopback address; deleted pods come
// back with empty data; the Eviction API refuses what the PodDisruptionBudget forbids; ConfigMap
// changes reach the pod's files only after the kubelet's lag; a pre-9.0 binary exits at
// start-up and its log reaches the pod's status.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cluster, role } from './objects.js';
import { ensureTools } from './apiserver.js';
import { renderClusterObjects, startDay2World } from './controller/day2-world.js';
import type { KubeWorld } from './kube-world.js';
import { ping } from './kubelet/ping.js';
import { waitFor } from './process.js';
import { rawCommand } from './servers.js';

const NS = 'team-a';
const NAME = 'sessions';
const PODS = [0, 1, 2].map((i) => `${NAME}-0-${String(i)}`);
const REPLICATION_PASSWORD = 'replication-password-for-kube-world';
const CONTROLLER_PASSWORD = 'controller-password-for-kube-world';
const CONFIG_SYNC_DELAY_MS = 3_000;
/** Each test waits on real processes and controllers; on two busy cores that can take a while. */
const TEST_TIMEOUT_MS = 120_000;

/** One whole RESP reply: a line, or a bulk string with all its bytes. */
function complete(reply: string): boolean {
  const bulk = /^\$(-?\d+)\r\n/.exec(reply);
  if (bulk?.[1] === undefined) return /^[-+:][^\r]*\r\n$/.test(reply);
  const length = Number(bulk[1]);
  return length < 0 || Buffer.byteLength(reply) >= bulk[0].length + length + 2;
}

interface PodObject {
  metadata: {
    name: string;
    uid: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string; name: string }[];
  };
  spec: { nodeName?: string; containers: { image: string }[] };
  status?: {
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: {
      restartCount: number;
      state: Record<string, { exitCode?: number; message?: string } | undefined>;
      lastState: Record<string, { exitCode?: number; message?: string } | undefined>;
    }[];
  };
}

/** The cluster's objects as render-valkey renders them. */
function renderedObjects(): Record<string, unknown>[] {
  return renderClusterObjects({ replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD }, [
    role('reader'),
    cluster(NAME, { shards: 1, replicasPerShard: 2 }, NS),
  ]);
}

describe('kube world: real API server, controller-manager and Valkey processes', () => {
  let world: KubeWorld;
  let objects: Record<string, unknown>[];

  const getPod = async (name: string): Promise<PodObject | undefined> => {
    const res = await world.api.request('GET', `/api/v1/namespaces/${NS}/pods/${name}`);
    return res.status === 200 ? (JSON.parse(res.body) as PodObject) : undefined;
  };
  const isReady = (p: PodObject | undefined): boolean =>
    p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  const waitReady = (names: readonly string[], timeoutMs = 60_000): Promise<void> =>
    waitFor(`pods ready: ${names.join(', ')}`, async () => (await Promise.all(names.map(getPod))).every(isReady), {
      timeoutMs,
      intervalMs: 200,
    });
  /** As the controller user of the rendered users.acl. */
  const command = async (name: string, ...cmd: string[]): Promise<string> => {
    const ip = world.kubelet.pod(NS, name)?.ip;
    if (ip === undefined) throw new Error(`pod ${name} not running`);
    const reply = await rawCommand(6379, [['AUTH', 'valkey-krm-controller', CONTROLLER_PASSWORD], cmd], {
      host: ip,
      done: (r) => r.startsWith('+OK\r\n') && complete(r.slice(5)),
    });
    return reply.slice(5);
  };
  const evict = (name: string) =>
    world.api.request('POST', `/api/v1/namespaces/${NS}/pods/${name}/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name, namespace: NS },
    });
  const pdbAllows = async (): Promise<number | undefined> => {
    const res = await world.api.request('GET', `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/${NAME}-0`);
    return (JSON.parse(res.body) as { status?: { disruptionsAllowed?: number } }).status?.disruptionsAllowed;
  };

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    world = await startDay2World({
      images: {
        'valkey/valkey:9.0.1': { build: '9.1.2' },
        'valkey/valkey:8.0.1': { build: '8.0.1' },
      },
      configSyncDelayMs: CONFIG_SYNC_DELAY_MS,
      namespace: NS,
      replicationPassword: REPLICATION_PASSWORD,
    });
    objects = renderedObjects();
    await world.apply(objects);
  }, 120_000);

  afterAll(async () => {
    await world?.stop();
  }, TEST_TIMEOUT_MS);

  it(
    'the StatefulSet controller creates three pods, each a Valkey process answering PING on its own IP',
    async () => {
      await waitReady(PODS);
      const pods = await Promise.all(PODS.map(getPod));
      const ips = pods.map((p) => p?.status?.podIP);
      expect(new Set(ips).size).toBe(3);
      for (const [i, p] of pods.entries()) {
        expect(p?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'StatefulSet', name: `${NAME}-0` });
        expect(p?.metadata.labels?.['controller-revision-hash']).toMatch(new RegExp(`^${NAME}-0-`));
        expect(p?.spec.nodeName).toMatch(/^node-/);
        expect(world.kubelet.pod(NS, PODS[i] as string)?.ip).toBe(ips[i]);
        expect(await ping({ host: ips[i] as string, port: 6379 })).toBe('+PONG');
      }
      // The image map chose the build: the supported release says 9.1.2.
      expect(await command(PODS[0] as string, 'INFO', 'server')).toContain('valkey_version:9.1.2');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'the pods form a shard: replicas authenticate with the Secret-expanded masterauth and sync over pod IPs',
    async () => {
      await waitReady(PODS);
      const [primary, ...replicas] = PODS as [string, string, string];
      const primaryIp = world.kubelet.pod(NS, primary)?.ip as string;
      expect(await command(primary, 'CLUSTER', 'ADDSLOTSRANGE', '0', '16383')).toBe('+OK\r\n');
      const primaryId = (await command(primary, 'CLUSTER', 'MYID')).split('\r\n')[1] as string;
      for (const r of replicas) expect(await command(r, 'CLUSTER', 'MEET', primaryIp, '6379', '16379')).toBe('+OK\r\n');
      for (const r of replicas) {
        await waitFor(`${r} knows the primary`, async () => (await command(r, 'CLUSTER', 'NODES')).includes(primaryId), {
          timeoutMs: 20_000,
          intervalMs: 200,
        });
        expect(await command(r, 'CLUSTER', 'REPLICATE', primaryId)).toBe('+OK\r\n');
      }
      for (const r of replicas) {
        await waitFor(`${r} in sync`, async () => /master_link_status:up/.test(await command(r, 'INFO', 'replication')), {
          timeoutMs: 20_000,
          intervalMs: 200,
        });
        expect(await command(r, 'INFO', 'replication')).toContain(`master_host:${primaryIp}`);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a deleted pod comes back from the StatefulSet with a fresh process and empty data (emptyDir)',
    async () => {
      const victim = PODS[1] as string;
      await waitReady(PODS);
      const before = await getPod(victim);
      const myIdBefore = await command(victim, 'CLUSTER', 'MYID');
      const dataDir = world.kubelet.pod(NS, victim)?.volumeDir('data') as string;
      expect(existsSync(`${dataDir}/nodes.conf`)).toBe(true);
      const res = await world.api.request('DELETE', `/api/v1/namespaces/${NS}/pods/${victim}`);
      expect(res.status).toBe(200);
      await waitFor(
        'pod re-created',
        async () => {
          const p = await getPod(victim);
          return p !== undefined && p.metadata.uid !== before?.metadata.uid && isReady(p);
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(existsSync(dataDir)).toBe(false);
      // A new node ID: the old nodes.conf went with the old pod.
      const myIdAfter = await command(victim, 'CLUSTER', 'MYID');
      expect(myIdAfter).not.toBe(myIdBefore);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'an eviction is refused (429) while another pod of the PDB is not ready, and allowed once all are ready',
    async () => {
      const [first, second] = PODS as [string, string, string];
      await waitReady(PODS);
      await waitFor('PDB allows one disruption', async () => (await pdbAllows()) === 1, { timeoutMs: 30_000 });
      world.kubelet.freeze(NS, second);
      try {
        await waitFor(`${second} not ready`, async () => !isReady(await getPod(second)), { timeoutMs: 30_000 });
        await waitFor('PDB allows none', async () => (await pdbAllows()) === 0, { timeoutMs: 30_000 });
        const refused = await evict(first);
        expect(refused.status, refused.body).toBe(429);
        expect(refused.body).toContain('disruption budget');
      } finally {
        world.kubelet.freeze(NS, second, false);
      }
      await waitReady(PODS);
      await waitFor('PDB allows one disruption again', async () => (await pdbAllows()) === 1, { timeoutMs: 30_000 });
      const uid = (await getPod(first))?.metadata.uid;
      const allowed = await evict(first);
      expect(allowed.status, allowed.body).toBe(201);
      await waitFor(
        `${first} replaced`,
        async () => {
          const p = await getPod(first);
          return p !== undefined && p.metadata.uid !== uid && isReady(p);
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a ConfigMap change reaches the pods' files after the kubelet's delay, without a restart",
    async () => {
      await waitReady(PODS);
      const pod = world.kubelet.pod(NS, PODS[2] as string);
      const file = `${pod?.volumeDir('config') ?? ''}/valkey.conf`;
      const pid = pod?.pid;
      const before = await readFile(file, 'utf8');
      expect(before).toContain('maxmemory 1500mb');
      const configMap = objects.find((o) => o.kind === 'ConfigMap') as { data: Record<string, string> };
      const changed = {
        ...configMap,
        data: { ...configMap.data, 'valkey.conf': (configMap.data['valkey.conf'] ?? '').replace('maxmemory 1500mb', 'maxmemory 1200mb') },
      };
      const t0 = Date.now();
      await world.apply([changed]);
      await waitFor('projected valkey.conf', async () => (await readFile(file, 'utf8')).includes('maxmemory 1200mb'), {
        timeoutMs: 15_000,
        intervalMs: 50,
      });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(CONFIG_SYNC_DELAY_MS);
      expect(world.kubelet.pod(NS, PODS[2] as string)?.pid).toBe(pid);
    },
    TEST_TIMEOUT_MS,
  );

  it('OnDelete: a new image changes no pod until one is deleted; an 8.0.1 binary then exits at start-up and its log reaches the status', async () => {
    await waitReady(PODS);
    const before = await Promise.all(PODS.map(getPod));
    const sts = objects.find((o) => o.kind === 'StatefulSet') as {
      spec: { template: { spec: { containers: Record<string, unknown>[] } } };
    };
    const [container] = sts.spec.template.spec.containers;
    // terminationMessagePolicy is not rendered yet (issue 12 adds it); the stand-in honours it.
    const withOldImage = structuredClone(sts);
    withOldImage.spec.template.spec.containers[0] = {
      ...container,
      image: 'valkey/valkey:8.0.1',
      terminationMessagePolicy: 'FallbackToLogsOnError',
    };
    await world.apply([withOldImage]);
    const revisions = async () => {
      const res = await world.api.request('GET', `/apis/apps/v1/namespaces/${NS}/statefulsets/${NAME}-0`);
      return (JSON.parse(res.body) as { status: { currentRevision?: string; updateRevision?: string } }).status;
    };
    await waitFor(
      'a new update revision',
      async () => {
        const r = await revisions();
        return r.updateRevision !== undefined && r.updateRevision !== r.currentRevision;
      },
      { timeoutMs: 30_000 },
    );
    const { updateRevision } = await revisions();
    // With RollingUpdate the controller would already have deleted a pod in the sync that set
    // the new revision; OnDelete leaves all three as they were.
    for (const [i, p] of (await Promise.all(PODS.map(getPod))).entries()) {
      expect(p?.spec.containers[0]?.image).toBe('valkey/valkey:9.0.1');
      expect(p?.metadata.deletionTimestamp).toBeUndefined();
      expect(p?.metadata.uid).toBe(before[i]?.metadata.uid);
    }

    const victim = PODS[2] as string;
    await world.api.request('DELETE', `/api/v1/namespaces/${NS}/pods/${victim}`);
    let last: PodObject | undefined;
    await waitFor(
      'the 8.0.1 container terminated',
      async () => {
        last = await getPod(victim);
        const s = last?.status?.containerStatuses?.[0];
        return last?.spec.containers[0]?.image === 'valkey/valkey:8.0.1' && (s?.state.terminated ?? s?.lastState.terminated) !== undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(last?.metadata.labels?.['controller-revision-hash']).toBe(updateRevision);
    const status = last?.status?.containerStatuses?.[0];
    const terminated = status?.state.terminated ?? status?.lastState.terminated;
    expect(terminated?.exitCode).toBe(1);
    // The message is the log's tail: the server's own words (the path is the stand-in's host path).
    // 8.0.1 stops at the rendered valkey.conf's 9.0 line, before it reads users.acl.
    expect(terminated?.message).toMatch(/\*\*\* FATAL CONFIG FILE ERROR \(Version 8\.0\.1\) \*\*\*/);
    expect(terminated?.message).toMatch(/'shutdown-on-sigterm failover'\nargument\(s\) must be one of the following/);
    expect(isReady(last)).toBe(false);
    // The other two keep serving.
    for (const name of PODS.slice(0, 2)) expect(await ping({ host: world.kubelet.pod(NS, name)?.ip as string, port: 6379 })).toBe('+PONG');
  });
});
