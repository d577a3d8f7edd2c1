import { describe, expect, it } from 'vitest';
import { planFailback } from '../../../src/controller/cluster/failback.js';
import type { Answered, Replication } from '../../../src/controller/cluster/observation.js';
import { parseClusterInfo, parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

const OK_INFO = parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n');

/** A node's line in CLUSTER NODES: `n<shard><ordinal>`, the primary at `primaryAt` owns `slots`. */
function line(s: number, ordinal: number, primaryAt: number, slots: string, myself: boolean): string {
  const flags = `${myself ? 'myself,' : ''}${ordinal === primaryAt ? 'master' : 'slave'}`;
  const primary = ordinal === primaryAt ? '-' : `n${s}${primaryAt}`;
  return `n${s}${ordinal} 10.0.${s}.${ordinal}:6379@16379 ${flags} ${primary} 0 0 1 connected ${ordinal === primaryAt ? slots : ''}`.trim();
}

/** One shard's pods at ordinals 0..2, each seeing the whole shard; `primaryAt` owns `slots`. */
function shard(primaryAt: number, replication: (ordinal: number) => Replication, s = 0, slots = '0-16383'): Answered[] {
  return [0, 1, 2].map((ordinal) => ({
    pod: `c-${s}-${ordinal}`,
    shard: s,
    ordinal,
    state: 'answered',
    identity: { kind: 'valkey', version: '9.0.1' },
    version: '9.0.1',
    endpoint: { host: `10.0.${s}.${ordinal}`, port: 6379, busPort: 16379 },
    view: parseClusterNodes([0, 1, 2].map((o) => line(s, o, primaryAt, slots, o === ordinal)).join('\n')),
    info: OK_INFO,
    replication: replication(ordinal),
  }));
}

const synced =
  (primaryAt: number) =>
  (o: number): Replication =>
    o === primaryAt
      ? { role: 'primary', linkUp: true, syncing: false, offset: 5000 }
      : { role: 'replica', linkUp: true, syncing: false, offset: 4990 };

describe('failback to ordinal 0', () => {
  it('does nothing while the primary is at ordinal 0', () => {
    expect(planFailback(1, shard(0, synced(0)))).toEqual({ kind: 'none' });
  });

  it('fails back to ordinal 0 when a failover moved the primary to ordinal 2 and ordinal 0 is in sync', () => {
    expect(planFailback(1, shard(2, synced(2)))).toEqual({ kind: 'failover', on: 'c-0-0', from: 'c-0-2', shard: 0 });
    expect(planFailback(1, shard(1, synced(1)))).toEqual({ kind: 'failover', on: 'c-0-0', from: 'c-0-1', shard: 0 });
  });

  it('waits while ordinal 0 is syncing or far behind', () => {
    const syncing = shard(2, (o) =>
      o === 2
        ? { role: 'primary', linkUp: true, syncing: false, offset: 5000 }
        : { role: 'replica', linkUp: true, syncing: true, offset: 0 },
    );
    expect(planFailback(1, syncing)).toEqual({
      kind: 'wait',
      reason: 'shard 0: c-0-0 takes the primary back from c-0-2 once it is in sync',
    });
    const behind = shard(2, (o) =>
      o === 2
        ? { role: 'primary', linkUp: true, syncing: false, offset: 5_000_000 }
        : { role: 'replica', linkUp: true, syncing: false, offset: 0 },
    );
    expect(planFailback(1, behind).kind).toBe('wait');
  });

  it('waits while ordinal 0 does not replicate the primary yet; says nothing while ordinal 0 does not answer (formation reports that)', () => {
    const absent = shard(2, synced(2)).filter((o) => o.ordinal !== 0);
    expect(planFailback(1, absent)).toEqual({ kind: 'none' });
    const elsewhere = shard(2, synced(2)).map((o) => (o.ordinal === 0 ? { ...o, view: parseClusterNodes(line(0, 0, 1, '', true)) } : o));
    expect(planFailback(1, elsewhere)).toEqual({
      kind: 'wait',
      reason: 'shard 0: primary c-0-2 is not at ordinal 0, and ordinal 0 does not replicate it yet',
    });
  });

  it('one failover per pass: a shard that waits does not hold back the next one', () => {
    const waiting = shard(2, (o) => (o === 2 ? synced(2)(o) : { role: 'replica', linkUp: false, syncing: true, offset: 0 }), 0, '0-8191');
    const ready = shard(1, synced(1), 1, '8192-16383');
    expect(planFailback(2, [...waiting, ...ready])).toEqual({ kind: 'failover', on: 'c-1-0', from: 'c-1-1', shard: 1 });
    const bothReady = [...shard(2, synced(2), 0, '0-8191'), ...ready];
    expect(planFailback(2, bothReady)).toEqual({ kind: 'failover', on: 'c-0-0', from: 'c-0-2', shard: 0 });
  });

  it('leaves a primary without slots alone (a new shard before its slots arrive), and shards beyond spec.shards', () => {
    expect(planFailback(1, shard(2, synced(2), 0, ''))).toEqual({ kind: 'none' });
    expect(planFailback(1, [...shard(0, synced(0), 0, '0-8191'), ...shard(2, synced(2), 1, '8192-16383')])).toEqual({ kind: 'none' });
  });

  it('waits until every node sees ordinal 0 replicate the primary (gossip lags a failover; an early CLUSTER FAILOVER only times out)', () => {
    // Ordinal 0 was the primary a moment ago: it follows ordinal 2 now, but ordinal 1 (or the primary) still sees it as a primary.
    const lagging = (who: number) =>
      shard(2, synced(2)).map((o) =>
        o.ordinal === who
          ? {
              ...o,
              view: parseClusterNodes(
                [line(0, 0, 0, '', false), line(0, 1, 2, '0-16383', who === 1), line(0, 2, 2, '0-16383', who === 2)].join('\n'),
              ),
            }
          : o,
      );
    const wait = { kind: 'wait', reason: 'shard 0: c-0-0 takes the primary back from c-0-2 once every node sees it replicate c-0-2' };
    expect(planFailback(1, lagging(1))).toEqual(wait);
    expect(planFailback(1, lagging(2))).toEqual(wait);
  });
});
