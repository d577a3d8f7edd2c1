import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../src/api/index.js';
import { dataLostCondition, slotsGivenEmpty } from '../../../src/controller/cluster/data-loss.js';
import type { FormationAction, FormationPlan } from '../../../src/controller/cluster/formation.js';
import type { KubeFacts, NodeFacts } from '../../../src/controller/cluster/kube-facts.js';
import { podsOnLostNodes, lostNodeMessage } from '../../../src/controller/cluster/lost-nodes.js';
import type { NodeObservation } from '../../../src/controller/cluster/observation.js';
import { buildStatus, type StatusInput } from '../../../src/controller/cluster/status.js';
import { answeredPod } from '../../support/controller/observations.js';

const T0 = '2026-12-06T05:00:00Z';
const T1 = '2026-12-06T05:10:00Z';

/** One shard, two pods; the primary at `primaryAt`. */
function shard(primaryAt: 0 | 1, down: 'none' | 'ordinal 0' = 'none'): NodeObservation[] {
  const ids = ['a'.repeat(40), 'b'.repeat(40)];
  return [0, 1].map((o): NodeObservation => {
    const place = { pod: `c-0-${o}`, shard: 0, ordinal: o, ip: `10.0.0.${o + 1}` };
    if (down === 'ordinal 0' && o === 0) return { ...place, state: 'unreachable', error: 'no connection within 3000 ms' };
    const lines = [0, 1].map((x) => {
      const primary = x === primaryAt;
      const flags = `${x === o ? 'myself,' : ''}${primary ? 'master' : 'slave'}`;
      return `${ids[x]} 10.0.0.${x + 1}:6379@16379 ${flags} ${primary ? '-' : ids[primaryAt]} 0 0 1 connected${primary ? ' 0-16383' : ''}`;
    });
    return answeredPod(place, {
      nodes: lines.join('\n'),
      replication:
        o === primaryAt
          ? { role: 'primary', linkUp: true, syncing: false, offset: 10 }
          : { role: 'replica', linkUp: true, syncing: false, offset: 10 },
    });
  });
}

function input(over: Partial<StatusInput> & { primaryAt?: 0 | 1 }): StatusInput {
  const { primaryAt = 0, ...rest } = over;
  const plan: FormationPlan = { actions: [], waiting: [], primaries: new Map([[0, `c-0-${primaryAt}`]]) };
  return {
    namespace: 'shop',
    generation: 2,
    shards: 1,
    replicasPerShard: 1,
    observations: shard(primaryAt),
    plan,
    actionErrors: [],
    now: T0,
    ...rest,
  };
}

const cond = (s: { conditions?: Condition[] }, type: string) => s.conditions?.find((c) => c.type === type);

describe('PrimaryFailback says where each primary is (issue 31, case c2)', () => {
  it('never says AtOrdinalZero while a primary is at ordinal 1 because ordinal 0 does not answer', () => {
    const previous = buildStatus(input({}));
    const s = buildStatus(
      input({ primaryAt: 1, observations: shard(1, 'ordinal 0'), previous: { ...previous, conditions: [...(previous.conditions ?? [])] } }),
    );
    expect(cond(s, 'PrimaryFailback')).toMatchObject({
      status: 'True',
      reason: 'Waiting',
      message: 'shard 0: primary c-0-1 is not at ordinal 0: c-0-0 does not answer',
    });
  });

  it('says AtChosenPods when the controller chose ordinal 1 to keep primaries spread', () => {
    const s = buildStatus(input({ primaryAt: 1, kube: { leaders: new Map([[0, 'c-0-1']]) } }));
    expect(s.state).toBe('Active');
    expect(cond(s, 'PrimaryFailback')).toMatchObject({
      status: 'False',
      reason: 'AtChosenPods',
      message:
        "Every shard's primary is where the controller chose: shard 0 leads from c-0-1, to keep the primaries spread over nodes and zones",
    });
  });
});

describe('PrimariesSpread, MajorityLost, NodeLost', () => {
  it('PrimariesSpread appears when no layout holds the guarantee and stays once it does', () => {
    const bad = buildStatus(
      input({ kube: { spread: { holds: false, reason: 'TooFewNodes', message: 'node node-a holds 3 of the 3 primaries' } } }),
    );
    expect(cond(bad, 'PrimariesSpread')).toMatchObject({ status: 'False', reason: 'TooFewNodes' });
    expect(bad.state).toBe('Active');
    const good = buildStatus(input({ previous: bad, kube: { spread: { holds: true, message: 'ok' } } }));
    expect(cond(good, 'PrimariesSpread')).toMatchObject({ status: 'True', reason: 'Spread' });
    expect(cond(buildStatus(input({ kube: { spread: { holds: true, message: 'ok' } } })), 'PrimariesSpread')).toBeUndefined();
  });

  it('MajorityLost says TakingOver or WaitingForKubernetes, with what a person can do', () => {
    const takeovers = new Map([
      ['x', { shard: 0, deadPrimaryId: 'x', deadAddress: '10.0.0.9:6379', replica: 'c-0-1', why: 'Node node-c was deleted' }],
    ]);
    const taking = buildStatus(input({ kube: { lost: { primaries: 3, alive: 1, takeovers, refused: [] } } }));
    expect(cond(taking, 'MajorityLost')).toMatchObject({
      status: 'True',
      reason: 'TakingOver',
      message:
        '1 of 3 slot-owning primaries answer, not a majority, so Valkey cannot vote a failover: shard 0: c-0-1 takes over without the vote (Node node-c was deleted)',
    });
    const refused = buildStatus(
      input({ kube: { lost: { primaries: 3, alive: 1, takeovers: new Map(), refused: ['shard 0: a partition'] } } }),
    );
    expect(cond(refused, 'MajorityLost')?.reason).toBe('WaitingForKubernetes');
    expect(cond(refused, 'MajorityLost')?.message).toContain(
      'kubectl taint node <node> node.kubernetes.io/out-of-service=nodeshutdown:NoExecute',
    );
    const back = buildStatus(input({ previous: refused, kube: { lost: { primaries: 3, alive: 3, takeovers: new Map(), refused: [] } } }));
    expect(cond(back, 'MajorityLost')).toMatchObject({ status: 'False', reason: 'MajorityBack' });
  });

  it('NodeLost names the node, since when, the pods and the command', () => {
    const nodes = new Map<string, NodeFacts>([
      ['node-a', { name: 'node-a', ready: 'True', outOfService: false }],
      ['node-b', { name: 'node-b', ready: 'Unknown', readySince: T0, readyReason: 'NodeStatusUnknown', outOfService: false }],
    ]);
    const kube: KubeFacts = {
      pods: new Map([
        ['c-0-0', { pod: 'c-0-0', node: 'node-b', deleting: T1 }],
        ['c-0-1', { pod: 'c-0-1', node: 'node-a' }],
      ]),
      nodes,
    };
    const obs = shard(1, 'ordinal 0');
    const lost = podsOnLostNodes(obs, kube);
    expect(lost.map(lostNodeMessage)).toEqual([
      `Node node-b is Unknown (NodeStatusUnknown) since ${T0}: pod(s) c-0-0 cannot be replaced until Kubernetes knows the node is gone: kubectl taint node node-b node.kubernetes.io/out-of-service=nodeshutdown:NoExecute (once the machine is off; remove the taint when it is back) or kubectl delete node node-b`,
    ]);
    const s = buildStatus(input({ primaryAt: 1, observations: obs, kube: { lostNodes: lost } }));
    expect(cond(s, 'NodeLost')).toMatchObject({ status: 'True', reason: 'PodsOnLostNode', message: lostNodeMessage(lost[0]!) });
    expect(s.message).toContain('kubectl taint node node-b');
    // Once tainted, Kubernetes replaces them itself: no command to give.
    const tainted = podsOnLostNodes(obs, {
      ...kube,
      nodes: new Map([...nodes, ['node-b', { ...nodes.get('node-b')!, outOfService: true }]]),
    });
    expect(tainted.map(lostNodeMessage)).toEqual([
      'Node node-b has the node.kubernetes.io/out-of-service taint: Kubernetes deletes pod(s) c-0-0 and their StatefulSets re-create them',
    ]);
  });
});

describe('DataLost: lost data is never reported as healthy', () => {
  const addSlots: FormationAction = { kind: 'addSlots', on: 'c-1-0', ranges: [[5461, 10922]] };
  const primaries = new Map([
    [0, 'c-0-0'],
    [1, 'c-1-0'],
  ]);

  it.each([
    { previous: undefined, lost: 0 },
    { previous: 'Creating', lost: 0 },
    { previous: 'Active', lost: 1 },
    { previous: 'Updating', lost: 1 },
  ])('slots given to an empty primary are a loss only on a cluster that ran (previous state $previous)', ({ previous, lost }) => {
    expect(slotsGivenEmpty([addSlots], primaries, previous)).toHaveLength(lost);
  });

  it('is True with the shard, the slots and when, kept until the annotation names its time, then Acknowledged', () => {
    const lost = slotsGivenEmpty([addSlots], primaries, 'Active');
    const base = { namespace: 'shop', name: 'cache', generation: 2 };
    const first = dataLostCondition({ ...base, lost, previous: undefined, acknowledged: undefined, now: T0 });
    expect(first).toEqual({
      type: 'DataLost',
      status: 'True',
      reason: 'SlotsLost',
      message: `shard 1: slots 5461-10922 (5462) were given to c-1-0, which holds none of their keys, at ${T0}; acknowledge with kubectl annotate valkeycluster -n shop cache valkey.gomomento.com/data-loss-acknowledged=${T0} --overwrite`,
      observedGeneration: 2,
    });
    const shown: Condition = { ...(first as Omit<Condition, 'lastTransitionTime'>), lastTransitionTime: T0 };
    // Kept while not acknowledged, or acknowledged with another time.
    for (const ack of [undefined, T1, 'true'])
      expect(dataLostCondition({ ...base, lost: [], previous: shown, acknowledged: ack, now: T1 })).toEqual(first);
    const acked = dataLostCondition({ ...base, lost: [], previous: shown, acknowledged: T0, now: T1 });
    expect(acked).toMatchObject({ status: 'False', reason: 'Acknowledged' });
    expect(acked?.message).toBe(
      `Acknowledged: shard 1: slots 5461-10922 (5462) were given to c-1-0, which holds none of their keys, at ${T0}`,
    );
  });

  it('an Active cluster with unacknowledged lost data says so first and is Stalled for kstatus (Flux)', () => {
    const lost = slotsGivenEmpty([addSlots], primaries, 'Active');
    const dataLost = dataLostCondition({
      namespace: 'shop',
      name: 'cache',
      generation: 2,
      lost,
      previous: undefined,
      acknowledged: undefined,
      now: T0,
    });
    const s = buildStatus(input({ kube: { ...(dataLost ? { dataLost } : {}) } }));
    expect(s.state).toBe('Active');
    expect(s.message).toMatch(/^DATA LOST \(see condition DataLost\): shard 1: slots 5461-10922/);
    expect(cond(s, 'DataLost')?.status).toBe('True');
    expect(cond(s, 'Stalled')).toMatchObject({ status: 'True', reason: 'DataLost' });
  });
});
