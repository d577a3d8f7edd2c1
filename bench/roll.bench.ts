// npx tsx bench/roll.bench.ts: a failover-first roll of a 3-shard x 2-replica cluster in the kube
// world (real kube-apiserver, etcd and kube-controller-manager; real Valkey pods from
// ../shared/valkey), the controller in-process, a client writing throughout. Prints the total time,
// failovers, the longest write pause per shard and the acknowledged writes lost; then the latency
// of a live setting (ConfigMap written -> live on every node) and of a users.acl change (the new
// file in the pod -> loaded on every node). A benchmark, not a test: run it by hand.
import { readFile } from 'node:fs/promises';
import { jsonLogger } from '../src/controller/runtime/log.js';
import { controllerMetrics } from '../src/controller/runtime/metrics.js';
import { ensureTools } from '../test/support/apiserver.js';
import { sha256 } from '../test/support/hash.js';
import { waitFor } from '../test/support/process.js';
import { rawCommand } from '../test/support/servers.js';
import { cluster, role } from '../test/support/objects.js';
import { prepareWorld } from '../test/support/controller/api-world.js';
import {
  appUserAcl,
  appWriter,
  maxmemoryOf,
  renderClusterObjects,
  startDay2World,
  startKubeController,
} from '../test/support/controller/day2-world.js';
import { figureLog } from './figures.js';

const report = figureLog('roll');

const NS = 'bench';
const NAME = 'sessions';
const SHARDS = 3;
const REPLICAS = 2;
const CONTROLLER_PASSWORD = 'controller-password-for-bench';
const REPLICATION_PASSWORD = 'replication-password-for-bench';
const APP = 'app-password';
const SYNC_DELAY_MS = 3_000;
type Obj = {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: { template: { spec: { containers: { image: string }[] } } };
};

await ensureTools();
const build = { build: '9.1.2' as const };
const world = await startDay2World({
  images: { 'valkey/valkey:9.0.1': build, 'valkey/valkey:9.0.2': build },
  configSyncDelayMs: SYNC_DELAY_MS,
  namespace: NS,
  replicationPassword: REPLICATION_PASSWORD,
});
try {
  const prepared = await prepareWorld(world.api);
  const objects = renderClusterObjects<Obj>({ replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD }, [
    role('reader'),
    cluster(NAME, { shards: SHARDS, replicasPerShard: REPLICAS }, NS),
  ]);
  const cm = objects.find((o) => o.kind === 'ConfigMap') as Obj;
  cm.data = { ...cm.data, 'users.acl': `${cm.data?.['users.acl']}${appUserAcl([APP])}` };
  await world.apply([...(objects as unknown[]), cluster(NAME, { shards: SHARDS, replicasPerShard: REPLICAS }, NS)]);

  const metrics = controllerMetrics();
  const app = await startKubeController({
    controllerKubeconfig: prepared.controllerKubeconfig,
    namespace: NS,
    controllerPassword: CONTROLLER_PASSWORD,
    log: jsonLogger({ level: 'error' }),
    metrics,
  });
  const get = async <T>(path: string): Promise<T> => JSON.parse((await world.api.request('GET', path)).body) as T;
  type PodObj = { metadata: { name: string }; spec: { containers: { image: string }[] }; status?: { podIP?: string } };
  const pods = async () =>
    (await get<{ items: PodObj[] }>(`/api/v1/namespaces/${NS}/pods?labelSelector=valkey.gomomento.com/cluster=${NAME}`)).items;
  type Status = { status?: { state?: string; conditions?: { type: string; status: string }[] } };
  const settled = async () => {
    const c = await get<Status>(`/apis/valkey.gomomento.com/v1alpha1/namespaces/${NS}/valkeyclusters/${NAME}`);
    return c.status?.state === 'Active' && c.status.conditions?.find((x) => x.type === 'RollInProgress')?.status !== 'True';
  };
  await waitFor('Active', settled, { timeoutMs: 300_000, intervalMs: 250 });
  const counter = async (name: string) =>
    ((await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name)?.values ?? []).reduce((n, v) => n + Number(v.value), 0);

  // The roll.
  const writer = appWriter({
    podIps: async () => (await pods()).flatMap((p) => (p.status?.podIP ? [p.status.podIP] : [])),
    controllerPassword: CONTROLLER_PASSWORD,
    appPassword: APP,
    shards: SHARDS,
    prefix: 'app:bench',
  });
  writer.start();
  await new Promise((r) => setTimeout(r, 2000));
  const t0 = performance.now();
  const sets = objects.filter((o) => o.kind === 'StatefulSet');
  for (const s of sets) for (const c of s.spec?.template.spec.containers ?? []) c.image = 'valkey/valkey:9.0.2';
  await world.apply(sets);
  await waitFor(
    'rolled',
    async () => (await pods()).every((p) => p.spec.containers[0]?.image === 'valkey/valkey:9.0.2') && (await settled()),
    { timeoutMs: 900_000, intervalMs: 250 },
  );
  const total = (performance.now() - t0) / 1000;
  const r = await writer.stop();
  report.line(
    `roll ${SHARDS} shards x ${REPLICAS} replicas: ${total.toFixed(1)} s, ${await counter('valkey_status_sync_failovers_total')} failovers, ${await counter('valkey_status_sync_roll_steps_total')} roll steps`,
  );
  report.line(
    `  writes: ${r.acknowledged} acknowledged, ${r.lost} lost; longest pause per shard: ${r.longestPauseMs.map((ms) => `${ms} ms`).join(', ')}`,
  );

  // Live apply latency.
  const ips = (await pods()).map((p) => p.status?.podIP as string);
  const firstPod = (await pods())[0]?.metadata.name as string;
  const file = (name: string) => `${world.kubelet.pod(NS, firstPod)?.volumeDir('config') ?? ''}/${name}`;
  cm.data = { ...cm.data, 'valkey.conf': (cm.data?.['valkey.conf'] ?? '').replace('maxmemory 1500mb', 'maxmemory 1200mb') };
  const t1 = performance.now();
  await world.apply([cm]);
  const maxmemory = (ip: string) => maxmemoryOf(ip, CONTROLLER_PASSWORD);
  await waitFor('maxmemory live', async () => (await Promise.all(ips.map(maxmemory))).every((x) => x.includes('1258291200')), {
    timeoutMs: 60_000,
    intervalMs: 20,
  });
  const live = performance.now() - t1;
  await waitFor('file', async () => (await readFile(file('valkey.conf'), 'utf8')).includes('1200mb'), {
    timeoutMs: 60_000,
    intervalMs: 20,
  });
  const fileLanded = performance.now() - t1;
  report.line(
    `live setting (maxmemory): live on all ${ips.length} nodes ${live.toFixed(0)} ms after the ConfigMap write; the file landed in the pod after ${fileLanded.toFixed(0)} ms (the controller applies from the API object, not the file)`,
  );

  cm.data = { ...cm.data, 'users.acl': (cm.data?.['users.acl'] ?? '').replace(`#${sha256(APP)}`, `#${sha256(APP)} #${sha256('new')}`) };
  const t2 = performance.now();
  await world.apply([cm]);
  await waitFor('acl file', async () => (await readFile(file('users.acl'), 'utf8')).includes(sha256('new')), {
    timeoutMs: 60_000,
    intervalMs: 20,
  });
  const aclFile = performance.now();
  await waitFor(
    'acl live',
    async () =>
      (await Promise.all(ips.map((ip) => rawCommand(6379, [['AUTH', 'app', 'new']], { host: ip })))).every((x) => x.startsWith('+OK')),
    { timeoutMs: 60_000, intervalMs: 20 },
  );
  const aclLive = performance.now();
  report.line(
    `users.acl: file landed ${(aclFile - t2).toFixed(0)} ms after the ConfigMap write; loaded on all nodes ${(aclLive - aclFile).toFixed(0)} ms after that (${(aclLive - t2).toFixed(0)} ms in all)`,
  );
  await app.stop();
} finally {
  await world.stop();
}
