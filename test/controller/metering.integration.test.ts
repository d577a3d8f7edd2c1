// Usage metering on a real kube-apiserver: a cluster created at 3 shards, scaled to 5, its memory
// doubled (a config edit, as a re-render applies it), the controller stopped for longer than three
// sample periods and started again (a new process: what it knows comes from the record), then the
// cluster deleted. The record's byte-seconds must match the integral of the shape over the times
// this test changed it, within one sample period per change; it outlives the cluster, a delete
// waits on its finalizer, and the release annotation lets it go. The API server itself refuses a
// write that lowers the figure.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubeClientFromConfig } from '../../src/controller/kube/client.js';
import {
  METERING_CLUSTER_FINALIZER,
  METERING_RECORD_FINALIZER,
  METERING_RELEASE_ANNOTATION,
  type ValkeyMeteringRecord,
} from '../../src/api/index.js';
import {
  apiCall,
  applyStatefulSet,
  CONTROLLER_NAMESPACE,
  controllerMay,
  createCluster,
  EndpointBook,
  inNamespace,
  patchClusterSpec,
  startController,
  useKubeWorld,
  waitFor,
  type TestController,
} from '../support/controller/world.js';
import { REPO_ROOT } from '../support/paths.js';

const SAMPLE_MS = 1_000;
const GI = 2 ** 30;
const RECORDS = `/apis/valkey.gomomento.com/v1alpha1/namespaces/${CONTROLLER_NAMESPACE}/valkeymeteringrecords`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sec = (ms: number) => Math.floor(ms / 1000);

describe('usage metering on a real API server', () => {
  const suite = useKubeWorld();

  it('counts a cluster through scaling, a memory change, a controller restart and deletion; the record survives until released', async () => {
    const t = await inNamespace(suite, 'team-a');
    const api = t.api;
    const c = { ns: t.ns, name: 'cache', shards: 3, replicasPerShard: 1 };
    const setsPath = `/apis/apps/v1/namespaces/${t.ns}/statefulsets`;
    const memory = async (shards: number, q: string) => {
      for (let s = 0; s < shards; s++)
        await apiCall(
          api,
          'PATCH',
          `${setsPath}/cache-${s}`,
          {
            spec: {
              template: {
                spec: {
                  containers: [
                    { name: 'valkey', image: 'valkey/valkey:9.0.1', resources: { requests: { memory: q }, limits: { memory: q } } },
                  ],
                },
              },
            },
          },
          'application/merge-patch+json',
        );
    };
    await createCluster(api, c);
    await memory(3, '1Gi');
    const start = (): Promise<TestController> =>
      startController({
        world: t.world,
        book: new EndpointBook(),
        namespace: t.ns,
        metering: { namespace: CONTROLLER_NAMESPACE, sampleMs: SAMPLE_MS, checkpointMs: SAMPLE_MS },
      });
    let controller = await start();
    const records = async () => (await apiCall<{ items: ValkeyMeteringRecord[] }>(api, 'GET', RECORDS)).items;
    try {
      await waitFor('a metering record', async () => (await records()).length === 1, { timeoutMs: 30_000 });
      await waitFor(
        'the metering finalizer on the ValkeyCluster',
        async () =>
          (
            await apiCall<{ metadata: { finalizers?: string[] } }>(
              api,
              'GET',
              `/apis/valkey.gomomento.com/v1alpha1/namespaces/${t.ns}/valkeyclusters/cache`,
            )
          ).metadata.finalizers?.includes(METERING_CLUSTER_FINALIZER) ?? false,
        { timeoutMs: 30_000 },
      );
      // The controller's ServiceAccount may patch a ValkeyCluster for that finalizer and nothing else (deploy/controller/admission-policy.yaml).
      const kc = new KubeConfig();
      kc.loadFromFile(t.world.controllerKubeconfig);
      const asController = await kubeClientFromConfig(kc);
      const clusterPath = `/apis/valkey.gomomento.com/v1alpha1/namespaces/${t.ns}/valkeyclusters/cache`;
      for (const body of [{ spec: { shards: 4 } }, { metadata: { annotations: { x: 'y' } } }])
        await expect(asController.request('PATCH', clusterPath, { body, contentType: 'application/merge-patch+json' })).rejects.toThrow(
          /may change only metadata.finalizers/,
        );
      await sleep(3_000);
      const scaledAt = Date.now();
      await patchClusterSpec(api, t.ns, 'cache', { shards: 5 });
      for (const s of [3, 4]) await applyStatefulSet(api, { ...c, shards: 5 }, s);
      await memory(5, '1Gi');
      await sleep(3_000);
      const doubledAt = Date.now();
      await memory(5, '2Gi');
      await sleep(3_000);
      await controller.stop();
      const stoppedAt = Date.now();
      await sleep(5 * SAMPLE_MS);
      controller = await start();
      await sleep(3_000);
      await apiCall(api, 'DELETE', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${t.ns}/valkeyclusters/cache`);
      // The finalizer holds the cluster until its record is closed at the deletionTimestamp.
      await waitFor(
        'the ValkeyCluster gone',
        async () =>
          (await api.request('GET', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${t.ns}/valkeyclusters/cache`)).status === 404,
        { timeoutMs: 30_000 },
      );
      const [record] = await records();
      const status = record?.status;
      expect(record?.spec).toMatchObject({ cluster: { namespace: t.ns, name: 'cache' } });
      expect(status).toMatchObject({ closed: true, closedReason: 'ClusterDeleted', memory: { source: 'Reserved', podBytes: 2 * GI } });
      const from = sec(Date.parse(status?.from ?? ''));
      const to = sec(Date.parse(status?.lastSampleAt ?? ''));
      // The integral of the shape as this test changed it: 6 pods × 1Gi, then 10 × 1Gi, then 10 × 2Gi.
      const expected = 6 * GI * (sec(scaledAt) - from) + 10 * GI * (sec(doubledAt) - sec(scaledAt)) + 20 * GI * (to - sec(doubledAt));
      const actual = Number(status?.byteSeconds);
      // Each change is seen at the next sample: one sample period (and a second's rounding) at the rate it changed by.
      const tolerance = (SAMPLE_MS / 1000 + 1) * (4 * GI + 10 * GI);
      process.stdout.write(
        `metering: ${status?.gbHours} GB-hours, ${actual} byte-seconds against ${expected} expected (off by ${actual - expected}, ` +
          `${((actual - expected) / (20 * GI)).toFixed(2)} s at the final rate); segments ${JSON.stringify(status?.segments.map((s) => [s.pods, s.memory.podBytes / GI, s.from, s.to]))}; gaps ${JSON.stringify(status?.gaps)}\n`,
      );
      expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance);
      // The two new StatefulSets are applied one after the other: a sample between them sees 4 shards,
      // and counting them is right (that is what ran). The rest of the shape is exact.
      expect(status?.segments.map((s) => [s.shards, s.pods, s.memory.podBytes / GI]).filter(([shards]) => shards !== 4)).toEqual([
        [3, 6, 1],
        [5, 10, 1],
        [5, 10, 2],
      ]);
      // The stop was longer than the checkpoint and two sample periods: listed as a gap (counted from what was provisioned).
      expect(status?.gaps).toHaveLength(1);
      expect(Math.abs(Date.parse(status?.gaps?.[0]?.from ?? '') - stoppedAt)).toBeLessThanOrEqual(2 * SAMPLE_MS + 1000);

      // The API server refuses a lower figure, whoever writes it, and a change to a closed record.
      const lower = await api.request(
        'PATCH',
        `${RECORDS}/${record?.metadata.name}/status`,
        { status: { ...status, byteSeconds: '1' } },
        { 'Content-Type': 'application/merge-patch+json' },
      );
      expect(lower.status).toBe(422);
      expect(lower.body).toContain('never goes down');

      // Tenants and the controller's own grants: nobody but the controller writes records.
      expect(
        await controllerMay(api, 'patch', 'valkey.gomomento.com', 'valkeymeteringrecords', {
          namespace: CONTROLLER_NAMESPACE,
          subresource: 'status',
        }),
      ).toBe(true);
      expect(await controllerMay(api, 'create', 'valkey.gomomento.com', 'valkeymeteringrecords', { namespace: t.ns })).toBe(false);

      // The export docs/metering.md gives: kubectl's JSON through deploy/metering/metering-csv.mjs.
      const json = await api.kubectl(['get', 'valkeymeteringrecords', '-n', CONTROLLER_NAMESPACE, '-o', 'json']);
      const csv = execFileSync(process.execPath, [join(REPO_ROOT, 'deploy/metering/metering-csv.mjs')], {
        input: json.stdout,
        encoding: 'utf8',
      });
      expect(csv.split('\n')[1]).toBe(`${record?.spec.month},${t.ns},${status?.gbHours},${status?.byteSeconds},1,closed`);

      // A delete waits on the finalizer; the release annotation lets the controller drop it.
      const path = `${RECORDS}/${record?.metadata.name}`;
      await apiCall(api, 'DELETE', path);
      await sleep(3 * SAMPLE_MS);
      const held = await apiCall<ValkeyMeteringRecord>(api, 'GET', path);
      expect(held.metadata.finalizers).toEqual([METERING_RECORD_FINALIZER]);
      expect(held.metadata.deletionTimestamp).toBeDefined();
      await apiCall(
        api,
        'PATCH',
        path,
        { metadata: { annotations: { [METERING_RELEASE_ANNOTATION]: 'true' } } },
        'application/merge-patch+json',
      );
      await waitFor('the released record gone', async () => (await api.request('GET', path)).status === 404, { timeoutMs: 30_000 });
    } finally {
      await controller.stop();
    }
  }, 120_000);
});
