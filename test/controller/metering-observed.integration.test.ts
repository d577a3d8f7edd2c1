// Usage metering's Observed source on real Valkey 9.1.2 pods (issue 36): a cluster whose rendered
// objects carry neither resources.memory nor maxmemory is metered from the highest used_memory_peak
// its nodes report, with the 100 MB floor. The kube world's pods run the rendered files; the
// controller runs in-process as its ServiceAccount with metering and the per-pod metrics on. The
// record starts at the floor (a fresh node's peak is a few MB), and once an application has written
// some 160 MiB through the cluster it follows the nodes' peak, as INFO memory says it, up to a whole
// MiB, in a new segment; every value written is read back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METERING_FLOOR_BYTES, type ValkeyMeteringRecord } from '../../src/api/index.js';
import type { App } from '../../src/controller/app.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { ensureTools } from '../support/apiserver.js';
import { clusterClient } from '../support/client-workload.js';
import { CONTROLLER_NAMESPACE } from '../support/controller/api-world.js';
import { apiJson, clusterPods, stopControllerAndWorld, waitClusterActive } from '../support/controller/day2-world.js';
import {
  controllerCommand,
  startWorkloadController,
  startWorkloadWorld,
  workloadClusterObjects,
  type RenderedObject,
} from '../support/controller/workload-world.js';
import type { KubeWorld } from '../support/kube-world.js';
import { waitFor } from '../support/process.js';

const NS = 'metered';
const NAME = 'unsized';
const PASSWORDS = {
  replication: 'replication-password-for-metering',
  controller: 'controller-password-for-metering',
  app: 'app-pw-metering',
};
const RECORDS = `/apis/valkey.gomomento.com/v1alpha1/namespaces/${CONTROLLER_NAMESPACE}/valkeymeteringrecords`;
const MIB = 2 ** 20;
const VALUES = 160;

interface PodObject {
  metadata: { name: string };
  status?: { podIP?: string };
}

/** The rendered objects without any memory figure: no container memory, no maxmemory line. */
function unsized(objects: RenderedObject[]): RenderedObject[] {
  return objects.map((o) => {
    if (o.kind === 'StatefulSet') {
      const copy = structuredClone(o) as RenderedObject & {
        spec: {
          template: { spec: { containers: { resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }[] } };
        };
      };
      for (const c of copy.spec.template.spec.containers) {
        delete c.resources?.requests?.memory;
        delete c.resources?.limits?.memory;
      }
      return copy;
    }
    if (o.kind === 'ConfigMap' && o.data?.['valkey.conf'] !== undefined)
      return { ...o, data: { ...o.data, 'valkey.conf': o.data['valkey.conf'].replace(/^maxmemory\s.*\n/m, '') } };
    return o;
  });
}

describe('usage metering from the observed peak, on Valkey 9.1.2 pods', () => {
  let world: KubeWorld;
  let app: App | undefined;
  const logs: string[] = [];

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    const started = await startWorkloadWorld({ namespace: NS, replicationPassword: PASSWORDS.replication });
    world = started.world;
    const objects = unsized(workloadClusterObjects(PASSWORDS, { name: NAME, namespace: NS }, { shards: 1, replicasPerShard: 1 }));
    const conf = objects.find((o) => o.kind === 'ConfigMap' && o.data?.['valkey.conf'] !== undefined)?.data?.['valkey.conf'] ?? '';
    expect(conf).not.toMatch(/^maxmemory\s/m);
    expect(JSON.stringify(objects.filter((o) => o.kind === 'StatefulSet'))).not.toContain('"memory"');
    await world.apply(objects);
    app = await startWorkloadController({
      controllerKubeconfig: started.prepared.controllerKubeconfig,
      namespace: NS,
      controllerPassword: PASSWORDS.controller,
      resyncMs: 1_000,
      valkeyMetricsMs: 1_000,
      metering: { namespace: CONTROLLER_NAMESPACE, sampleMs: 1_000, checkpointMs: 1_000 },
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics: controllerMetrics(),
    });
    await waitClusterActive(world, NS, NAME);
  }, 300_000);

  afterAll(async () => {
    await stopControllerAndWorld(app, logs, world);
  }, 60_000);

  const record = async (): Promise<ValkeyMeteringRecord | undefined> =>
    (await apiJson<{ items: ValkeyMeteringRecord[] }>(world, 'GET', RECORDS)).items.find((r) => r.spec.cluster.name === NAME);

  /** The highest used_memory_peak the nodes report now, as INFO memory says it. */
  const nodesPeak = async (ips: readonly string[]): Promise<number> => {
    let peak = 0;
    for (const ip of ips) {
      const info = await controllerCommand(ip, PASSWORDS.controller, 'INFO', 'memory');
      peak = Math.max(peak, Number(/^used_memory_peak:(\d+)\r?$/m.exec(info)?.[1]));
    }
    return peak;
  };

  it('meters the floor while the peak is below it, then the nodes’ peak; nothing written is lost', async () => {
    await waitFor('a record from the Observed source', async () => (await record())?.status?.memory?.source === 'Observed', {
      timeoutMs: 30_000,
      intervalMs: 500,
    });
    const ips = (await clusterPods<PodObject>(world, NS, NAME)).map((p) => p.status?.podIP).filter((ip): ip is string => !!ip);
    expect(ips).toHaveLength(2);
    const before = await record();
    expect(await nodesPeak(ips)).toBeLessThan(METERING_FLOOR_BYTES);
    expect(before?.status?.memory).toEqual({
      source: 'Observed',
      podBytes: METERING_FLOOR_BYTES,
      reason: 'no resources.memory and no maxmemory; the highest used_memory_peak of the nodes; below the 100 MB floor, counted as 100 MB',
    });

    const client = clusterClient({ host: ips[0] as string, port: 6379 }, PASSWORDS.app);
    const value = (i: number) => `${String(i).padStart(8, '0')}${'v'.repeat(MIB - 8)}`;
    let lost = 0;
    try {
      for (let i = 0; i < VALUES; i++) await client.set(`key:big:${i}`, value(i));
      for (let i = 0; i < VALUES; i++) if ((await client.get(`key:big:${i}`)) !== value(i)) lost++;
    } finally {
      client.disconnect();
    }
    console.log(`metering observed: ${VALUES} values of 1 MiB written, ${VALUES} read back, ${lost} lost`);
    expect(lost).toBe(0);

    let expected = 0;
    await waitFor(
      "the record at the nodes' peak",
      async () => {
        expected = Math.ceil((await nodesPeak(ips)) / MIB) * MIB;
        return (await record())?.status?.memory?.podBytes === expected;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    const after = await record();
    console.log(
      `metering observed: nodes' peak ${expected} B (${expected / MIB} MiB) metered per pod; segments ${after?.status?.segments?.length}`,
    );
    expect(expected).toBeGreaterThan(VALUES * MIB);
    expect(after?.status?.memory).toEqual({
      source: 'Observed',
      podBytes: expected,
      reason: 'no resources.memory and no maxmemory; the highest used_memory_peak of the nodes',
    });
    const segments = after?.status?.segments ?? [];
    expect(segments.at(-1)).toMatchObject({ pods: 2, memory: { source: 'Observed', podBytes: expected } });
    expect(segments.some((s) => s.memory.source === 'Observed' && s.memory.podBytes === METERING_FLOOR_BYTES)).toBe(true);
    expect(BigInt(after?.status?.byteSeconds ?? '0')).toBeGreaterThan(BigInt(before?.status?.byteSeconds ?? '0'));
  });
});
