import { describe, expect, it } from 'vitest';
import { planFormation, type FormationAction } from '../../../src/controller/cluster/formation.js';
import type { Member } from '../../../src/controller/cluster/observation.js';
import { parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

/**
 * A small model of a cluster as its nodes see it. Pods (members) get views generated from the
 * model: themselves as `myself`, plus every node they know, with that node's role, slots and
 * whether the cluster marked it failed. Nodes without a pod are gone (replaced pods).
 */
interface ModelNode {
  id: string;
  pod?: string;
  shard?: number;
  ordinal?: number;
  port: number;
  primary?: string;
  slots?: string;
  failed?: boolean;
  /** Ids this node knows; default: every node of the model that is in the cluster (no `knows`). */
  knows?: string[];
  /** Address the others have on record, if not its current one (a pod that moved). */
  recordedPort?: number;
}

function line(n: ModelNode, myself: boolean, port = n.port): string {
  const flags = [myself ? 'myself' : '', n.primary ? 'slave' : 'master', n.failed ? 'fail' : ''].filter(Boolean).join(',');
  return `${n.id} 127.0.0.1:${port}@${port + 10000} ${flags} ${n.primary ?? '-'} 0 0 1 connected ${n.slots ?? ''}`.trim();
}

function members(model: ModelNode[]): Member[] {
  return model
    .filter((n) => n.pod !== undefined)
    .map((n) => {
      // By default a node knows every node that is part of the cluster (has no `knows` of its own).
      const known = model.filter((o) => o !== n && (n.knows ? n.knows.includes(o.id) : o.knows === undefined));
      const view = parseClusterNodes([line(n, true), ...known.map((o) => line(o, false, o.recordedPort ?? o.port))].join('\n'));
      return {
        pod: n.pod as string,
        shard: n.shard as number,
        ordinal: n.ordinal as number,
        endpoint: { host: '127.0.0.1', port: n.port, busPort: n.port + 10000 },
        view,
      };
    });
}

const isolated = (id: string, pod: string, shard: number, ordinal: number, port: number): ModelNode => ({
  id,
  pod,
  shard,
  ordinal,
  port,
  knows: [],
});

/** A formed cluster: `shards` primaries `p<s>` with replicas `r<s>_<i>`, everyone knows everyone. */
function formed(shards: number, replicas: number): ModelNode[] {
  const ranges: Record<number, string[]> = { 1: ['0-16383'], 2: ['0-8191', '8192-16383'], 3: ['0-5460', '5461-10922', '10923-16383'] };
  const model: ModelNode[] = [];
  for (let s = 0; s < shards; s++) {
    model.push({ id: `p${s}`, pod: `c-${s}-0`, shard: s, ordinal: 0, port: 7000 + s * 10, slots: ranges[shards]?.[s] as string });
    for (let r = 1; r <= replicas; r++)
      model.push({ id: `r${s}_${r}`, pod: `c-${s}-${r}`, shard: s, ordinal: r, port: 7000 + s * 10 + r, primary: `p${s}` });
  }
  return model;
}

const kinds = (actions: FormationAction[]): string[] =>
  actions.map((a) => {
    switch (a.kind) {
      case 'forget':
        return `forget ${a.nodeId} on ${a.on}`;
      case 'meet':
        return `meet ${a.target} on ${a.on}`;
      case 'addSlots':
        return `addSlots ${a.ranges.map(([x, y]) => `${x}-${y}`).join(',')} on ${a.on}`;
      case 'replicate':
        return `replicate ${a.primaryPod} on ${a.on}`;
      case 'takeover':
        return `takeover from ${a.deadPrimaryId} on ${a.on}`;
      default:
        throw new Error(`an action this test does not know: ${JSON.stringify(a)}`);
    }
  });

describe('planFormation', () => {
  it('a new cluster: the first primary meets everyone and each shard primary takes its slots', () => {
    const model = [0, 1, 2].flatMap((s) => [
      isolated(`p${s}`, `c-${s}-0`, s, 0, 7000 + s * 10),
      isolated(`r${s}`, `c-${s}-1`, s, 1, 7001 + s * 10),
    ]);
    const plan = planFormation({ shards: 3, members: members(model), allPodsObserved: true });
    expect(kinds(plan.actions)).toEqual([
      'meet c-0-1 on c-0-0',
      'meet c-1-0 on c-0-0',
      'meet c-1-1 on c-0-0',
      'meet c-2-0 on c-0-0',
      'meet c-2-1 on c-0-0',
      'addSlots 0-5460 on c-0-0',
      'addSlots 5461-10922 on c-1-0',
      'addSlots 10923-16383 on c-2-0',
    ]);
    expect([...plan.primaries]).toEqual([
      [0, 'c-0-0'],
      [1, 'c-1-0'],
      [2, 'c-2-0'],
    ]);
    expect(plan.waiting).toContain('pod c-0-1 does not know its primary c-0-0 yet');
  });

  it('the order pods arrive in does not matter', () => {
    const model = formed(2, 1).map((n) => ({ ...n, slots: undefined, primary: undefined, knows: [] }));
    const forward = planFormation({ shards: 2, members: members(model), allPodsObserved: true });
    const backward = planFormation({ shards: 2, members: members(model).reverse(), allPodsObserved: true });
    expect(backward).toEqual(forward);
  });

  it('once met, replicas are attached to their shard primary', () => {
    const model = formed(3, 1).map((n) => (n.primary ? { ...n, primary: undefined } : n));
    expect(kinds(planFormation({ shards: 3, members: members(model), allPodsObserved: true }).actions)).toEqual([
      'replicate c-0-0 on c-0-1',
      'replicate c-1-0 on c-1-1',
      'replicate c-2-0 on c-2-1',
    ]);
  });

  it('shards in: drained shards that the others already forgot are not met again, and a leaving node is never the anchor', () => {
    // 5 -> 3: shards 3 and 4 hold no slots; the kept nodes forgot them, but the leaving nodes still
    // know everyone (they know the most nodes, so they must not be taken to meet the others).
    const model = formed(3, 1);
    const kept = model.map((n) => n.id);
    const leaving: ModelNode[] = [
      { id: 'p3', pod: 'c-3-0', shard: 3, ordinal: 0, port: 7030, knows: [...kept, 'r3_1', 'p4', 'r4_1'] },
      { id: 'r3_1', pod: 'c-3-1', shard: 3, ordinal: 1, port: 7031, primary: 'p3', knows: [...kept, 'p3', 'p4', 'r4_1'] },
      { id: 'p4', pod: 'c-4-0', shard: 4, ordinal: 0, port: 7040, knows: [...kept, 'p3', 'r3_1', 'r4_1'] },
      { id: 'r4_1', pod: 'c-4-1', shard: 4, ordinal: 1, port: 7041, primary: 'p4', knows: [...kept, 'p3', 'r3_1', 'p4'] },
    ];
    const all = [...model.map((n) => ({ ...n, knows: kept.filter((id) => id !== n.id) })), ...leaving];
    const plan = planFormation({ shards: 3, members: members(all), allPodsObserved: true });
    expect(plan.actions).toEqual([]);
    expect(plan.waiting).toEqual([]);
  });

  it('shards in: leaving shards keep their slots while they drain (nothing assigns them elsewhere)', () => {
    const model: ModelNode[] = [
      { id: 'p0', pod: 'c-0-0', shard: 0, ordinal: 0, port: 7000, slots: '0-9000' },
      { id: 'p1', pod: 'c-1-0', shard: 1, ordinal: 0, port: 7010, slots: '9001-12000' },
      { id: 'p2', pod: 'c-2-0', shard: 2, ordinal: 0, port: 7020, slots: '12001-16383' },
    ];
    const plan = planFormation({ shards: 2, members: members(model), allPodsObserved: true });
    expect(plan.actions).toEqual([]);
    expect([...plan.primaries]).toEqual([
      [0, 'c-0-0'],
      [1, 'c-1-0'],
    ]);
  });

  it('a formed cluster needs nothing', () => {
    const plan = planFormation({ shards: 3, members: members(formed(3, 2)), allPodsObserved: true });
    expect(plan.actions).toEqual([]);
    expect(plan.waiting).toEqual([]);
  });

  it('assigns no slots while a pod does not answer (it might own some)', () => {
    const model = [isolated('a', 'c-0-0', 0, 0, 7000), isolated('b', 'c-1-0', 1, 0, 7010)];
    const plan = planFormation({ shards: 2, members: members(model), allPodsObserved: false });
    expect(kinds(plan.actions)).toEqual(['meet c-1-0 on c-0-0']);
    expect(plan.waiting).toContain('slots are not assigned while a pod does not answer');
  });

  it('a restart mid-formation finishes the job without touching slots already assigned', () => {
    const model = formed(3, 0);
    (model[2] as ModelNode).slots = '10923-12000';
    expect(kinds(planFormation({ shards: 3, members: members(model), allPodsObserved: true }).actions)).toEqual([
      'addSlots 12001-16383 on c-2-0',
    ]);
    (model[2] as ModelNode).slots = undefined;
    expect(kinds(planFormation({ shards: 3, members: members(model), allPodsObserved: true }).actions)).toEqual([
      'addSlots 10923-16383 on c-2-0',
    ]);
  });

  it('assigns exactly the slots of each range nobody owns: holes, overlaps and a range across shards', () => {
    const model = formed(3, 0);
    // c-0-0 holds two pieces of its own range and a piece of shard 1's; c-2-0 overlaps c-1-0's piece.
    (model[0] as ModelNode).slots = '100-200 300 5000-5600';
    (model[1] as ModelNode).slots = '6000-7000';
    (model[2] as ModelNode).slots = '6500-7100 16383';
    expect(kinds(planFormation({ shards: 3, members: members(model), allPodsObserved: true }).actions)).toEqual([
      'addSlots 0-99,201-299,301-4999 on c-0-0',
      'addSlots 5601-5999,7101-10922 on c-1-0',
      'addSlots 10923-16382 on c-2-0',
    ]);
  });

  it('grows a shard: a new pod is met, then attached as a replica', () => {
    const model = [...formed(2, 1), isolated('new', 'c-1-2', 1, 2, 7012)];
    expect(kinds(planFormation({ shards: 2, members: members(model), allPodsObserved: true }).actions)).toEqual(['meet c-1-2 on c-0-0']);
    const met = model.map((n) => (n.id === 'new' ? { ...n, knows: undefined } : n));
    expect(kinds(planFormation({ shards: 2, members: members(met), allPodsObserved: true }).actions)).toEqual(['replicate c-1-0 on c-1-2']);
  });

  it('a replaced replica: the dead node is forgotten everywhere, the new one met', () => {
    const model = formed(2, 1).map((n) => (n.id === 'r1_1' ? { ...n, pod: undefined, failed: true } : n));
    model.push(isolated('r1_new', 'c-1-1', 1, 1, 7031));
    const plan = planFormation({ shards: 2, members: members(model), allPodsObserved: true });
    expect(kinds(plan.actions)).toEqual(['forget r1_1 on c-0-0', 'forget r1_1 on c-0-1', 'forget r1_1 on c-1-0', 'meet c-1-1 on c-0-0']);
  });

  it('a node that belongs to no pod but is not marked failed is left alone', () => {
    const model = formed(1, 1).map((n) => (n.id === 'r0_1' ? { ...n, pod: undefined } : n));
    const plan = planFormation({ shards: 1, members: members(model), allPodsObserved: true });
    expect(plan.actions).toEqual([]);
    expect(plan.waiting).toEqual(['node r0_1 (127.0.0.1:7001) belongs to no pod; it is forgotten once the cluster marks it failed']);
  });

  it('forgets nothing while some pod does not answer (the "dead" node may be that pod)', () => {
    const model = formed(2, 1).map((n) => (n.id === 'r1_1' ? { ...n, pod: undefined, failed: true } : n));
    expect(planFormation({ shards: 2, members: members(model), allPodsObserved: false }).actions).toEqual([]);
  });

  it('a replaced primary whose replica already took over: forget it, the new pod replicates the new primary', () => {
    const model: ModelNode[] = [
      { id: 'old', port: 7000, failed: true },
      { id: 'r0', pod: 'c-0-1', shard: 0, ordinal: 1, port: 7001, slots: '0-16383' },
      { id: 'fresh', pod: 'c-0-0', shard: 0, ordinal: 0, port: 7100 },
    ];
    const plan = planFormation({ shards: 1, members: members(model), allPodsObserved: true });
    expect(kinds(plan.actions)).toEqual(['forget old on c-0-0', 'forget old on c-0-1', 'replicate c-0-1 on c-0-0']);
    expect(plan.primaries.get(0)).toBe('c-0-1');
  });

  it('a replaced primary with a replica still following it: the replica takes over, nothing is forgotten yet', () => {
    const model: ModelNode[] = [
      { id: 'old', port: 7000, failed: true, slots: '0-16383' },
      { id: 'r0', pod: 'c-0-1', shard: 0, ordinal: 1, port: 7001, primary: 'old' },
      isolated('fresh', 'c-0-0', 0, 0, 7100),
    ];
    const plan = planFormation({ shards: 1, members: members(model), allPodsObserved: true });
    expect(kinds(plan.actions)).toEqual(['meet c-0-0 on c-0-1', 'takeover from old on c-0-1']);
    expect(plan.waiting).toContain('shard 0: primary old is gone; waiting for replica c-0-1 to take over');
  });

  it('no takeover before the cluster marks the old primary failed', () => {
    const model: ModelNode[] = [
      { id: 'old', port: 7000, slots: '0-16383' },
      { id: 'r0', pod: 'c-0-1', shard: 0, ordinal: 1, port: 7001, primary: 'old' },
    ];
    expect(planFormation({ shards: 1, members: members(model), allPodsObserved: true }).actions).toEqual([]);
  });

  it('a replaced primary without replicas: forgotten first, then its slots go to the new pod', () => {
    const model: ModelNode[] = [
      { id: 'old', port: 7000, failed: true, slots: '0-8191' },
      { id: 'p1', pod: 'c-1-0', shard: 1, ordinal: 0, port: 7010, slots: '8192-16383' },
      isolated('fresh', 'c-0-0', 0, 0, 7100),
    ];
    expect(kinds(planFormation({ shards: 2, members: members(model), allPodsObserved: true }).actions)).toEqual([
      'forget old on c-1-0',
      'meet c-0-0 on c-1-0',
    ]);
    const afterForget = model.filter((n) => n.id !== 'old').map((n) => ({ ...n, knows: undefined }));
    expect(kinds(planFormation({ shards: 2, members: members(afterForget), allPodsObserved: true }).actions)).toEqual([
      'addSlots 0-8191 on c-0-0',
    ]);
  });

  it('a pod that moved (same node id, new address) is met again at the new address', () => {
    const model = formed(1, 1).map((n) => (n.id === 'r0_1' ? { ...n, port: 7201, recordedPort: 7001 } : n));
    expect(kinds(planFormation({ shards: 1, members: members(model), allPodsObserved: true }).actions)).toEqual(['meet c-0-1 on c-0-0']);
  });

  it("re-points a replica that follows another shard's primary", () => {
    const model = formed(2, 1).map((n) => (n.id === 'r1_1' ? { ...n, primary: 'p0' } : n));
    expect(kinds(planFormation({ shards: 2, members: members(model), allPodsObserved: true }).actions)).toEqual([
      'replicate c-1-0 on c-1-1',
    ]);
  });

  it('never demotes a node that holds slots: two slot holders in a shard are reported, not "fixed"', () => {
    const model: ModelNode[] = [
      { id: 'a', pod: 'c-0-0', shard: 0, ordinal: 0, port: 7000, slots: '0-8191' },
      { id: 'b', pod: 'c-0-1', shard: 0, ordinal: 1, port: 7001, slots: '8192-16383' },
    ];
    const plan = planFormation({ shards: 1, members: members(model), allPodsObserved: true });
    expect(plan.actions).toEqual([]);
    expect(plan.waiting).toEqual([
      'shard 0: pods c-0-0, c-0-1 all hold slots; c-0-0 is taken as the primary',
      'pod c-0-1 holds slots 8192-16383 but c-0-0 is the primary of shard 0',
    ]);
  });

  it('a shard with no answering pod is reported and skipped', () => {
    const plan = planFormation({ shards: 2, members: members([isolated('a', 'c-0-0', 0, 0, 7000)]), allPodsObserved: true });
    expect(kinds(plan.actions)).toEqual(['addSlots 0-8191 on c-0-0']);
    expect(plan.waiting).toEqual(['shard 1: no pod has answered yet']);
  });
});
