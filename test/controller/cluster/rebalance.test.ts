import { describe, expect, it } from 'vitest';
import {
  planRebalance,
  planRepairs,
  slotsToCount,
  type PrimaryObservation,
  type RebalanceInput,
} from '../../../src/controller/cluster/rebalance.js';
import { TOTAL_SLOTS, countSlots, shardSlotRange, toRanges, type SlotRange } from '../../../src/api/contract/slots.js';
import { parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';
import { parseMemoryInfo } from '../../../src/controller/valkey/memory-info.js';

const idOf = (shard: number): string => String(shard).repeat(40).slice(0, 40);

/** A primary whose `myself` line holds `slots` (CLUSTER NODES syntax, markers included). */
function primary(shard: number, slots: string, more: Partial<PrimaryObservation> = {}): PrimaryObservation {
  const line = `${idOf(shard)} 127.0.0.1:${7000 + shard}@${17000 + shard} myself,master - 0 0 1 connected ${slots}`.trim();
  const [self] = parseClusterNodes(line);
  if (!self) throw new Error('no line');
  return { shard, pod: `c-${shard}-0`, self, replicas: 1, usedMemoryBytes: 10 * 2 ** 20, keyMemoryBytes: 10 * 2 ** 20, ...more };
}

const even = (shards: number, total = shards): PrimaryObservation[] =>
  Array.from({ length: total }, (_, s) => {
    const [a, b] = shardSlotRange(s, shards);
    return primary(s, s < shards ? `${a}-${b}` : '');
  });

const input = (shards: number, primaries: PrimaryObservation[], more: Partial<RebalanceInput> = {}): RebalanceInput => ({
  shards,
  replicasPerShard: 1,
  primaries,
  ...more,
});

/** Applies a move to the observations, as the executor would leave the cluster. */
function apply(primaries: PrimaryObservation[], from: string, to: string, moved: readonly SlotRange[]): PrimaryObservation[] {
  const movedSet = new Set(moved.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i)));
  return primaries.map((p) => {
    const own = p.self.slots.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
    if (p.self.id === from) return { ...p, self: { ...p.self, slots: toRanges(own.filter((s) => !movedSet.has(s))) } };
    if (p.self.id === to) return { ...p, self: { ...p.self, slots: toRanges([...own, ...movedSet]) } };
    return p;
  });
}

/** Plans and applies steps until balanced; returns the final observations and the step count. */
function runToBalance(start: RebalanceInput): { primaries: PrimaryObservation[]; steps: number; batches: number[] } {
  let primaries = start.primaries as PrimaryObservation[];
  const batches: number[] = [];
  for (let steps = 0; steps < 10_000; steps++) {
    const d = planRebalance({ ...start, primaries });
    if (d.kind === 'balanced') return { primaries, steps, batches };
    if (d.kind !== 'move') throw new Error(`unexpected ${d.kind}: ${JSON.stringify(d)}`);
    batches.push(countSlots(d.slots));
    primaries = apply(primaries, d.from.id, d.to.id, d.slots);
  }
  throw new Error('did not converge');
}

describe('planRebalance: shards out and in', () => {
  it.each([
    [3, 5],
    [3, 6],
    [5, 3],
    [6, 3],
    [1, 2],
    [4, 1],
  ])('%i → %i shards ends with every kept primary at 16384/shards (±1), the removed ones empty', (from, to) => {
    const start = even(from, Math.max(from, to));
    const { primaries, batches } = runToBalance(input(to, start, { options: { batchSlots: 100 } }));
    const counts = primaries.map((p) => countSlots(p.self.slots));
    const per = TOTAL_SLOTS / to;
    for (const [s, n] of counts.entries()) {
      if (s < to) expect(Math.abs(n - per)).toBeLessThan(1 + 1e-9);
      else expect(n).toBe(0);
    }
    expect(counts.reduce((a, b) => a + b, 0)).toBe(TOTAL_SLOTS);
    expect(Math.max(...batches)).toBeLessThanOrEqual(100);
  });

  it('moves no slot when the cluster is already balanced, and names the drained shards', () => {
    expect(planRebalance(input(3, even(3)))).toEqual({ kind: 'balanced', drained: [] });
    expect(planRebalance(input(3, even(3, 5)))).toMatchObject({ kind: 'balanced', drained: [{ shard: 4 }, { shard: 3 }] });
  });

  it('takes a batch from the highest slots of the fullest primary for the emptiest new one', () => {
    const d = planRebalance(input(5, even(3, 5), { options: { batchSlots: 10 } }));
    expect(d).toMatchObject({ kind: 'move', from: { shard: 1 }, to: { shard: 3 }, slots: [[10913, 10922]] });
  });

  it('drains the highest removed shard first', () => {
    const d = planRebalance(input(3, even(5), { options: { batchSlots: 5 } }));
    expect(d).toMatchObject({ kind: 'move', from: { shard: 4 }, slots: [[16379, 16383]] });
  });

  it('gives a new shard slots only once its replicas are attached', () => {
    const ps = even(3, 5).map((p) => (p.shard === 3 ? { ...p, replicas: 0 } : p));
    expect(planRebalance(input(5, ps))).toMatchObject({ kind: 'move', to: { shard: 4 } });
    const none = ps.map((p) => (p.shard === 4 ? { ...p, replicas: 0 } : p));
    expect(planRebalance(input(5, none))).toEqual({
      kind: 'wait',
      reason: 'new shard primaries wait for their replicas before taking slots: c-3-0 (0 of 1), c-4-0 (0 of 1)',
    });
    expect(planRebalance(input(5, none, { replicasPerShard: 0 }))).toMatchObject({ kind: 'move' });
  });

  it('waits, even to heal, while a node reports the cluster down (it just restarted)', () => {
    const ps = [primary(0, `0-16383 [5->-${idOf(1)}]`, { clusterState: 'ok' }), primary(1, '', { clusterState: 'fail' })];
    expect(planRebalance(input(2, ps))).toEqual({ kind: 'wait', reason: 'cluster_state is not ok on c-1-0' });
  });

  it('waits while a kept shard has no primary or slots are unassigned', () => {
    expect(planRebalance(input(5, even(3, 4)))).toEqual({ kind: 'wait', reason: 'no primary observed yet for shard(s) 4' });
    const gap = [primary(0, '0-8000'), primary(1, '8001-16000')];
    expect(planRebalance(input(2, gap))).toEqual({ kind: 'wait', reason: '16001 of 16384 slots are assigned; formation comes first' });
  });
});

describe('planRebalance: a shrink that would not fit is held', () => {
  const mb = 2 ** 20;
  const used = (n: number) => (p: PrimaryObservation) => ({ ...p, usedMemoryBytes: n * mb, keyMemoryBytes: n * mb });
  it.each<[string, number, number, RebalanceInput['options'], string]>([
    ['fits', 100, 30, undefined, 'move'],
    ['does not fit at 90%', 100, 55, undefined, 'hold'],
    ['fits at 100%', 100, 55, { shrinkFillRatio: 1 }, 'move'],
    ['maxmemory unbounded', 0, 1000, undefined, 'move'],
  ])('%s', (_name, maxMb, usedMb, options, kind) => {
    const ps = even(5).map(used(usedMb));
    const d = planRebalance(input(3, ps, { maxmemoryBytes: maxMb * mb, ...(options ? { options } : {}) }));
    expect(d.kind).toBe(kind);
  });

  it('says why it holds', () => {
    const ps = even(5).map(used(55));
    expect(planRebalance(input(3, ps, { maxmemoryBytes: 100 * mb }))).toEqual({
      kind: 'hold',
      reason:
        'shrinking to 3 shard(s) is held: the 3 remaining primaries would need 275.0 MiB (165.0 MiB in use + 110.0 MiB of keys still on shard(s) 4, 3) ' +
        "but may use 270.0 MiB (90% of 3 × maxmemory 100.0 MiB); raise maxmemory in the cluster's ValkeyConfig, or remove fewer shards",
    });
    const unknown = even(5).map((p) => (p.shard === 2 ? { ...p, usedMemoryBytes: undefined } : p)) as PrimaryObservation[];
    expect(planRebalance(input(3, unknown, { maxmemoryBytes: 100 * mb }))).toEqual({
      kind: 'hold',
      reason: 'shrinking to 3 shard(s) is held: memory use of c-2-0 is not known yet',
    });
  });

  it('counts what the remaining primaries use plus the keys still on the draining ones, not the rest', () => {
    // Kept primaries use 80 MiB each (240); the draining ones' keys take 20 MiB each (40), though
    // each uses 70 MiB in all (a large backlog stays behind): 280 of 270 MiB does not fit.
    const ps = even(5).map((p) =>
      p.shard < 3 ? { ...p, usedMemoryBytes: 80 * mb, keyMemoryBytes: 1 } : { ...p, usedMemoryBytes: 70 * mb, keyMemoryBytes: 20 * mb },
    );
    expect(planRebalance(input(3, ps, { maxmemoryBytes: 100 * mb })).kind).toBe('hold');
    // With 15 MiB of keys each (270 of 270 MiB) it fits, exactly at the ratio.
    const fewer = ps.map((p) => (p.shard >= 3 ? { ...p, keyMemoryBytes: 15 * mb } : p));
    expect(planRebalance(input(3, fewer, { maxmemoryBytes: 100 * mb })).kind).toBe('move');
  });

  it('holds a shrink half done that stops fitting, and lets a drained shard go unread', () => {
    // 5 → 3 under way: shard 4 drained (no slots, memory unread), shard 3 still owns 1,001 slots;
    // the slots they gave away went to shard 0, so every slot has an owner.
    const [a0, b0] = shardSlotRange(0, 5);
    const [a3, b3] = shardSlotRange(3, 5);
    const [a4, b4] = shardSlotRange(4, 5);
    const ps = [
      primary(0, `${a0}-${b0} ${a3 + 1001}-${b3} ${a4}-${b4}`),
      ...even(5).slice(1, 3),
      primary(3, `${a3}-${a3 + 1000}`, { keyMemoryBytes: 40 * mb }),
      primary(4, '', { usedMemoryBytes: undefined, keyMemoryBytes: undefined }),
    ].map((p) => (p.shard < 3 ? { ...p, usedMemoryBytes: 80 * mb } : p));
    expect(ps.reduce((n, p) => n + countSlots(p.self.slots), 0)).toBe(TOTAL_SLOTS);
    expect(planRebalance(input(3, ps, { maxmemoryBytes: 100 * mb }))).toMatchObject({
      kind: 'hold',
      reason: expect.stringContaining(
        'would need 280.0 MiB (240.0 MiB in use + 40.0 MiB of keys still on shard(s) 3) but may use 270.0 MiB',
      ),
    });
    expect(planRebalance(input(3, ps, { maxmemoryBytes: 110 * mb }))).toMatchObject({ kind: 'move', from: { shard: 3 } });
  });

  it('asks for the memory of the remaining primaries and the draining ones only', () => {
    const ps = even(5).map((p) =>
      p.shard === 1 ? { ...p, usedMemoryBytes: undefined } : p.shard === 4 ? { ...p, keyMemoryBytes: undefined } : p,
    );
    expect(planRebalance(input(3, ps, { maxmemoryBytes: 100 * mb }))).toEqual({
      kind: 'hold',
      reason: 'shrinking to 3 shard(s) is held: memory use of c-1-0, c-4-0 is not known yet',
    });
    // What a kept primary's keys take, or a draining one's whole use, is not needed.
    const enough = even(5).map((p) =>
      p.shard < 3 ? { ...p, keyMemoryBytes: undefined } : { ...p, usedMemoryBytes: undefined },
    ) as PrimaryObservation[];
    expect(planRebalance(input(3, enough, { maxmemoryBytes: 100 * mb })).kind).toBe('move');
  });

  it('does not check memory when growing or once drained', () => {
    const ps = even(3, 5).map(used(1000));
    expect(planRebalance(input(5, ps, { maxmemoryBytes: mb })).kind).toBe('move');
    expect(planRebalance(input(3, ps, { maxmemoryBytes: mb })).kind).toBe('balanced');
  });
});

describe('parseMemoryInfo: the figures a shrink check reads from INFO memory', () => {
  // From unstable-2024-10 with 20,000 keys of 100 bytes: the keys' index (main table) is
  // used_memory_overhead less startup and scripts, about 53 bytes a key that the dataset leaves out.
  const info = (more = ''): string =>
    [
      '# Memory',
      'used_memory:4417264',
      'used_memory_overhead:1974976',
      'used_memory_startup:912368',
      'used_memory_dataset:2442288',
      'used_memory_scripts:184',
      'maxmemory:0',
      'mem_not_counted_for_evict:0',
      'mem_replication_backlog:0',
      'mem_clients_slaves:0',
      'mem_clients_normal:0',
      'mem_cluster_links:0',
      'mem_aof_buffer:0',
      more,
    ].join('\r\n');

  it('counts the dataset and the keys index as what moves, and used_memory as what maxmemory counts', () => {
    expect(parseMemoryInfo(info())).toEqual({ usedBytes: 4417264, keyBytes: 2442288 + 1974976 - 912368 - 184, maxmemoryBytes: 0 });
  });

  it('leaves buffers with the node and out of what eviction counts', () => {
    const busy = info('maxmemory:104857600\r\nmem_replication_backlog:1048576\r\nmem_not_counted_for_evict:4096')
      .replace('mem_replication_backlog:0\r\n', '')
      .replace('mem_not_counted_for_evict:0\r\n', '')
      .replace('maxmemory:0\r\n', '');
    expect(parseMemoryInfo(busy)).toEqual({
      usedBytes: 4417264 - 4096,
      keyBytes: 2442288 + 1974976 - 912368 - 184 - 1048576,
      maxmemoryBytes: 104857600,
    });
  });

  it('is undefined without a figure it needs', () => {
    expect(parseMemoryInfo(info().replace('maxmemory:0', ''))).toBeUndefined();
    expect(parseMemoryInfo(info().replace('used_memory_dataset:2442288', 'used_memory_dataset:x'))).toBeUndefined();
  });
});

describe('planRepairs: slots an interrupted migration left migrating or importing', () => {
  const src = idOf(0);
  const dst = idOf(3);
  const keys = (entries: [number, number][]) => new Map(entries);
  it.each<[string, PrimaryObservation[], { resolution: string; why: string } | undefined]>([
    [
      'both markers, no key moved yet: roll back',
      [primary(0, `0-5460 [5460->-${dst}]`), primary(3, `[5460-<-${src}]`)],
      { resolution: 'rollback', why: 'no key reached the target and it was never made the owner' },
    ],
    [
      'both markers, keys on the target: finish',
      [primary(0, `0-5460 [5460->-${dst}]`), primary(3, `[5460-<-${src}]`, { keysInSlots: keys([[5460, 7]]) })],
      { resolution: 'finish', why: '7 key(s) already reached the target' },
    ],
    [
      'the target was already made owner (SETSLOT NODE reached it only): finish',
      [primary(0, `0-5460 [5460->-${dst}]`), primary(3, '5460')],
      { resolution: 'finish', why: 'the target already owns the slot' },
    ],
    [
      'only the target still importing (the source restarted without its marker), keys there: finish',
      [primary(0, '0-5460'), primary(3, `[5460-<-${src}]`, { keysInSlots: keys([[5460, 1]]) })],
      { resolution: 'finish', why: '1 key(s) already reached the target' },
    ],
    [
      'only the target importing, nothing moved: roll back',
      [primary(0, '0-5460'), primary(3, `[5460-<-${src}]`, { keysInSlots: keys([[5460, 0]]) })],
      { resolution: 'rollback', why: 'no key reached the target and it was never made the owner' },
    ],
    [
      'only the source migrating (the target restarted and lost its marker), target empty: roll back',
      [primary(0, `0-5460 [5460->-${dst}]`), primary(3, '')],
      { resolution: 'rollback', why: 'no key reached the target and it was never made the owner' },
    ],
    [
      'migrating to a node that is not an answering primary: roll back',
      [primary(0, `0-5460 [5460->-${'f'.repeat(40)}]`)],
      { resolution: 'rollback', why: 'the target is not a primary that answered' },
    ],
    ['no markers: nothing to heal', [primary(0, '0-5460'), primary(3, '')], undefined],
  ])('%s', (_name, primaries, expected) => {
    const [repair] = planRepairs(primaries);
    if (expected === undefined) expect(repair).toBeUndefined();
    else expect(repair).toMatchObject({ slot: 5460, ...expected });
  });

  it('heals before anything else, one repair per marked slot, in slot order', () => {
    const ps = [
      primary(0, `0-5459 [5460->-${dst}] [5459->-${dst}]`),
      primary(1, '5461-10922'),
      primary(2, '10923-16383'),
      primary(3, '5460'),
    ];
    const d = planRebalance(input(4, ps));
    expect(d).toMatchObject({
      kind: 'heal',
      repairs: [
        { slot: 5459, resolution: 'rollback' },
        { slot: 5460, resolution: 'finish' },
      ],
    });
    expect(slotsToCount(ps)).toEqual([5459, 5460]);
  });
});

describe('CLUSTER NODES migration markers', () => {
  it('are read from the myself line, apart from the slots', () => {
    const [self] = parseClusterNodes(
      `${idOf(0)} 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-10 [11->-${idOf(3)}] [12-<-${idOf(4)}]`,
    );
    expect(self?.slots).toEqual([[0, 10]]);
    expect(self?.migrating).toEqual([{ slot: 11, nodeId: idOf(3) }]);
    expect(self?.importing).toEqual([{ slot: 12, nodeId: idOf(4) }]);
    const [plain] = parseClusterNodes(`${idOf(0)} 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-10`);
    expect(plain).not.toHaveProperty('migrating');
  });
});
