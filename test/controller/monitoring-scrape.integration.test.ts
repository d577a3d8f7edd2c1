// deploy/monitoring against the real controller (issue 35): real kube-apiserver, etcd and
// kube-controller-manager, the kubelet stand-in running Valkey 9.1.2 pods, the controller in-process
// as its ServiceAccount with its /metrics listener. An application writes and reads keys; the test
// scrapes /metrics over HTTP as Prometheus would and checks that every metric an alert rule or a
// dashboard query names is in that scrape, that Valkey's per-pod series say what the nodes say, and
// feeds the scraped series to promtool: as scraped, no alert fires; with one replica's link and one
// primary's memory changed in the scraped text, exactly the alerts for them fire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/controller/app.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { ensureTools } from '../support/apiserver.js';
import { clusterClient, loadKeys } from '../support/client-workload.js';
import { clusterPods, maxmemoryOf, stopControllerAndWorld, waitClusterActive } from '../support/controller/day2-world.js';
import { startWorkloadController, startWorkloadWorld, workloadClusterObjects } from '../support/controller/workload-world.js';
import type { KubeWorld } from '../support/kube-world.js';
import { waitFor } from '../support/process.js';
import { metricNamesIn, monitoringQueries, promtoolRules, seriesOf, type PromtoolRules, type Series } from '../support/promtool.js';

const NS = 'monitoring';
const NAME = 'watched';
const CONTROLLER_PASSWORD = 'controller-password-for-monitoring';
const KEYS = 2_000;

interface PodObject {
  metadata: { name: string };
  status?: { podIP?: string };
}

/** The samples of one metric in a /metrics text, with their labels. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  return text.split('\n').flatMap((line) => {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) return [];
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    return [{ labels: labels as Record<string, string>, value: Number(m[3]) }];
  });
}

describe('deploy/monitoring against the real controller and Valkey 9.1.2', () => {
  let world: KubeWorld;
  let app: App | undefined;
  let promtool: PromtoolRules | undefined;
  const logs: string[] = [];
  const metrics = controllerMetrics();
  const scrape = async (): Promise<string> => {
    const res = await fetch(`http://127.0.0.1:${String(app?.httpPort)}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };
  const pods = (): Promise<PodObject[]> => clusterPods<PodObject>(world, NS, NAME);

  beforeAll(async () => {
    await ensureTools();
    promtool = await promtoolRules();
  }, 45 * 60_000);

  beforeAll(async () => {
    const started = await startWorkloadWorld({ namespace: NS, replicationPassword: 'replication-password-for-monitoring' });
    world = started.world;
    await world.apply(
      workloadClusterObjects(
        { replication: 'replication-password-for-monitoring', controller: CONTROLLER_PASSWORD, app: 'app-password-for-monitoring' },
        { name: NAME, namespace: NS },
        { shards: 2, replicasPerShard: 1 },
      ),
    );
    app = await startWorkloadController({
      controllerKubeconfig: started.prepared.controllerKubeconfig,
      namespace: NS,
      controllerPassword: CONTROLLER_PASSWORD,
      resyncMs: 1_000,
      valkeyMetricsMs: 1_000,
      http: { host: '127.0.0.1', port: 0 },
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics,
    });
    await waitClusterActive(world, NS, NAME);
  }, 300_000);

  afterAll(async () => {
    promtool?.cleanup();
    await stopControllerAndWorld(app, logs, world);
  }, 60_000);

  it('serves every metric the rules and dashboards name, Valkey’s per pod as the nodes say, and the rules fire on the scraped series as they should', async () => {
    const ip = (await pods()).find((p) => p.status?.podIP)?.status?.podIP as string;
    const client = clusterClient({ host: ip, port: 6379 }, 'app-password-for-monitoring');
    let read = 0;
    let lost = 0;
    try {
      await loadKeys(client, KEYS);
      for (let i = 0; i < 200; i++) {
        read++;
        if ((await client.get(`key:${i}`)) !== '0') lost++;
      }
      for (let i = 0; i < 50; i++) await client.get(`key:missing-${i}`);
    } finally {
      client.disconnect();
    }
    console.log(`monitoring scrape: ${KEYS} keys written, ${read} read back, ${lost} lost`);
    expect(lost).toBe(0);

    // The figures are read in the passes: wait for the ones taken after the writes.
    let text = '';
    await waitFor(
      'the primaries to report every key written and every read',
      async () => {
        text = await scrape();
        const primaries = new Set(
          samples(text, 'valkey_role')
            .filter((s) => s.labels.role === 'primary')
            .map((s) => s.labels.pod),
        );
        const keys = samples(text, 'valkey_keys').filter((s) => primaries.has(s.labels.pod));
        const sum = (name: string) => samples(text, name).reduce((n, s) => n + s.value, 0);
        // A pass can sample the nodes after the writes but before the reads ended: wait for both.
        return (
          keys.length === 2 &&
          keys.reduce((n, s) => n + s.value, 0) === KEYS &&
          sum('valkey_keyspace_hits_total') >= 200 &&
          sum('valkey_keyspace_misses_total') >= 50
        );
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );

    // Every metric a rule or a dashboard names is in the real scrape.
    const served = new Set([...text.matchAll(/^# TYPE (\w+) /gm)].map((m) => m[1]));
    const missing = monitoringQueries().flatMap(({ where, expr }) =>
      metricNamesIn(expr)
        .filter((n) => !served.has(n))
        .map((n) => `${where}: ${n}`),
    );
    expect(missing).toEqual([]);

    // Valkey's per-pod series, one set per pod, as the nodes say.
    const podNames = (await pods()).map((p) => p.metadata.name).sort();
    expect(podNames).toHaveLength(4);
    const up = samples(text, 'valkey_up');
    expect(up.map((s) => s.labels.pod).sort()).toEqual(podNames);
    expect(up.every((s) => s.value === 1 && s.labels.namespace === NS && s.labels.cluster === NAME)).toBe(true);
    expect(
      samples(text, 'valkey_role')
        .map((s) => s.labels.role)
        .sort(),
    ).toEqual(['primary', 'primary', 'replica', 'replica']);
    expect(samples(text, 'valkey_cluster_state_ok').map((s) => s.value)).toEqual([1, 1, 1, 1]);
    expect(samples(text, 'valkey_replication_link_up').map((s) => s.value)).toEqual([1, 1]);
    const maxmemory = Number(/maxmemory\r\n\$\d+\r\n(\d+)/.exec(await maxmemoryOf(ip, CONTROLLER_PASSWORD))?.[1]);
    expect(maxmemory).toBeGreaterThan(0);
    for (const s of samples(text, 'valkey_memory_max_bytes')) expect(s.value).toBe(maxmemory);
    for (const s of samples(text, 'valkey_memory_used_bytes')) expect(s.value).toBeGreaterThan(0);
    // Every node holds two bus links with each of the other three (maxclients counts them) under Valkey's default maxclients.
    for (const s of samples(text, 'valkey_clients_max')) expect(s.value).toBe(10_000);
    for (const s of samples(text, 'valkey_cluster_connections')) expect(s.value).toBeGreaterThan(0);
    expect(samples(text, 'valkey_cluster_connections')).toHaveLength(4);
    expect(samples(text, 'valkey_keyspace_hits_total').reduce((n, s) => n + s.value, 0)).toBeGreaterThanOrEqual(200);
    expect(samples(text, 'valkey_keyspace_misses_total').reduce((n, s) => n + s.value, 0)).toBeGreaterThanOrEqual(50);
    expect(samples(text, 'valkey_commands_processed_total').every((s) => s.value > 0)).toBe(true);
    const now = Date.now() / 1000;
    for (const s of samples(text, 'valkey_stats_timestamp_seconds')) expect(now - s.value).toBeLessThan(30);

    // The scraped series under promtool: a healthy cluster fires nothing...
    const scraped = seriesOf(text).filter((s) => Number.isFinite(s.value));
    const healthy = await promtool?.test(scraped, '150m', []);
    expect(healthy?.code, `${healthy?.stdout}${healthy?.stderr}`).toBe(0);

    // ...and the same series with one replica's link down and one primary at 95% of maxmemory and of maxclients fire exactly those.
    const replica = samples(text, 'valkey_replication_link_up')[0]?.labels as Record<string, string>;
    const primary = samples(text, 'valkey_role').find((s) => s.labels.role === 'primary')?.labels as Record<string, string>;
    const isPod = (s: Series, name: string, pod: string) => s.series.startsWith(`${name}{`) && s.series.includes(`pod="${pod}"`);
    const troubled = scraped.map((s) => {
      if (isPod(s, 'valkey_replication_link_up', replica.pod as string)) return { ...s, value: 0 };
      if (isPod(s, 'valkey_memory_used_bytes', primary.pod as string)) return { ...s, value: Math.ceil(maxmemory * 0.95) };
      if (isPod(s, 'valkey_connected_clients', primary.pod as string)) return { ...s, value: 9_500 };
      return s;
    });
    const who = (l: Record<string, string>) => ({ namespace: NS, cluster: NAME, shard: l.shard as string, pod: l.pod as string });
    const r = await promtool?.test(troubled, '150m', [
      ['ValkeyReplicationBroken', who(replica)],
      ['ValkeyMemoryNearMaxmemory', who(primary)],
      ['ValkeyClientsNearMaxclients', who(primary)],
    ]);
    expect(r?.code, `${r?.stdout}${r?.stderr}`).toBe(0);
  }, 120_000);
});
