// npm run bench:metering: what usage metering adds to the controller for a fleet of 1,000
// clusters (3 shards × 2 pods each): the CPU time and heap of one metering pass (the production
// MeteringPass over caches holding the clusters, their StatefulSets and ConfigMaps, and the
// records) when it only samples, when every record's checkpoint is due, and the first pass that
// creates the records; the share of a core at one pass per 60 s sample; and the size of the
// records in etcd for a year. With metering off none of this runs (no informer, no pass).
//
// The API server here is an in-memory map answering the pass's requests as the real one does
// (the created object, the patched object with a new resourceVersion), so the figures are the
// controller's own CPU, not the network's; test/controller/metering.integration.test.ts runs the
// same pass against a real kube-apiserver.
import { performance } from 'node:perf_hooks';
import { MEMORY_SOURCE, meteringRecordName, type ValkeyMeteringRecord } from '../src/api/index.js';
import { advanceMetering } from '../src/controller/cluster/metering.js';
import type { KubeClient } from '../src/controller/kube/client.js';
import type { ApiObject, ConfigMap, StatefulSet } from '../src/controller/kube/types.js';
import { MeteringPass } from '../src/controller/reconcile/metering-pass.js';
import { observedPeakBytes } from '../src/controller/reconcile/metering-shape.js';
import type { StatsSample } from '../src/controller/reconcile/pod-facts.js';
import type { Clock } from '../src/controller/runtime/clock.js';
import type { Logger } from '../src/controller/runtime/log.js';
import { figureLog } from './figures.js';
import { meteringPolicy } from '../src/controller/controller.js';

const report = figureLog('metering');
const CLUSTERS = 1_000;
const SHARDS = 3;
const SAMPLE_MS = 60_000;
const gc = (globalThis as { gc?: () => void }).gc;
const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(2);

let now = Date.UTC(2026, 11, 6, 10);
const clock: Clock = { now: () => now, sleep: async () => {}, setTimer: () => () => {} };
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet } as unknown as Logger;

const clusters: ApiObject[] = [];
const sets = new Map<string, StatefulSet[]>();
const configMaps = new Map<string, ConfigMap>();
/** Each pod's last Valkey figures, as the clusters' passes keep them: the controller's observedPeak reads them. */
const podStats = new Map<string, Map<string, StatsSample>>();
for (let i = 0; i < CLUSTERS; i++) {
  const ns = `team-${i % 50}`;
  const name = `cache-${i}`;
  clusters.push({
    apiVersion: 'valkey.gomomento.com/v1alpha1',
    kind: 'ValkeyCluster',
    metadata: { name, namespace: ns, uid: `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`, resourceVersion: '1' },
  });
  const mem = { memory: '2Gi' };
  sets.set(
    `${ns}/${name}`,
    Array.from({ length: SHARDS }, (_, s) => ({
      metadata: { name: `${name}-${s}`, namespace: ns },
      spec: {
        replicas: 2,
        template: {
          spec: {
            containers: [{ name: 'valkey', resources: { requests: mem, limits: mem } }],
            volumes: [{ name: 'conf', configMap: { name } }],
          },
        },
      },
    })),
  );
  configMaps.set(`${ns}/${name}`, { metadata: { name, namespace: ns }, data: { 'valkey.conf': 'maxmemory 1500mb\nappendonly no\n' } });
  const stats = (s: number, o: number): [string, StatsSample] => [
    `${name}-${s}-${o}`,
    { atMs: 0, stats: { usedMemoryBytes: 900_000_000 + s, usedMemoryPeakBytes: 1_200_000_000 + o } },
  ];
  podStats.set(`${ns}/${name}`, new Map(Array.from({ length: SHARDS * 2 }, (_, p) => stats(p >> 1, p & 1))));
}

/** The records and cluster patches as the API server would keep them; what the pass's informer would list. */
const records = new Map<string, ValkeyMeteringRecord>();
let rv = 1;
let requests = 0;
const api: KubeClient = {
  async request<T>(method: string, path: string, init: { body?: unknown } = {}): Promise<T> {
    requests++;
    const body = structuredClone(init.body) as ValkeyMeteringRecord;
    const name = path.split('/').at(path.endsWith('/status') ? -2 : -1) as string;
    if (method === 'POST') {
      const created = { ...body, metadata: { ...body.metadata, resourceVersion: String(++rv) } };
      records.set(created.metadata.name, created);
      return created as T;
    }
    if (path.includes('/valkeyclusters/')) {
      const c = clusters.find((x) => x.metadata.name === name);
      if (c) c.metadata = { ...c.metadata, ...(body.metadata as object), resourceVersion: String(++rv) };
      return c as T;
    }
    const r = records.get(name) as ValkeyMeteringRecord;
    const next = { ...r, ...(body.status ? { status: body.status } : {}), metadata: { ...r.metadata, resourceVersion: String(++rv) } };
    records.set(name, next);
    return next as T;
  },
  watch: async () => {},
};

const pass = new MeteringPass({
  namespace: 'valkey-system',
  clusters: () => clusters,
  statefulSets: (ns, name) => sets.get(`${ns}/${name}`) ?? [],
  configMap: (ns, name) => configMaps.get(`${ns}/${name}`),
  records: () => [...records.values()],
  client: api,
  paths: {
    records: (ns) => `/apis/valkey.gomomento.com/v1alpha1/namespaces/${ns}/valkeymeteringrecords`,
    record: (ns, n) => `/apis/valkey.gomomento.com/v1alpha1/namespaces/${ns}/valkeymeteringrecords/${n}`,
    recordStatus: (ns, n) => `/apis/valkey.gomomento.com/v1alpha1/namespaces/${ns}/valkeymeteringrecords/${n}/status`,
    cluster: (ns, n) => `/apis/valkey.gomomento.com/v1alpha1/namespaces/${ns}/valkeyclusters/${n}`,
  },
  policy: meteringPolicy({ sampleMs: SAMPLE_MS }),
  clock,
  log: quiet,
  // As the controller wires it (controller.ts): read for every cluster, used where no memory is configured.
  observedPeak: (ns, name) => observedPeakBytes(podStats.get(`${ns}/${name}`)?.values() ?? []),
});

async function measure(label: string, repeat: number, before: () => void): Promise<void> {
  const cpu: number[] = [];
  const wall: number[] = [];
  let heap = 0;
  let written = 0;
  let sent = 0;
  for (let i = 0; i < repeat; i++) {
    before();
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    requests = 0;
    const out = await pass.run();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    heap = Math.max(heap, process.memoryUsage().heapUsed - heapBefore);
    written = out.written;
    sent = requests;
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  report.line(
    `${label}: CPU ${median(cpu).toFixed(1)} ms (median of ${repeat}), wall ${median(wall).toFixed(1)} ms, heap +${mib(heap)} MiB, ` +
      `${written} record writes, ${sent} requests; ${((median(cpu) / SAMPLE_MS) * 100).toFixed(3)}% of a core at one pass per ${SAMPLE_MS / 1000} s`,
  );
}

report.line(`metering, ${CLUSTERS} clusters × ${SHARDS} shards × 2 pods; with --metering=false no pass runs and no record is cached`);
await measure('first pass (creates every record, adds every finalizer)', 1, () => {});
await measure('a sample, nothing due (four in five)', 9, () => {
  now += 1_000;
});
await measure('a sample where every checkpoint is due (one in five)', 5, () => {
  now += 5 * SAMPLE_MS;
});
gc?.();
const h0 = process.memoryUsage().heapUsed;
const cached = JSON.parse(JSON.stringify([...records.values()])) as ValkeyMeteringRecord[];
gc?.();
report.line(`the records' cache: ${cached.length} records, ${mib(process.memoryUsage().heapUsed - h0)} MiB of heap`);

// Record sizes for a year (12 records per cluster): a steady month and the worst one.
function month(shapeAt: (ms: number) => number): number {
  const start = Date.UTC(2026, 0, 1);
  let open: { month: string; status: NonNullable<ValkeyMeteringRecord['status']> } | undefined;
  for (let t = start; t < Date.UTC(2026, 1, 1); t += SAMPLE_MS) {
    const shards = shapeAt(t);
    for (const w of advanceMetering(
      open,
      {
        nowMs: t,
        shape: {
          shards,
          pods: shards * 3,
          memory: { source: MEMORY_SOURCE.reserved, podBytes: 12 * 2 ** 30, reason: 'resources.memory 12Gi (StatefulSet cache-0)' },
        },
      },
      meteringPolicy({ sampleMs: SAMPLE_MS }),
    ))
      open = { month: w.month, status: w.status };
  }
  const ns = 'n'.repeat(63);
  return Buffer.byteLength(
    JSON.stringify({
      apiVersion: 'valkey.gomomento.com/v1alpha1',
      kind: 'ValkeyMeteringRecord',
      metadata: {
        name: meteringRecordName(ns, 'c'.repeat(40), 'ffffffff-0000', '2026-01'),
        namespace: 'valkey-system',
        finalizers: ['valkey.gomomento.com/metering-record'],
      },
      spec: { cluster: { namespace: ns, name: 'c'.repeat(40), uid: 'ffffffff-0000-4000-8000-000000000000' }, month: '2026-01' },
      status: open?.status,
    }),
  );
}
const steady = month(() => 3);
const worst = month((t) => 1 + (Math.floor(t / SAMPLE_MS) % 7));
report.line(
  `record size: ${steady} bytes a steady month, ${worst} bytes the worst (the shape changing every minute); ` +
    `a year of ${CLUSTERS} clusters (12,000 records): ${mib(12_000 * steady)} MiB steady, ${mib(12_000 * worst)} MiB worst; etcd takes 1.5 MiB an object, 2 GiB by default in all`,
);
