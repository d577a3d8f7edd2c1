// deploy/monitoring's alert rules under promtool (built from its Go module: scripts/build-promtool.sh),
// fed with series the controller's own metrics code produces: controllerMetrics() given the facts a
// pass derives from status (clusterFacts), scraped as Prometheus would, each series held for two
// hours. Which alerts fire is asserted per scenario, and a healthy fleet fires none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValkeyClusterStatus } from '../../src/api/index.js';
import { clusterFacts } from '../../src/controller/reconcile/cluster-facts.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { promtoolRules, seriesOf, type PromtoolRules, type Series } from '../support/promtool.js';

let promtool: PromtoolRules;
beforeAll(async () => {
  promtool = await promtoolRules();
}, 30 * 60_000);
afterAll(() => promtool?.cleanup());

const DAY = 86_400;
/** promtool's clock starts at the Unix epoch: a certificate "10 days from now" expires 10 days after it. */
const at = (seconds: number) => new Date(seconds * 1000).toISOString();

function status(state: ValkeyClusterStatus['state'], conditions: Array<[string, 'True' | 'False']> = []): ValkeyClusterStatus {
  return {
    state,
    message: '',
    conditions: conditions.map(([type, s]) => ({ type, status: s, reason: 'R', message: '', lastTransitionTime: at(0) })),
    nodes: [],
  } as unknown as ValkeyClusterStatus;
}

/** One fleet's series, as the controller's /metrics would serve them: name{labels} value. */
async function scrape(setup: (m: ReturnType<typeof controllerMetrics>) => void): Promise<Series[]> {
  const m = controllerMetrics();
  setup(m);
  return seriesOf(await m.registry.metrics());
}

const promtoolTest: PromtoolRules['test'] = (...args) => promtool.test(...args);

describe('the autoscaler’s window and cooldowns as series', () => {
  it('an autoscaled cluster shows its window’s cover and each cooldown’s end; a cluster without autoscaling shows none', async () => {
    const series = await scrape((m) => {
      m.setClusterStatus(
        'shop/auto',
        clusterFacts(
          status('Active', [['Ready', 'True']]),
          [],
          undefined,
          { shards: 3, autoscaling: { minShards: 2, maxShards: 6 } as never },
          { timers: { windowSeconds: 300, windowHeldSeconds: 120, scaleInCooldownEndsSeconds: 1_800_000_900 } },
        ),
      );
      m.setClusterStatus('shop/fixed', clusterFacts(status('Active', [['Ready', 'True']]), [], undefined, { shards: 3 }));
    });
    const of = (name: string) =>
      series
        .filter((s) => s.series.startsWith(`${name}{`))
        .map((s) => `${s.series.slice(name.length)} ${s.value}`)
        .sort();
    expect(of('valkey_status_sync_autoscale_window_seconds')).toEqual([
      '{cluster="auto",namespace="shop",kind="held"} 120',
      '{cluster="auto",namespace="shop",kind="length"} 300',
    ]);
    expect(of('valkey_status_sync_autoscale_cooldown_end_timestamp_seconds')).toEqual([
      '{cluster="auto",namespace="shop",direction="ScaleIn"} 1800000900',
      '{cluster="auto",namespace="shop",direction="ScaleOut"} 0',
    ]);
  });
});

describe('alert rules under promtool, on the controller’s own series', () => {
  it('a healthy fleet fires nothing', async () => {
    const series = await scrape((m) => {
      m.leader.set(1);
      m.setClusterStatus(
        'shop/cache',
        clusterFacts(
          status('Active', [
            ['Ready', 'True'],
            ['RollHeld', 'False'],
            ['DataLost', 'False'],
          ]),
          [],
          { secret: 'shop/cache-tls', notAfter: at(90 * DAY), expiringSoon: false },
          { shards: 3, autoscaling: { minShards: 2, maxShards: 6 } as never },
        ),
      );
      // At maxShards with no primary past a scale-out threshold: nothing to do, so no alert.
      m.setClusterStatus(
        'shop/full',
        clusterFacts(status('Active', [['Ready', 'True']]), [], undefined, {
          shards: 4,
          autoscaling: { minShards: 2, maxShards: 4 } as never,
        }),
      );
      m.setClusterPods('shop/cache', [
        {
          pod: 'cache-0-0',
          shard: 0,
          up: true,
          role: 'primary',
          clusterStateOk: true,
          stats: { usedMemoryBytes: 50, maxmemoryBytes: 100, connectedClients: 10, clusterConnections: 4, maxclients: 10_000 },
        },
        {
          pod: 'cache-0-1',
          shard: 0,
          up: true,
          role: 'replica',
          clusterStateOk: true,
          replication: { linkUp: true, syncing: false, lagBytes: 0 },
        },
        // No maxmemory: never near it.
        { pod: 'cache-1-0', shard: 1, up: true, role: 'primary', clusterStateOk: true, stats: { usedMemoryBytes: 50, maxmemoryBytes: 0 } },
      ]);
    });
    const r = await promtoolTest(series, '150m', []);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('a fleet in trouble fires each alert for its cluster, and only those', async () => {
    const series = await scrape((m) => {
      m.leader.set(0);
      m.reconcileErrors.inc({ kind: 'api' }, 0);
      m.setClusterStatus('shop/failed', clusterFacts(status('Failed'), [], undefined, { shards: 3 }));
      m.setClusterStatus('shop/invalid', clusterFacts(status('Invalid'), [], undefined, { shards: 3 }));
      m.setClusterStatus(
        'shop/held',
        clusterFacts(
          status('Updating', [
            ['RollHeld', 'True'],
            ['DataLost', 'True'],
          ]),
          [],
          { secret: 'shop/held-tls', notAfter: at(10 * DAY), expiringSoon: true },
          { shards: 4, autoscaling: { minShards: 2, maxShards: 4 } as never },
          { heldAtMaxShards: true },
        ),
      );
      m.setClusterStatus(
        'team/lost',
        clusterFacts(
          status('Updating', [
            ['MajorityLost', 'True'],
            ['NodeLost', 'True'],
          ]),
          [
            {
              pod: 'lost-0-1',
              shard: 0,
              ordinal: 1,
              state: 'answered',
              replication: { role: 'replica', linkUp: false, syncing: false, offset: 0 },
            } as never,
          ],
          { secret: 'team/lost-tls', notAfter: at(DAY), expiringSoon: true },
          { shards: 3 },
        ),
      );
      m.setClusterPods('team/lost', [
        {
          pod: 'lost-0-0',
          shard: 0,
          up: true,
          role: 'primary',
          clusterStateOk: true,
          // Applications hold 9,990 connections and the bus 8: at maxclients 10,000 the controller is next to locked out.
          stats: { usedMemoryBytes: 95, maxmemoryBytes: 100, connectedClients: 9990, clusterConnections: 8, maxclients: 10_000 },
        },
        { pod: 'lost-0-1', shard: 0, up: true, role: 'replica', clusterStateOk: false, replication: { linkUp: false, syncing: false } },
      ]);
      // A cluster being created says cluster_state:fail until its slots are assigned: not ValkeyClusterStateFail.
      m.setClusterStatus('shop/new', clusterFacts(status('Creating'), [], undefined, { shards: 3 }));
      m.setClusterPods('shop/new', [{ pod: 'new-0-0', shard: 0, up: true, role: 'primary', clusterStateOk: false }]);
    });
    // An autoscaler held at its maximum: git runs 4 of at most 4, and a primary is past a scale-out threshold.
    const held = { namespace: 'shop', cluster: 'held' };
    const lost = { namespace: 'team', cluster: 'lost' };
    const r = await promtoolTest(series, '150m', [
      ['ValkeyClusterFailed', { namespace: 'shop', cluster: 'failed' }],
      ['ValkeyClusterInvalid', { namespace: 'shop', cluster: 'invalid' }],
      ['ValkeyClusterNotConverging', held],
      ['ValkeyClusterNotConverging', lost],
      ['ValkeyClusterNotConverging', { namespace: 'shop', cluster: 'new' }],
      ['ValkeyRollHeld', held],
      ['ValkeyDataLost', held],
      ['ValkeyCertificateExpiringSoon', held],
      ['ValkeyAutoscalerAtMaximum', held],
      ['ValkeyMajorityOfPrimariesLost', lost],
      ['ValkeyNodeLost', lost],
      ['ValkeyReplicationBroken', { ...lost, shard: '0', pod: 'lost-0-1' }],
      ['ValkeyMemoryNearMaxmemory', { ...lost, shard: '0', pod: 'lost-0-0' }],
      ['ValkeyClientsNearMaxclients', { ...lost, shard: '0', pod: 'lost-0-0' }],
      ['ValkeyClusterStateFail', lost],
      ['ValkeyCertificateExpiringSoon', lost],
      ['ValkeyCertificateExpiring', lost],
      ['ValkeyControllerNoLeader', {}],
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('with no controller scraped at all, says so', async () => {
    const r = await promtoolTest([{ series: 'up{job="something-else"}', value: 1 }], '20m', [['ValkeyControllerDown', {}]]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('promtool would catch a rule that is wrong: an alert expected that does not fire fails', async () => {
    const r = await promtoolTest([{ series: 'valkey_status_sync_build_info{version="0.1.0"}', value: 1 }], '20m', [
      ['ValkeyControllerDown', {}],
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('ValkeyControllerDown');
  });
});
