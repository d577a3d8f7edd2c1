// Valkey's per-pod metrics from one pass: which figures are due, which are kept, the facts of each
// pod (lag against the primary its own view names), and the series a scrape shows, dropped with the
// pod, the cluster and a lost lease.
import { describe, expect, it } from 'vitest';
import type { NodeObservation } from '../../../src/controller/cluster/observation.js';
import { keepSamples, podFacts, statsDue } from '../../../src/controller/reconcile/pod-facts.js';
import { controllerMetrics } from '../../../src/controller/runtime/metrics.js';
import { parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

const P = '1'.repeat(40);
const R = '2'.repeat(40);
const answered = (pod: string, line: string, role: 'primary' | 'replica', offset: number, linkUp = true): NodeObservation =>
  ({
    pod,
    shard: 0,
    ordinal: Number(pod.at(-1)),
    state: 'answered',
    view: parseClusterNodes(line),
    info: { state: 'ok', slotsAssigned: 16384, knownNodes: 2, size: 1 },
    replication: { role, linkUp, syncing: false, offset },
  }) as unknown as NodeObservation;
const primary = answered('c-0-0', `${P} 10.0.0.1:6379@16379 myself,master - 0 0 1 connected 0-16383\n`, 'primary', 9000);
const replica = answered('c-0-1', `${R} 10.0.0.2:6379@16379 myself,slave ${P} 0 0 1 connected\n`, 'replica', 8000);
const pending = { pod: 'c-0-2', shard: 0, ordinal: 2, state: 'pending', reason: 'is Pending' } as NodeObservation;

describe('per-pod Valkey metrics from a pass', () => {
  it('figures are due when never read or read an interval ago', () => {
    expect(statsDue(undefined, 1000, 15_000)).toBe(true);
    expect(statsDue({ atMs: 0, stats: {} }, 14_999, 15_000)).toBe(false);
    expect(statsDue({ atMs: 0, stats: {} }, 15_000, 15_000)).toBe(true);
  });

  it('keeps fresh figures, the last ones of a pod that answered unasked, none of a pod that did not answer or is gone', () => {
    const kept = new Map([
      ['c-0-1', { atMs: 1, stats: { keys: 1 } }],
      ['c-0-2', { atMs: 1, stats: { keys: 2 } }],
      ['c-9-9', { atMs: 1, stats: { keys: 9 } }],
    ]);
    const out = keepSamples(kept, new Map([['c-0-0', { keys: 5 }]]), [primary, replica, pending], 20_000);
    expect([...out]).toEqual([
      ['c-0-0', { atMs: 20_000, stats: { keys: 5 } }],
      ['c-0-1', { atMs: 1, stats: { keys: 1 } }],
    ]);
  });

  it('a replica lags its primary by the offsets of this pass; a pod that did not answer is down', () => {
    const facts = podFacts([primary, replica, pending], new Map([['c-0-0', { atMs: 20_500, stats: { usedMemoryBytes: 10 } }]]));
    expect(facts).toEqual([
      { pod: 'c-0-0', shard: 0, up: true, role: 'primary', clusterStateOk: true, stats: { usedMemoryBytes: 10 }, statsAtSeconds: 20 },
      {
        pod: 'c-0-1',
        shard: 0,
        up: true,
        role: 'replica',
        clusterStateOk: true,
        replication: { linkUp: true, syncing: false, lagBytes: 1000 },
      },
      { pod: 'c-0-2', shard: 0, up: false },
    ]);
    const down = answered('c-0-1', `${R} 10.0.0.2:6379@16379 myself,slave ${P} 0 0 1 connected\n`, 'replica', 0, false);
    expect(podFacts([primary, down], new Map())[1]?.replication).toEqual({ linkUp: false, syncing: false });
  });

  it('serves the series with namespace, cluster, shard and pod, counters as counters, and drops them with the cluster and the lease', async () => {
    const m = controllerMetrics();
    const samples = new Map([
      ['c-0-0', { atMs: 20_000, stats: { usedMemoryBytes: 10, maxmemoryBytes: 100, commandsProcessed: 7, evictedKeys: 0 } }],
    ]);
    m.setClusterPods('shop/c', podFacts([primary, replica, pending], samples));
    const text = await m.registry.metrics();
    const labels = (pod: string) => `cluster="c",namespace="shop",pod="${pod}",shard="0"`;
    for (const line of [
      `valkey_up{${labels('c-0-0')}} 1`,
      `valkey_up{${labels('c-0-2')}} 0`,
      `valkey_role{${labels('c-0-1')},role="replica"} 1`,
      `valkey_cluster_state_ok{${labels('c-0-0')}} 1`,
      `valkey_replication_link_up{${labels('c-0-1')}} 1`,
      `valkey_replication_lag_bytes{${labels('c-0-1')}} 1000`,
      `valkey_memory_used_bytes{${labels('c-0-0')}} 10`,
      `valkey_memory_max_bytes{${labels('c-0-0')}} 100`,
      `valkey_stats_timestamp_seconds{${labels('c-0-0')}} 20`,
      '# TYPE valkey_commands_processed_total counter',
      `valkey_commands_processed_total{${labels('c-0-0')}} 7`,
      `valkey_evicted_keys_total{${labels('c-0-0')}} 0`,
    ])
      expect(text).toContain(`${line}\n`);
    expect(text).not.toMatch(/valkey_memory_used_bytes\{[^}]*c-0-1/);
    m.setClusterPods('shop/c', podFacts([primary], samples));
    expect(await m.registry.metrics()).not.toContain('c-0-1');
    m.setClusterPods('shop/c', undefined);
    expect(await m.registry.metrics()).not.toContain('pod="c-0-0"');
    m.setClusterPods('shop/c', podFacts([primary], samples));
    m.forgetClusters();
    expect(await m.registry.metrics()).not.toContain('pod="c-0-0"');
  });

  it('a pod name with control characters is an inert label value', async () => {
    const m = controllerMetrics();
    m.setClusterPods('shop/c', [{ pod: 'c-0-0\x1b[2J', shard: 0, up: false }]);
    const text = await m.registry.metrics();
    expect(text).not.toContain('\x1b');
    expect(text).toContain('valkey_up{cluster="c",namespace="shop",pod="c-0-0\\\\u001b[2J",shard="0"} 0');
  });
});
