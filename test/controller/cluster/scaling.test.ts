import { describe, expect, it } from 'vitest';
import type { FormationPlan } from '../../../src/controller/cluster/formation.js';
import type { NodeObservation } from '../../../src/controller/cluster/observation.js';
import { describeMove, primaryObservations, shareProblems } from '../../../src/controller/cluster/scaling.js';
import { buildStatus, type StatusInput } from '../../../src/controller/cluster/status.js';
import { parseClusterInfo, parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

const OK_INFO = parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n');
const T0 = '2026-01-01T00:00:00Z';

/** Shard `s`'s primary `p<s>` (at 10.0.<s>.1) and replica `r<s>`; `slots` per shard as CLUSTER NODES writes them. */
function world(slots: string[]): NodeObservation[] {
  const lines = (me: string) =>
    slots.flatMap((range, s) => [
      `p${s} 10.0.${s}.1:6379@16379 ${me === `p${s}` ? 'myself,' : ''}master - 0 0 ${s + 1} connected ${range}`.trim(),
      `r${s} 10.0.${s}.2:6379@16379 ${me === `r${s}` ? 'myself,' : ''}slave p${s} 0 0 ${s + 1} connected`,
    ]);
  return slots.flatMap((_, s) =>
    ['p', 'r'].map((kind, ordinal) => ({
      pod: `c-${s}-${ordinal}`,
      shard: s,
      ordinal,
      state: 'answered' as const,
      identity: { kind: 'valkey' as const, version: '9.0.1' },
      version: '9.0.1',
      endpoint: { host: `10.0.${s}.${ordinal + 1}`, port: 6379, busPort: 16379 },
      view: parseClusterNodes(lines(`${kind}${s}`).join('\n')),
      info: OK_INFO,
    })),
  );
}

const GROWN = ['0-5460', '5461-10922', '10923-16383', '', ''];
const plan = (shards: number): FormationPlan => ({
  actions: [],
  waiting: [],
  primaries: new Map(Array.from({ length: shards }, (_, s) => [s, `c-${s}-0`])),
});
const input = (shards: number, slots: string[], over: Partial<StatusInput> = {}): StatusInput => ({
  namespace: 'shop',
  generation: 2,
  shards,
  replicasPerShard: 1,
  observations: world(slots),
  plan: plan(shards),
  actionErrors: [],
  now: T0,
  ...over,
});

describe('scaling: primaries and their share of the slots', () => {
  it('finds each shard primary with its replicas, as its own view counts them', () => {
    const answered = world(GROWN).filter((o) => o.state === 'answered');
    const primaries = primaryObservations(answered);
    expect(primaries.map((p) => [p.pod, p.replicas, p.clusterState])).toEqual([
      ['c-0-0', 1, 'ok'],
      ['c-1-0', 1, 'ok'],
      ['c-2-0', 1, 'ok'],
      ['c-3-0', 1, 'ok'],
      ['c-4-0', 1, 'ok'],
    ]);
  });

  it('names a primary with no slots, one off its share, and a removed shard still holding slots', () => {
    const answered = (slots: string[]) => primaryObservations(world(slots).filter((o) => o.state === 'answered'));
    expect(shareProblems(5, answered(GROWN))).toEqual([
      "shard 0's primary c-0-0 owns 5461 slot(s), its share is 3276-3277",
      "shard 1's primary c-1-0 owns 5462 slot(s), its share is 3276-3277",
      "shard 2's primary c-2-0 owns 5461 slot(s), its share is 3276-3277",
      "shard 3's primary c-3-0 owns 0 slot(s), its share is 3276-3277",
      "shard 4's primary c-4-0 owns 0 slot(s), its share is 3276-3277",
    ]);
    expect(shareProblems(3, answered(GROWN.slice(0, 3)))).toEqual([]);
    expect(shareProblems(2, answered(['0-8191', '8192-16000', '16001-16383']))).toEqual([
      "shard 1's primary c-1-0 owns 7809 slot(s), its share is 8192",
      'shard 2 (being removed) still owns 383 slot(s)',
    ]);
  });

  it('words a move with its ranges and how far the scaling got', () => {
    const move = {
      kind: 'move' as const,
      from: { id: 'p1', pod: 'c-1-0', shard: 1 },
      to: { id: 'p3', pod: 'c-3-0', shard: 3 },
      slots: [[10859, 10922] as const],
      remainingSlots: 4000,
      summary: '',
    };
    expect(describeMove(move, 6554)).toBe('moving slots 10859–10922 (64) from shard 1 to shard 3: 2,554 of 6,554 slots moved');
    expect(describeMove(move)).toBe('moving slots 10859–10922 (64) from shard 1 to shard 3: 4,000 slot(s) left to move');
  });
});

describe('status while shards grow', () => {
  it('is not Active while a new shard primary owns no slots (the bug: met, no slots, reported Active)', () => {
    const status = buildStatus(input(5, GROWN));
    expect(status.state).toBe('Updating');
    expect(status.message).toMatch(/^shard 0's primary c-0-0 owns 5461 slot\(s\), its share is 3276-3277; .*; and 2 more$/);
    expect(status.conditions?.find((c) => c.type === 'ClusterFormed')?.status).toBe('True');
    expect(status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
  });

  it('shows the step in progress and a SlotMigration condition, which stays at rest once balanced', () => {
    const moving = buildStatus(
      input(5, GROWN, { scaling: { phase: 'moving', message: 'moving slots 10859–10922 (64) from shard 1 to shard 3' } }),
    );
    expect(moving.state).toBe('Updating');
    expect(moving.message).toMatch(/^moving slots 10859–10922/);
    expect(moving.conditions?.find((c) => c.type === 'SlotMigration')).toMatchObject({ status: 'True', reason: 'Migrating' });

    const held = buildStatus(input(5, GROWN, { scaling: { phase: 'held', message: 'the data does not fit' } }));
    expect(held.message).toContain('scaling held: the data does not fit');
    expect(held.conditions?.find((c) => c.type === 'SlotMigration')).toMatchObject({ status: 'False', reason: 'Held' });

    const balancedSlots = ['0-3276', '3277-6553', '6554-9830', '9831-13107', '13108-16383'];
    const done = buildStatus(input(5, balancedSlots, { previous: moving }));
    expect(done.state).toBe('Active');
    expect(done.conditions?.find((c) => c.type === 'SlotMigration')).toMatchObject({ status: 'False', reason: 'Balanced' });
    expect(buildStatus(input(5, balancedSlots)).conditions?.some((c) => c.type === 'SlotMigration')).toBe(false);
  });
});
