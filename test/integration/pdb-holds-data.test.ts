// A drain never evicts a shard's last copy (issue 31, "available means holds the data"), on a real
// kube-apiserver and kube-controller-manager (its disruption controller keeps the PDB's status):
// a rendered 1-shard x 1-replica cluster whose pods are Ready only when the rendered readiness
// probe says so (the stand-in kubelet runs probe.sh itself: readiness 'script'). The shard is
// formed by hand as the controller would: slots and keys on pod 0, then pod 1 attached while its
// copy is still syncing (the primary's snapshot slowed down). While pod 1 syncs, an Eviction of
// pod 0 (the only copy) is refused by the shard's PDB; once pod 1 holds the copy, it is allowed.
// With a PING readiness probe (before issue 31) pod 1 was Ready at once and the eviction passed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_USERNAMES } from '../../src/api/index.js';
import { ensureTools } from '../support/apiserver.js';
import { renderClusterObjects, startDay2World } from '../support/controller/day2-world.js';
import { run } from '../support/exec.js';
import type { KubeWorld } from '../support/kube-world.js';
import { cluster } from '../support/objects.js';
import { waitFor } from '../support/process.js';
import { valkeyCliPath } from '../support/valkey.js';

const NS = 'team-a';
const NAME = 'cache';
const [PRIMARY, REPLICA] = [`${NAME}-0-0`, `${NAME}-0-1`];
const passwords = { replication: 'replication-password-for-pdb', controller: 'controller-password-for-pdb' };
const KEYS = 20_000;
const TEST_TIMEOUT_MS = 240_000;

interface PodObject {
  metadata: { uid: string; deletionTimestamp?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

describe('kube world: the shard PDB refuses to evict the last in-sync pod while its partner syncs', () => {
  let world: KubeWorld;

  const getPod = async (name: string): Promise<PodObject | undefined> => {
    const res = await world.api.request('GET', `/api/v1/namespaces/${NS}/pods/${name}`);
    return res.status === 200 ? (JSON.parse(res.body) as PodObject) : undefined;
  };
  const isReady = (p: PodObject | undefined): boolean =>
    p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  const pdb = async () => {
    const res = await world.api.request('GET', `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/${NAME}-0`);
    return (JSON.parse(res.body) as { status?: { disruptionsAllowed?: number; currentHealthy?: number } }).status;
  };
  const evict = (name: string) =>
    world.api.request('POST', `/api/v1/namespaces/${NS}/pods/${name}/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name, namespace: NS },
    });
  const ipOf = (pod: string): string => {
    const ip = world.kubelet.pod(NS, pod)?.ip;
    if (ip === undefined) throw new Error(`pod ${pod} not running`);
    return ip;
  };
  /** valkey-cli to a pod, as the controller user (or the replication user, the one that may write keys). */
  const cli = async (pod: string, args: readonly string[], o: { as?: 'controller' | 'replication'; input?: string } = {}) => {
    const as = o.as ?? 'controller';
    const r = await run(
      valkeyCliPath(),
      ['-h', ipOf(pod), '-p', '6379', '--no-auth-warning', '--user', SYSTEM_USERNAMES[as], '--pass', passwords[as], ...args],
      o.input === undefined ? {} : { input: o.input },
    );
    return (r.stdout + r.stderr).trim();
  };
  const syncing = (info: string): boolean => /master_sync_in_progress:1/.test(info) || /master_link_status:down/.test(info);

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    world = await startDay2World({
      images: { 'valkey/valkey:9.0.1': { build: '9.1.2' } },
      configSyncDelayMs: 1_000,
      namespace: NS,
      replicationPassword: passwords.replication,
      readiness: 'script',
    });
    await world.apply(renderClusterObjects(passwords, [cluster(NAME, { shards: 1, replicasPerShard: 1 }, NS)]));
  }, 120_000);

  afterAll(async () => {
    await world?.stop();
  }, TEST_TIMEOUT_MS);

  it(
    'empty pods are not Ready; a syncing replica does not count, so evicting the primary is refused; once in sync it is allowed',
    async () => {
      await waitFor(
        'both pods answer',
        async () => (await cli(PRIMARY, ['PING'])) === 'PONG' && (await cli(REPLICA, ['PING'])) === 'PONG',
        {
          timeoutMs: 60_000,
          intervalMs: 200,
        },
      );
      // A cluster not formed yet: both pods are empty primaries, alive and not Ready, and say why.
      await waitFor(
        'the probe ran on both pods',
        async () => [PRIMARY, REPLICA].every((p) => world.kubelet.pod(NS, p)?.readinessOutput !== undefined),
        {
          timeoutMs: 30_000,
          intervalMs: 200,
        },
      );
      for (const p of [PRIMARY, REPLICA]) {
        expect(world.kubelet.pod(NS, p)?.readinessOutput).toContain('a primary that owns no slots');
        expect(isReady(await getPod(p))).toBe(false);
      }

      // Pod 0 serves every slot and holds the keys: it alone is Ready, the PDB counts one.
      expect(await cli(PRIMARY, ['CLUSTER', 'ADDSLOTSRANGE', '0', '16383'])).toBe('OK');
      await waitFor('pod 0 serves', async () => (await cli(PRIMARY, ['CLUSTER', 'INFO'])).includes('cluster_state:ok'), {
        timeoutMs: 30_000,
      });
      const sets = Array.from({ length: KEYS }, (_, i) => `SET k:${String(i)} ${'v'.repeat(32)}\n`).join('');
      await cli(PRIMARY, [], { as: 'replication', input: sets });
      expect(await cli(PRIMARY, ['INFO', 'keyspace'])).toContain(`keys=${String(KEYS)}`);
      await waitFor(`${PRIMARY} Ready`, async () => isReady(await getPod(PRIMARY)), { timeoutMs: 30_000, intervalMs: 200 });
      await waitFor('the PDB counts one healthy pod', async () => (await pdb())?.currentHealthy === 1, {
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      expect((await pdb())?.disruptionsAllowed).toBe(0);

      // Pod 1 is attached as pod 0's replica, its copy slowed down (0.5 ms a key: about 10 s).
      expect(await cli(PRIMARY, ['CONFIG', 'SET', 'rdb-key-save-delay', '500'])).toBe('OK');
      const primaryId = await cli(PRIMARY, ['CLUSTER', 'MYID']);
      expect(await cli(REPLICA, ['CLUSTER', 'MEET', ipOf(PRIMARY), '6379', '16379'])).toBe('OK');
      await waitFor('pod 1 knows pod 0', async () => (await cli(REPLICA, ['CLUSTER', 'NODES'])).includes(primaryId), { timeoutMs: 20_000 });
      expect(await cli(REPLICA, ['CLUSTER', 'REPLICATE', primaryId])).toBe('OK');
      await waitFor('pod 1 syncing', async () => syncing(await cli(REPLICA, ['INFO', 'replication'])), {
        timeoutMs: 10_000,
        intervalMs: 100,
      });

      // While pod 1 syncs (INFO says so before and after), the only copy may not be evicted.
      const before = await cli(REPLICA, ['INFO', 'replication']);
      const refused = await evict(PRIMARY);
      const after = await cli(REPLICA, ['INFO', 'replication']);
      expect(syncing(before) && syncing(after), after).toBe(true);
      expect(isReady(await getPod(REPLICA))).toBe(false);
      expect(refused.status, refused.body).toBe(429);
      expect(refused.body).toContain('disruption budget');
      const said = world.kubelet.pod(NS, REPLICA)?.readinessOutput ?? '';
      process.stdout.write(`[pdb] eviction of ${PRIMARY} refused while ${REPLICA} syncs; ${REPLICA}'s probe: ${said}\n`);
      expect(said).toMatch(/a replica of [\d.]+:6379 whose link is \w+ \(not connected and in sync\)/);
      expect((await getPod(PRIMARY))?.metadata.deletionTimestamp).toBeUndefined();

      // Once pod 1 holds the copy it is Ready, the PDB allows one disruption, and the eviction goes through.
      await waitFor('pod 1 in sync', async () => /master_link_status:up/.test(await cli(REPLICA, ['INFO', 'replication'])), {
        timeoutMs: 120_000,
        intervalMs: 200,
      });
      expect(await cli(REPLICA, ['INFO', 'keyspace'])).toContain(`keys=${String(KEYS)}`);
      await waitFor(`${REPLICA} Ready`, async () => isReady(await getPod(REPLICA)), { timeoutMs: 30_000, intervalMs: 200 });
      await waitFor('the PDB allows one disruption', async () => (await pdb())?.disruptionsAllowed === 1, {
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      const allowed = await evict(PRIMARY);
      expect(allowed.status, allowed.body).toBe(201);
    },
    TEST_TIMEOUT_MS,
  );
});
