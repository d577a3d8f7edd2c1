import { describe, expect, it } from 'vitest';
import type { KubeFacts } from '../../../src/controller/cluster/kube-facts.js';
import { planLeaders, type LeaderCandidate } from '../../../src/controller/cluster/leader-placement.js';
import { planPass } from '../../../src/controller/cluster/pass-planner.js';
import { threeByTwo } from '../../support/controller/observations.js';

/** Pods `c-<shard>-<ordinal>` on the nodes given per shard (index = ordinal); the primary at `primaryAt` (default 0). */
function layout(nodesByShard: readonly (readonly string[])[], zones: Record<string, string>, primaryAt: (s: number) => number = () => 0) {
  return nodesByShard.flatMap((nodes, shard) =>
    nodes.map(
      (node, ordinal): LeaderCandidate => ({
        pod: `c-${shard}-${ordinal}`,
        shard,
        ordinal,
        node,
        ...(zones[node] ? { zone: zones[node] } : {}),
        primary: ordinal === primaryAt(shard),
      }),
    ),
  );
}

const ZONES3 = { 'node-a': 'zone-a', 'node-b': 'zone-b', 'node-c': 'zone-c' };
const leadersOf = (c: readonly LeaderCandidate[]) => [...planLeaders(c).leaders].sort(([a], [b]) => a - b).map(([, p]) => p);

describe('which pod leads each shard', () => {
  it('moves a primary off the node that holds two of three (the issue c1 layout: shards 0 and 2 led from node-c)', () => {
    const c = layout(
      [
        ['node-c', 'node-a'],
        ['node-b', 'node-c'],
        ['node-c', 'node-b'],
      ],
      ZONES3,
    );
    const plan = planLeaders(c);
    expect(plan.verdict.holds).toBe(true);
    // One shard keeps ordinal 0 on node-c, the other moves; node-a and node-b each get one.
    expect(leadersOf(c)).toEqual(['c-0-1', 'c-1-0', 'c-2-0']);
  });

  it('keeps every primary at ordinal 0 when ordinal 0 is already spread', () => {
    const c = layout(
      [
        ['node-a', 'node-b'],
        ['node-b', 'node-c'],
        ['node-c', 'node-a'],
      ],
      ZONES3,
    );
    expect(leadersOf(c)).toEqual(['c-0-0', 'c-1-0', 'c-2-0']);
    expect(planLeaders(c).verdict).toEqual({
      holds: true,
      message: 'No node or zone holds more than 1 of the 3 primaries, so losing one leaves a majority to vote a failover',
    });
  });

  it('fails a primary back to ordinal 0 when ordinal 0 keeps the spread', () => {
    const c = layout(
      [
        ['node-a', 'node-b'],
        ['node-b', 'node-c'],
        ['node-c', 'node-a'],
      ],
      ZONES3,
      (s) => (s === 1 ? 1 : 0),
    );
    expect(leadersOf(c)).toEqual(['c-0-0', 'c-1-0', 'c-2-0']);
  });

  it('prefers the primary where it is among layouts of equal ordinals', () => {
    // Shards 0 and 1 share node-a at ordinal 0 and node-b at ordinal 1; shard 2 sits on node-c. One of
    // shards 0 and 1 must lead from ordinal 1: the one already leading from there stays.
    const c = layout(
      [
        ['node-a', 'node-b'],
        ['node-a', 'node-b'],
        ['node-c', 'node-a'],
      ],
      ZONES3,
      (s) => (s === 0 ? 1 : 0),
    );
    expect(leadersOf(c)).toEqual(['c-0-1', 'c-1-0', 'c-2-0']);
  });

  it.each([
    {
      name: 'one shard',
      shards: [['node-a', 'node-b']],
      reason: 'TooFewShards',
      message:
        "With 1 shard(s) no layout leaves a majority of primaries after losing one: the controller promotes a lost primary's replica itself once Kubernetes knows its pod is gone",
    },
    {
      name: 'three shards on one node',
      shards: [
        ['node-a', 'node-a'],
        ['node-a', 'node-a'],
        ['node-a', 'node-a'],
      ],
      reason: 'TooFewNodes',
      message:
        "node node-a holds 3 of the 3 primaries (at most 1 would leave a majority after losing it): the shards' pods run on 1 node(s) in 1 zone(s); spread the pods over more nodes (spec.placement)",
    },
    {
      name: 'three shards on two nodes (after drains)',
      shards: [
        ['node-a', 'node-b'],
        ['node-b', 'node-a'],
        ['node-a', 'node-b'],
      ],
      reason: 'TooFewNodes',
      message:
        "node node-a holds 2 of the 3 primaries (at most 1 would leave a majority after losing it): the shards' pods run on 2 node(s) in 2 zone(s); spread the pods over more nodes (spec.placement)",
    },
    {
      name: 'four shards on four nodes in two zones',
      shards: [
        ['n1', 'n2'],
        ['n2', 'n3'],
        ['n3', 'n4'],
        ['n4', 'n1'],
      ],
      zones: { n1: 'zone-a', n2: 'zone-a', n3: 'zone-b', n4: 'zone-b' },
      reason: 'TooFewZones',
      message:
        "zone zone-a holds 2 of the 4 primaries (at most 1 would leave a majority after losing it): the shards' pods run on 4 node(s) in 2 zone(s); spread the pods over more zones (spec.placement)",
    },
  ])('says why no layout holds the guarantee: $name', ({ shards, zones, reason, message }) => {
    expect(planLeaders(layout(shards, zones ?? ZONES3)).verdict).toEqual({ holds: false, reason, message });
  });

  it('with one or two shards, where no layout holds, moves nothing for it: ordinal 0 leads', () => {
    const c = layout(
      [
        ['node-a', 'node-b'],
        ['node-a', 'node-b'],
      ],
      ZONES3,
    );
    const plan = planLeaders(c);
    expect(plan.verdict).toMatchObject({ holds: false, reason: 'TooFewShards' });
    expect(leadersOf(c)).toEqual(['c-0-0', 'c-1-0']);
  });
});

/** Every choice of one candidate per shard: the brute force the flow is checked against. */
function bruteForceHolds(c: readonly LeaderCandidate[]): boolean {
  const shards = [...new Set(c.map((x) => x.shard))].sort((a, b) => a - b);
  const cap = Math.ceil(shards.length / 2) - 1;
  if (cap < 1) return false;
  const pick = (i: number, nodes: Map<string, number>, zones: Map<string, number>): boolean => {
    if (i === shards.length) return true;
    for (const x of c.filter((y) => y.shard === shards[i])) {
      const z = x.zone ?? `node ${x.node}`;
      if ((nodes.get(x.node) ?? 0) >= cap || (zones.get(z) ?? 0) >= cap) continue;
      nodes.set(x.node, (nodes.get(x.node) ?? 0) + 1);
      zones.set(z, (zones.get(z) ?? 0) + 1);
      const ok = pick(i + 1, nodes, zones);
      nodes.set(x.node, (nodes.get(x.node) ?? 0) - 1);
      zones.set(z, (zones.get(z) ?? 0) - 1);
      if (ok) return true;
    }
    return false;
  };
  return pick(0, new Map(), new Map());
}

describe('shards × replicas × nodes × zones: the guarantee holds exactly when some layout has it', () => {
  const cases: { shards: number; replicas: number; nodes: number; zones: number; skew: number }[] = [];
  for (const shards of [1, 2, 3, 4, 5, 6])
    for (const replicas of [0, 1, 2])
      for (const nodes of [1, 2, 3, 4, 5])
        for (const zones of [1, 2, 3])
          if (zones <= nodes) for (const skew of [0, 1, 2]) cases.push({ shards, replicas, nodes, zones, skew });

  it.each(cases)(
    '$shards×$replicas on $nodes node(s) in $zones zone(s), placement skew $skew',
    ({ shards, replicas, nodes, zones, skew }) => {
      // A shard's pods on distinct nodes where there are enough (nodeSpread); `skew` piles ordinal 0s up.
      const zoneOf = Object.fromEntries(Array.from({ length: nodes }, (_, n) => [`n${n}`, `z${n % zones}`]));
      const c = layout(
        Array.from({ length: shards }, (_, s) =>
          Array.from({ length: replicas + 1 }, (_, o) => `n${(Math.floor((s * (2 - Math.min(skew, 2))) / 2) + o * (skew + 1)) % nodes}`),
        ),
        zoneOf,
      );
      const plan = planLeaders(c);
      expect(plan.verdict.holds).toBe(bruteForceHolds(c));
      expect(plan.leaders.size).toBe(shards);
      for (const [s, pod] of plan.leaders) expect(pod.startsWith(`c-${s}-`)).toBe(true);
      if (plan.verdict.holds) {
        const cap = Math.ceil(shards / 2) - 1;
        const count = (key: (x: LeaderCandidate) => string) => {
          const m = new Map<string, number>();
          for (const x of c) if (plan.leaders.get(x.shard) === x.pod) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
          return Math.max(...m.values());
        };
        expect(count((x) => x.node)).toBeLessThanOrEqual(cap);
        expect(count((x) => x.zone ?? x.node)).toBeLessThanOrEqual(cap);
      }
    },
  );
});

describe('the pass moves a primary to the pod chosen to lead (failback, by where pods run)', () => {
  // Three shards, two pods each, every replica in sync; shards 0 and 2 lead from node-c.
  const node = (s: number, o: number) => (o === 0 ? (s === 1 ? 'node-b' : 'node-c') : 'node-a');
  const observations = threeByTwo();
  const kube = (zoneOfC: string): KubeFacts => ({
    pods: new Map(observations.map((o) => [o.pod, { pod: o.pod, node: node(o.shard, o.ordinal) }])),
    nodes: new Map(
      (['node-a', 'node-b', 'node-c'] as const).map((n) => [
        n,
        { name: n, zone: n === 'node-c' ? zoneOfC : `zone-${n.slice(-1)}`, ready: 'True' as const, outOfService: false },
      ]),
    ),
  });
  const facts = { shards: 3, replicasPerShard: 1, observations, primaries: [], roll: [], rollSlotFree: true };

  it('fails one of the two shards led from node-c over to its replica on node-a, so node-c holds one primary of three', () => {
    const plan = planPass({ ...facts, kube: kube('zone-c') });
    // Shards 0 and 2 cost the same to move; the choice is deterministic.
    expect(plan.now).toEqual({ kind: 'failover', on: 'c-2-1', from: 'c-2-0', shard: 2 });
    expect(plan.leaders?.verdict.holds).toBe(true);
  });

  it('without Node facts every shard stays at ordinal 0, as before', () => {
    expect(planPass(facts).now).toEqual({ kind: 'none' });
  });
});
