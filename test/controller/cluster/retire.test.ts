import { describe, expect, it } from 'vitest';
import type { Answered } from '../../../src/controller/cluster/observation.js';
import { keysInKeyspace, planRetirement, type RetireInput } from '../../../src/controller/cluster/retire.js';
import { parseClusterInfo, parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

const OK_INFO = parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n');

/** Pod `c-<shard>-0`, node `n<shard>`, a primary owning `slots`. */
function node(shard: number, slots: string): Answered {
  return {
    pod: `c-${shard}-0`,
    shard,
    ordinal: 0,
    state: 'answered',
    identity: { kind: 'valkey', version: '9.0.1' },
    version: '9.0.1',
    endpoint: { host: `10.0.${shard}.1`, port: 6379, busPort: 16379 },
    view: parseClusterNodes(`n${shard} 10.0.${shard}.1:6379@16379 myself,master - 0 0 1 connected ${slots}`.trim()),
    info: OK_INFO,
  };
}

const drained = [node(0, '0-8191'), node(1, '8192-16383'), node(2, ''), node(3, '')];
const input = (over: Partial<RetireInput> = {}): RetireInput => ({
  shards: 2,
  statefulSetShards: [0, 1, 2, 3],
  pods: drained.map(({ pod, shard, ordinal }) => ({ pod, shard, ordinal })),
  answered: drained,
  keys: new Map([
    ['c-2-0', 0],
    ['c-3-0', 0],
  ]),
  ...over,
});

describe('retiring drained shards', () => {
  it('counts the keys of every database in INFO keyspace', () => {
    expect(keysInKeyspace('# Keyspace\r\ndb0:keys=12,expires=0,avg_ttl=0\r\ndb1:keys=3,expires=1,avg_ttl=0\r\n')).toBe(15);
    expect(keysInKeyspace('# Keyspace\r\n')).toBe(0);
  });

  it('forgets the removed nodes on every remaining node once they hold no slot and no key', () => {
    expect(planRetirement(input())).toEqual({ kind: 'retire', shards: [2, 3], nodeIds: ['n2', 'n3'], forgetOn: ['c-0-0', 'c-1-0'] });
  });

  it('does nothing when no removed shard has a StatefulSet left', () => {
    expect(planRetirement(input({ statefulSetShards: [0, 1] }))).toEqual({ kind: 'none' });
  });

  it('waits while a removed node owns a slot, holds a key, has unknown keys, or does not answer', () => {
    const withSlot = [drained[0], drained[1], node(2, '16383'), drained[3]] as Answered[];
    expect(planRetirement(input({ answered: withSlot }))).toEqual({ kind: 'wait', reason: 'shard 2 (being removed) still owns 1 slot(s)' });
    expect(
      planRetirement(
        input({
          keys: new Map([
            ['c-2-0', 0],
            ['c-3-0', 7],
          ]),
        }),
      ),
    ).toEqual({
      kind: 'wait',
      reason: 'c-3-0 (being removed) still holds 7 key(s)',
    });
    expect(planRetirement(input({ keys: new Map([['c-2-0', 0]]) }))).toEqual({
      kind: 'wait',
      reason: 'the keys on c-3-0 are not known yet',
    });
    expect(planRetirement(input({ answered: drained.slice(0, 3) }))).toEqual({
      kind: 'wait',
      reason: 'shard(s) 2, 3 are retired once c-3-0 answer',
    });
  });

  it('never retires a shard that may be a new one: kept StatefulSets not yet rendered for the new count, or no pod yet', () => {
    // Growing 3 -> 5, the new StatefulSets arrived before the ValkeyCluster's change: spec still says 2 here.
    const rendered = [0, 1, 2, 3].map((shard) => ({ shard, shards: 4 }));
    expect(planRetirement(input({ renderedShards: rendered }))).toEqual({
      kind: 'wait',
      reason: 'StatefulSets of shard(s) 0, 1 were not rendered for 2 shards yet',
    });
    const shrunk = [0, 1].map((shard) => ({ shard, shards: 2 })).concat([2, 3].map((shard) => ({ shard, shards: 4 })));
    expect(planRetirement(input({ renderedShards: shrunk })).kind).toBe('retire');
    expect(planRetirement(input({ pods: [], answered: drained.slice(0, 2) }))).toEqual({
      kind: 'wait',
      reason: 'shard(s) 2, 3 have no pod to drain and check',
    });
  });
});
