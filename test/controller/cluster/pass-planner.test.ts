// The pass planner as a table: every pair of operations that can be due at once, and which one
// acts. Each case is a cluster described by what its nodes and pods say in this pass; nothing is
// read from an earlier status.
import { describe, expect, it } from 'vitest';
import type { Answered, Replication } from '../../../src/controller/cluster/observation.js';
import { planPass, type PassFacts, type PassPlan } from '../../../src/controller/cluster/pass-planner.js';
import type { RollShard } from '../../../src/controller/cluster/roll.js';
import type { NodeRates } from '../../../src/controller/cluster/load-window.js';
import { primaryObservations } from '../../../src/controller/cluster/scaling.js';
import { formatRanges, shardSlotRange, type SlotRange } from '../../../src/api/contract/slots.js';
import { parseClusterInfo, parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

const OK_INFO = parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n');

interface ShardShape {
  slots: SlotRange[];
  /** The ordinal of its primary (0 unless a failover moved it). */
  primaryAt: number;
  /** Each pod's revision, by ordinal. */
  revisions: ('old' | 'new')[];
  /** The StatefulSet's update revision. */
  updateRevision: 'old' | 'new';
}

interface Scenario {
  spec: number;
  replicasPerShard: number;
  shards: ShardShape[];
  /** Slot markers an interrupted migration left: slot, from shard, to shard. */
  marker?: { slot: number; from: number; to: number };
  /** A pod that started and met nobody yet (formation has a step). */
  stranger?: boolean;
  rollSlotFree: boolean;
}

const id = (shard: number, ordinal: number): string => `a${shard}${ordinal}`.padEnd(40, '0');
const pod = (shard: number, ordinal: number): string => `c-${shard}-${ordinal}`;

/** Every pod's CLUSTER NODES line about one node, as the pod at (viewer) sees it. */
function line(sc: Scenario, shard: number, ordinal: number, viewer: [number, number]): string {
  const s = sc.shards[shard] as ShardShape;
  const primary = ordinal === s.primaryAt;
  const myself = viewer[0] === shard && viewer[1] === ordinal;
  const flags = `${myself ? 'myself,' : ''}${primary ? 'master' : 'slave'}`;
  const of = primary ? '-' : id(shard, s.primaryAt);
  let slots = primary ? formatRanges(s.slots).replaceAll(',', ' ') : '';
  if (myself && primary && sc.marker?.from === shard) slots += ` [${sc.marker.slot}->-${id(sc.marker.to, 0)}]`;
  if (myself && primary && sc.marker?.to === shard) slots += ` [${sc.marker.slot}-<-${id(sc.marker.from, 0)}]`;
  return `${id(shard, ordinal)} 10.0.${shard}.${ordinal}:6379@16379 ${flags} ${of} 0 0 1 connected ${slots}`.trim();
}

function answered(sc: Scenario): Answered[] {
  const all = sc.shards.flatMap((s, shard) => s.revisions.map((_, ordinal) => [shard, ordinal] as [number, number]));
  const nodes: Answered[] = all.map(([shard, ordinal]) => {
    const s = sc.shards[shard] as ShardShape;
    const replication: Replication =
      ordinal === s.primaryAt
        ? { role: 'primary', linkUp: true, syncing: false, offset: 5000 }
        : { role: 'replica', linkUp: true, syncing: false, offset: 4990 };
    return {
      state: 'answered',
      pod: pod(shard, ordinal),
      shard,
      ordinal,
      identity: { kind: 'valkey', version: '9.1.2' },
      version: '9.1.2',
      endpoint: { host: `10.0.${shard}.${ordinal}`, port: 6379, busPort: 16379 },
      view: parseClusterNodes(all.map(([a, b]) => line(sc, a, b, [shard, ordinal])).join('\n')),
      info: OK_INFO,
      replication,
    };
  });
  if (sc.stranger) {
    const shard = 0;
    const ordinal = (sc.shards[0] as ShardShape).revisions.length;
    nodes.push({
      ...(nodes[0] as Answered),
      pod: pod(shard, ordinal),
      ordinal,
      endpoint: { host: `10.0.${shard}.${ordinal}`, port: 6379, busPort: 16379 },
      view: parseClusterNodes(`${id(shard, ordinal)} 10.0.0.${ordinal}:6379@16379 myself,master - 0 0 0 connected`),
      replication: { role: 'primary', linkUp: true, syncing: false, offset: 0 },
    });
  }
  return nodes;
}

function rollShardsOf(sc: Scenario): RollShard[] {
  return sc.shards.map((s, shard) => ({
    shard,
    updateRevision: `${shard}-${s.updateRevision}`,
    observed: true,
    allowDataLoss: false,
    replicas: s.revisions.length,
    pods: s.revisions.map((r, ordinal) => ({
      pod: pod(shard, ordinal),
      shard,
      ordinal,
      revision: `${shard}-${r}`,
      ready: true,
      terminating: false,
      node: { state: 'answered', role: ordinal === s.primaryAt ? 'primary' : 'replica', inSync: true },
    })),
  }));
}

function facts(sc: Scenario): PassFacts {
  const observations = answered(sc);
  const removed = observations.filter((o) => o.shard >= sc.spec);
  return {
    shards: sc.spec,
    replicasPerShard: sc.replicasPerShard,
    observations,
    primaries: primaryObservations(observations).map((p) => ({ ...p, keysInSlots: new Map() })),
    rebalance: { batchSlots: 64 },
    retire: {
      statefulSetShards: sc.shards.map((_, shard) => shard),
      renderedShards: sc.shards.map((_, shard) => ({ shard, shards: sc.spec })),
      pods: observations.map((o) => ({ pod: o.pod, shard: o.shard, ordinal: o.ordinal })),
      keys: new Map(removed.map((o) => [o.pod, 0])),
    },
    roll: rollShardsOf(sc),
    rollSlotFree: sc.rollSlotFree,
  };
}

// --- the operations, each as a change to a formed, balanced, idle cluster of 3 shards, 1 replica each.

const even = (shards: number, of = shards): ShardShape[] =>
  Array.from({ length: shards }, (_, s) => ({
    slots: s < of ? [shardSlotRange(s, of)] : [],
    primaryAt: 0,
    revisions: ['old', 'old'],
    updateRevision: 'old',
  }));

const idle = (): Scenario => ({ spec: 3, replicasPerShard: 1, shards: even(3), rollSlotFree: true });

type Change = (sc: Scenario) => Scenario;

/** Formation has a step: a pod that met nobody yet. */
const formation: Change = (sc) => ({ ...sc, stranger: true });
/** An interrupted migration's markers (found at start-up): slot 5460 from shard 0 to shard 1. */
const interrupted: Change = (sc) => ({ ...sc, marker: { slot: 5460, from: 0, to: 1 } });
/** `shards` raised by one: a new shard, created at the update revision, owns no slot yet. */
const scaleOut: Change = (sc) => ({
  ...sc,
  spec: sc.spec + 1,
  shards: [...sc.shards, { slots: [], primaryAt: 0, revisions: ['new', 'new'], updateRevision: 'new' }],
});
/** `shards` lowered by one: its shard still owns slots. */
const scaleIn: Change = (sc) => ({ ...sc, spec: sc.spec - 1 });
/** A shard removed and drained: it owns no slot and holds no key; its StatefulSet is still there. */
const drained: Change = (sc) => ({
  ...sc,
  shards: [...sc.shards, { slots: [], primaryAt: 0, revisions: ['new', 'new'], updateRevision: 'new' }],
});
/** A new image on every StatefulSet of the kept shards (a new shard's pods are created on it). */
const imageBump: Change = (sc) => ({
  ...sc,
  shards: sc.shards.map((s, i) => (i < sc.spec && s.revisions.includes('old') ? { ...s, updateRevision: 'new' } : s)),
});
/** A roll under way: shard 0's replica already runs the new revision. */
const rollUnderWay: Change = (sc) => {
  const next = imageBump(sc);
  const [first, ...rest] = next.shards as [ShardShape, ...ShardShape[]];
  return { ...next, shards: [{ ...first, revisions: ['old', 'new'] }, ...rest] };
};
/** Shard 0's primary is at ordinal 1 after a failover. */
const failback: Change = (sc) => {
  const [first, ...rest] = sc.shards as [ShardShape, ...ShardShape[]];
  return { ...sc, shards: [{ ...first, primaryAt: 1 }, ...rest] };
};
const slotTaken: Change = (sc) => ({ ...sc, rollSlotFree: false });

const plan = (...changes: Change[]): PassPlan => planPass(facts(changes.reduce((sc, c) => c(sc), idle())));
const waitingFor = (p: PassPlan): string[] => p.waiting.map((w) => w.operation).sort();

describe('the pass planner: one operation per pass, from this pass facts', () => {
  it('an idle cluster: nothing to do, nothing waits', () => {
    const p = plan();
    expect(p.now).toEqual({ kind: 'none' });
    expect(p.waiting).toEqual([]);
    expect(p.roll).toEqual({ state: 'none' });
  });

  it.each([
    // [case, changes, what acts, what waits, the roll's state]
    ['formation + interrupted migration', [formation, interrupted], 'formation', [], 'none'],
    ['formation + scale out', [formation, scaleOut], 'formation', [], 'none'],
    ['formation + roll', [formation, imageBump], 'formation', ['roll'], 'waiting'],
    ['formation + roll under way', [formation, rollUnderWay], 'formation', ['roll'], 'rolling'],
    ['formation + failback', [formation, failback], 'formation', [], 'none'],
    ['interrupted migration + scale out', [interrupted, scaleOut], 'heal', [], 'none'],
    ['interrupted migration + roll (found at start-up)', [interrupted, imageBump], 'heal', ['roll'], 'waiting'],
    ['interrupted migration + roll under way', [interrupted, rollUnderWay], 'heal', ['roll'], 'rolling'],
    ['interrupted migration + failback', [interrupted, failback], 'heal', ['failback'], 'none'],
    ['scale out + roll (one merge)', [imageBump, scaleOut], 'move', ['roll'], 'waiting'],
    ['scale in + roll (one merge)', [imageBump, scaleIn], 'move', ['roll'], 'waiting'],
    ['drained shard + roll', [imageBump, drained], 'retire', ['roll'], 'waiting'],
    ['scale out + roll under way', [rollUnderWay, scaleOut], 'roll', ['move'], 'rolling'],
    ['scale in + roll under way', [rollUnderWay, scaleIn], 'roll', ['move'], 'rolling'],
    ['scale out + failback due (during a migration)', [failback, scaleOut], 'move', ['failback'], 'none'],
    ['drained shard + failback', [failback, drained], 'retire', ['failback'], 'none'],
    ['roll + failback', [failback, imageBump], 'roll', ['failback'], 'rolling'],
    ['roll waiting for the fleet slot + failback', [failback, imageBump, slotTaken], 'none', ['failback', 'roll'], 'waiting'],
    ['failback alone', [failback], 'failover', [], 'none'],
  ] as const)('%s', (_name, changes, now, waiting, roll) => {
    const p = plan(...changes);
    expect(p.now.kind).toBe(now);
    expect(waitingFor(p)).toEqual([...waiting].sort());
    expect(p.roll.state).toBe(roll);
  });

  it('a move and a retirement are never due at once: a removed shard is retired only once it owns no slot', () => {
    expect(plan(scaleIn).now.kind).toBe('move');
    expect(plan(drained).now.kind).toBe('retire');
  });

  it('one merge that changes the image and shards: slots move first, the roll is not in progress and holds no slot', () => {
    const p = plan(imageBump, scaleOut);
    expect(p.now).toMatchObject({ kind: 'move', to: { shard: 3 } });
    expect(p.roll).toMatchObject({
      state: 'waiting',
      message: expect.stringMatching(/^the roll starts once the slots are spread as shards asks/),
    });
    expect(p.topology).toMatchObject({ phase: 'moving' });
    // Once the slots are spread, the roll's turn: its first step, and only now is it in progress.
    const spread = (sc: Scenario): Scenario => ({ ...sc, shards: sc.shards.map((s, i) => ({ ...s, slots: [shardSlotRange(i, 4)] })) });
    const after = plan(imageBump, scaleOut, spread);
    expect(after.now).toMatchObject({ kind: 'roll', step: { kind: 'evict', pod: 'c-0-1' } });
    expect(after.roll.state).toBe('rolling');
    expect(after.topology).toBeUndefined();
  });

  it('the same merge shrinking: drain, retire, then roll', () => {
    expect(plan(imageBump, scaleIn).now).toMatchObject({ kind: 'move', from: { shard: 2 } });
    const retire = plan(imageBump, drained);
    expect(retire.now).toMatchObject({ kind: 'retire', shards: [3] });
    expect(retire.roll.state).toBe('waiting');
  });

  it('a roll waiting for the fleet slot is not in progress; a roll under way goes on without one', () => {
    const waiting = plan(imageBump, slotTaken);
    expect(waiting.now.kind).toBe('none');
    expect(waiting.roll).toMatchObject({ state: 'waiting', message: 'waiting for a roll slot (--max-concurrent-rolls)' });
    expect(plan(rollUnderWay, slotTaken).now).toMatchObject({ kind: 'roll', step: { kind: 'failover', on: 'c-0-1' } });
  });

  it('a new shard created at the new revision is not a roll under way', () => {
    const p = plan(imageBump, scaleOut, slotTaken);
    expect(p.roll.state).toBe('waiting');
  });

  it('a roll under way keeps its turn; the migration waits and says so', () => {
    const p = plan(rollUnderWay, scaleOut);
    expect(p.topology).toMatchObject({
      phase: 'waiting',
      message: expect.stringMatching(/^slots move once the roll under way is finished/),
    });
  });

  it('a failback due during a migration waits for the slots and says why', () => {
    expect(plan(failback, scaleOut).failbackWaiting).toBe('primaries fail back to ordinal 0 once the slots are spread as shards asks');
  });

  it('roll + replicas down: the departed replica is forgotten first, then the roll', () => {
    // replicasPerShard 2 -> 1 with a new image: the StatefulSet removed ordinal 2, which every node still lists (failed).
    const down: Change = (sc) => ({
      ...sc,
      replicasPerShard: 1,
      shards: sc.shards.map((s) => ({ ...s, revisions: ['old', 'old', 'old'] })),
    });
    const base = [down, imageBump].reduce((sc, c) => c(sc), idle());
    const f = facts(base);
    const withoutOrdinal2 = f.observations
      .filter((o): o is Answered => o.state === 'answered' && o.ordinal < 2)
      .map((o) => ({ ...o, view: o.view.map((n) => (n.id[2] === '2' ? { ...n, flags: new Set([...n.flags, 'fail']) } : n)) }));
    const roll = f.roll.map((s) => ({ ...s, replicas: 2, pods: s.pods.filter((p) => p.ordinal < 2) }));
    const p = planPass({ ...f, observations: withoutOrdinal2, primaries: primaryObservations(withoutOrdinal2), roll });
    expect(p.now).toMatchObject({ kind: 'formation', actions: expect.arrayContaining([expect.objectContaining({ kind: 'forget' })]) });
    expect(p.roll).toMatchObject({ state: 'waiting', message: 'formation steps come first' });
  });
});

describe('autoscaling goes last: it decides only when nothing else acts or waits, and acts on nothing', () => {
  const MIB = 2 ** 20;
  const spec = { minShards: 1, maxShards: 8, scaleOut: { memoryPercent: 80 }, scaleIn: { memoryPercent: 40 } };
  /** Every pod of the scenario at `percent` of maxmemory (100 MiB), shard 0's primary at `hot`. */
  function withLoad(sc: Scenario, percent: number, hot = percent, maxmemoryMiB = 100): PassFacts {
    const f = facts(sc);
    const rates: NodeRates[] = f.observations.map((o) => ({
      pod: o.pod,
      shard: o.shard,
      primary: o.state === 'answered' && o.ordinal === (sc.shards[o.shard] as ShardShape).primaryAt,
      memoryPercent: o.pod === 'c-0-0' ? hot : percent,
    }));
    const memory = new Map(
      f.observations.map((o) => [o.pod, { usedBytes: percent * MIB, keyBytes: (percent - 2) * MIB, maxmemoryBytes: maxmemoryMiB * MIB }]),
    );
    return { ...f, autoscale: { spec, window: { full: true, heldMs: 300_000, latest: rates, peaks: rates }, memory, nowMs: 1e9 } };
  }
  const autoscaled = (percent: number, hot: number, ...changes: Change[]) =>
    planPass(
      withLoad(
        changes.reduce((sc, c) => c(sc), idle()),
        percent,
        hot,
      ),
    );

  it('an idle cluster past memoryPercent: ScaleOut decided, and still no operation acts', () => {
    const p = autoscaled(60, 91);
    expect(p.now).toEqual({ kind: 'none' });
    expect(p.autoscale).toMatchObject({ steady: true, desiredShards: 4, decision: { direction: 'ScaleOut', fromShards: 3 } });
  });

  it.each([
    ['formation', [formation], 'formation acts'],
    ['an interrupted migration', [interrupted], 'heal acts'],
    ['a scale-out git asked for', [scaleOut], 'move acts'],
    ['a drained shard', [drained], 'retire acts'],
    ['a roll', [imageBump], 'roll acts'],
    ['a roll waiting for the fleet slot', [imageBump, slotTaken], 'roll is due (waiting for a roll slot (--max-concurrent-rolls))'],
    ['a failback', [failback], 'failover acts'],
  ] as const)('%s due: no decision, whatever the load', (_name, changes, why) => {
    const p = autoscaled(60, 95, ...changes);
    expect(p.autoscale).toMatchObject({ steady: false, message: `no decision while ${why}` });
    expect(p.autoscale?.decision).toBeUndefined();
    expect(p.now.kind).toBe(plan(...changes).now.kind);
  });

  it('a quiet cluster whose shrink fits: ScaleIn decided', () => {
    expect(autoscaled(10, 10).autoscale).toMatchObject({ steady: true, desiredShards: 2, decision: { direction: 'ScaleIn' } });
  });

  it('a quiet cluster whose shrink would not fit: held by the rebalancer’s own check', () => {
    // Two kept primaries using 35 MiB each plus shard 2's 33 MiB of keys need 103 MiB; at 90% of a
    // 50 MiB maxmemory the two may use 90 MiB.
    const f = withLoad(idle(), 35, 35, 50);
    const p = planPass({
      ...f,
      autoscale: {
        ...(f.autoscale as NonNullable<PassFacts['autoscale']>),
        spec: { ...spec, scaleIn: { memoryPercent: 90 }, scaleOut: { memoryPercent: 95 } },
      },
    });
    expect(p.autoscale?.decision).toBeUndefined();
    expect(p.autoscale?.message).toMatch(/^no scale-in: shrinking to 2 shard\(s\) is held: the 2 remaining primaries would need/);
  });

  it('no autoscaling in the spec: no autoscale outcome', () => {
    expect(plan().autoscale).toBeUndefined();
  });
});
