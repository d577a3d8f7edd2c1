import { describe, expect, it } from 'vitest';
import { planFailback } from '../../src/controller/cluster/failback.js';
import type { Answered, Replication } from '../../src/controller/cluster/observation.js';
import { parseClusterInfo, parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';

const OK_INFO = parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n');

/** Shard 0 of a one-shard cluster: pods at ordinals 0..2, `primaryAt` owns the slots. */
function shard(primaryAt: number, replication: (ordinal: number) => Replication): Answered[] {
  return [0, 1, 2].map((ordinal) => {
    const me = ordinal === primaryAt;
    const line = me
      ? `n${ordinal} 10.0.0.${ordinal}:6379@16379 myself,master - 0 0 1 connected 0-16383`
      : `n${ordinal} 10.0.0.${ordinal}:6379@16379 myself,slave n${primaryAt} 0 0 1 connected`;
    return {
      pod: `c-0-${ordinal}`,
      shard: 0,
      ordinal,
      state: 'answered',
      identity: { kind: 'valkey', version: '9.0.1' },
      version: '9.0.1',
      endpoint: { host: `10.0.0.${ordinal}`, port: 6379, busPort: 16379 },
      view: parseClusterNodes(line),
      info: OK_INFO,
      replication: replication(ordinal),
    };
  });
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
});
