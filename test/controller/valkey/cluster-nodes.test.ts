import { describe, expect, it } from 'vitest';
import { ClusterNodesParseError, parseClusterInfo, parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';
import { countSlots, formatRanges, shardSlotRange, toRanges } from '../../../src/api/contract/slots.js';

describe('parseClusterNodes', () => {
  it('reads Valkey 8+ lines with hostname and aux fields, replicas, failed and noaddr nodes', () => {
    const text = [
      '07c37dfeb235213a872192d90877d0cd55635b91 10.0.0.5:6379@16379,cache-0-0.cache.shop.svc.cluster.local,shard-id=ab12,nodename=cache-0-0 myself,master - 0 1426238317239 1 connected 0-5460 [5461->-e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca]',
      'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 10.0.0.6:6379@16379,cache-0-1.cache.shop.svc.cluster.local slave 07c37dfeb235213a872192d90877d0cd55635b91 0 1426238316232 1 connected',
      '292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f :0@0 master,fail,noaddr - 1426238316232 1426238316232 3 disconnected 5461 5463-10922',
      '6ec23923021cf3ffec47632106199cb7f496ce01 fd00::7:6379@16379 handshake - 0 0 0 disconnected',
      '',
    ].join('\n');
    const nodes = parseClusterNodes(text);
    expect(nodes).toHaveLength(4);
    expect(nodes[0]).toMatchObject({
      id: '07c37dfeb235213a872192d90877d0cd55635b91',
      ip: '10.0.0.5',
      port: 6379,
      busPort: 16379,
      hostname: 'cache-0-0.cache.shop.svc.cluster.local',
      slots: [[0, 5460]],
    });
    expect([...(nodes[0]?.flags ?? [])]).toEqual(['myself', 'master']);
    expect(nodes[1]).toMatchObject({ primaryId: '07c37dfeb235213a872192d90877d0cd55635b91', slots: [] });
    expect(nodes[2]).toMatchObject({
      ip: '',
      port: 0,
      slots: [
        [5461, 5461],
        [5463, 10922],
      ],
      linkState: 'disconnected',
    });
    expect(nodes[3]).toMatchObject({ ip: 'fd00::7', port: 6379 });
  });

  it('reads the Redis 7.0 layout (no hostname)', () => {
    const [n] = parseClusterNodes('6cb6527f3ff6bc76d009ea42734da38e97e4c411 127.0.0.1:23999@33999 myself,master - 0 0 0 connected\n');
    expect(n).toMatchObject({ ip: '127.0.0.1', port: 23999, busPort: 33999, slots: [] });
    expect(n?.hostname).toBeUndefined();
  });

  it('refuses a truncated line with a message that shows it', () => {
    expect(() => parseClusterNodes('abc 1.2.3.4:1@2 master')).toThrow('CLUSTER NODES line has too few fields: "abc 1.2.3.4:1@2 master"');
  });
});

describe('parseClusterNodes refuses what no Valkey prints (a hostile or broken node)', () => {
  const ID = '07c37dfeb235213a872192d90877d0cd55635b91';
  const OTHER = 'e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca';
  const good = `${ID} 10.0.0.5:6379@16379,cache-0-0.cache.shop.svc.cluster.local myself,master - 0 1426238317239 1 connected`;
  it.each([
    ['a slot range up to 2^53', `${good} 0-9007199254740991`, /line 1: slot "9007199254740991" is not a whole number from 0 to 16383/],
    ['a slot past 16383', `${good} 16384`, /slot "16384" is not a whole number from 0 to 16383/],
    ['a range that ends before it starts', `${good} 10-5`, /slot range "10-5" ends before it starts/],
    ['a slot marker past 16383', `${good} [99999->-${OTHER}]`, /slot "99999"/],
    [
      'a port past 65535',
      `${ID} 10.0.0.5:70000@16379 myself,master - 0 0 1 connected`,
      /port "70000" is not a whole number from 0 to 65535/,
    ],
    ['a bus port that is not a number', `${ID} 10.0.0.5:6379@x myself,master - 0 0 1 connected`, /bus port "x"/],
    [
      'an address that is not an IP',
      `${ID} evil.example:6379@16379 myself,master - 0 0 1 connected`,
      /"evil.example" is not an IP address/,
    ],
    ['a host name with a control character', `${ID} 10.0.0.5:6379@16379,a\u001bb myself,master - 0 0 1 connected`, /is not a host name/],
    ['an id with bytes no id has', `${ID.slice(0, 39)}! 10.0.0.5:6379@16379 myself,master - 0 0 1 connected`, /is not a node id/],
    ['a primary id of 41 characters', `${ID} 10.0.0.5:6379@16379 slave,myself ${OTHER}0 0 0 1 connected`, /primary id .* is not a node id/],
    ['a config epoch that is not a whole number', `${ID} 10.0.0.5:6379@16379 myself,master - 0 0 1e400 connected`, /config epoch "1e400"/],
    ['an unknown link state', `${ID} 10.0.0.5:6379@16379 myself,master - 0 0 1 sideways`, /link state "sideways"/],
    ['the same node twice', `${good}\n${good.replace('myself,', '')}`, /lists node 07c37dfeb235213a872192d90877d0cd55635b91 twice/],
    ['no myself line', good.replace('myself,', ''), /0 lines flagged myself/],
    ['two myself lines', `${good}\n${good.replace(ID, OTHER)}`, /2 lines flagged myself/],
  ])('refuses %s, naming the field', (_what, text, message) => {
    expect(() => parseClusterNodes(text)).toThrow(ClusterNodesParseError);
    expect(() => parseClusterNodes(text)).toThrow(message);
  });

  it('quotes at most 80 characters of what the node sent', () => {
    const long = `${good} ${'9'.repeat(10_000)}`;
    const message = (() => {
      try {
        parseClusterNodes(long);
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(message.length).toBeLessThan(200);
  });

  it('refuses CLUSTER INFO figures out of range', () => {
    expect(() => parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:9007199254740991\r\n')).toThrow(
      'CLUSTER INFO cluster_slots_assigned "9007199254740991" is not a whole number from 0 to 16384',
    );
    expect(() => parseClusterInfo('cluster_state:\u001b[2Jok\r\n')).toThrow(/cluster_state .* is not a state/);
  });
});

describe('parseClusterInfo', () => {
  it('takes state, assigned slots, known nodes and size', () => {
    expect(
      parseClusterInfo(
        'cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:16384\r\ncluster_known_nodes:6\r\ncluster_size:3\r\n',
      ),
    ).toEqual({
      state: 'ok',
      slotsAssigned: 16384,
      knownNodes: 6,
      size: 3,
    });
  });
});

describe('slots', () => {
  it.each([
    [1, [[0, 16383]]],
    [
      2,
      [
        [0, 8191],
        [8192, 16383],
      ],
    ],
    [
      3,
      [
        [0, 5460],
        [5461, 10922],
        [10923, 16383],
      ],
    ],
    [
      5,
      [
        [0, 3276],
        [3277, 6553],
        [6554, 9829],
        [9830, 13106],
        [13107, 16383],
      ],
    ],
  ])('%i shards split the slots like valkey-cli --cluster create', (shards, expected) => {
    const ranges = Array.from({ length: shards }, (_, i) => shardSlotRange(i, shards));
    expect(ranges).toEqual(expected);
    expect(countSlots(ranges)).toBe(16384);
  });

  it('covers all 16384 slots without gaps for every shard count up to 1000', () => {
    for (const shards of [7, 13, 100, 999, 1000]) {
      let next = 0;
      for (let i = 0; i < shards; i++) {
        const [a, b] = shardSlotRange(i, shards);
        expect(a).toBe(next);
        expect(b).toBeGreaterThanOrEqual(a);
        next = b + 1;
      }
      expect(next).toBe(16384);
    }
  });

  it('turns slot numbers into ranges', () => {
    expect(toRanges([5, 1, 2, 3, 9, 10, 2])).toEqual([
      [1, 3],
      [5, 5],
      [9, 10],
    ]);
    expect(
      formatRanges([
        [1, 3],
        [5, 5],
      ]),
    ).toBe('1-3,5');
  });
});
