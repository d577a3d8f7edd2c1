import { describe, expect, it } from 'vitest';
import type { KubeFacts, NodeFacts } from '../../../src/controller/cluster/kube-facts.js';
import { judgeLostPrimaries, recordSight, type LastSight } from '../../../src/controller/cluster/lost-primaries.js';
import type { NodeObservation, Replication } from '../../../src/controller/cluster/observation.js';
import { planPass } from '../../../src/controller/cluster/pass-planner.js';
import { answeredPod, fixtureIp, fixtureNodeId, threeByTwoNodes } from '../../support/controller/observations.js';

/**
 * Three shards, one replica each; node-c held the primaries of shards 0 and 2 (the issue's c1
 * layout) and is gone: only shard 1's primary answers, one of three.
 */
const id = fixtureNodeId;
const DEAD = [
  [0, 0],
  [2, 0],
] as const;
const isDead = (s: number, o: number) => DEAD.some(([a, b]) => a === s && b === o);

function view(me: [number, number], opts: { linkToDead?: 'connected' | 'disconnected'; deadFlag?: string } = {}): string {
  return threeByTwoNodes(me, {
    flag: (s, o) => (isDead(s, o) ? (opts.deadFlag ?? 'fail?') : undefined),
    link: (s, o) => (isDead(s, o) ? (opts.linkToDead ?? 'disconnected') : 'connected'),
  });
}

const replica = (linkUp: boolean, offset = 5000, syncing = false): Replication => ({ role: 'replica', linkUp, syncing, offset });

function observations(opts: Parameters<typeof view>[1] & { replication?: (s: number) => Replication } = {}): NodeObservation[] {
  const out: NodeObservation[] = [];
  for (let s = 0; s < 3; s++)
    for (let o = 0; o < 2; o++) {
      const place = { pod: `c-${s}-${o}`, shard: s, ordinal: o, ip: fixtureIp(s, o) };
      if (isDead(s, o)) {
        out.push({ ...place, state: 'unreachable', error: 'no connection within 3000 ms' });
        continue;
      }
      out.push(
        answeredPod(place, {
          nodes: view([s, o], opts),
          clusterState: 'fail',
          replication:
            o === 0
              ? { role: 'primary', linkUp: true, syncing: false, offset: 5000 }
              : isDead(s, 0)
                ? (opts.replication?.(s) ?? replica(false))
                : replica(true),
        }),
      );
    }
  return out;
}

const NODE_OF = (s: number, o: number) => (isDead(s, o) ? 'node-c' : o === 0 ? 'node-b' : 'node-a');
const ready = (name: string, status: NodeFacts['ready'] = 'True'): NodeFacts => ({
  name,
  ready: status,
  readySince: '2026-12-06T04:00:00Z',
  outOfService: false,
});

function kube(
  opt: { nodeC?: NodeFacts | 'deleted'; deadPods?: 'present' | 'terminating' | 'gone'; nodesReadable?: boolean } = {},
): KubeFacts {
  const pods = new Map<string, { pod: string; node?: string; deleting?: string; endpoint?: { host: string; port: number } }>();
  for (let s = 0; s < 3; s++)
    for (let o = 0; o < 2; o++) {
      if (isDead(s, o) && opt.deadPods === 'gone') continue;
      pods.set(`c-${s}-${o}`, {
        pod: `c-${s}-${o}`,
        node: NODE_OF(s, o),
        endpoint: { host: `10.0.${s}.${o}`, port: 6379 },
        ...(isDead(s, o) && opt.deadPods === 'terminating' ? { deleting: '2026-12-06T04:05:00Z' } : {}),
      });
    }
  if (opt.nodesReadable === false) return { pods };
  const nodes = new Map<string, NodeFacts>([
    ['node-a', ready('node-a')],
    ['node-b', ready('node-b')],
  ]);
  const c = opt.nodeC ?? ready('node-c');
  if (c !== 'deleted') nodes.set('node-c', c);
  return { pods, nodes };
}

const inSync = new Map<string, LastSight>([
  ['c-0-1', { primaryId: id(0, 0), inSync: true }],
  ['c-2-1', { primaryId: id(2, 0), inSync: true }],
]);

const verdict = (obs: NodeObservation[], k: KubeFacts, sight: ReadonlyMap<string, LastSight> = inSync) => {
  const r = judgeLostPrimaries({ observations: obs, kube: k, lastSight: sight });
  return {
    alive: `${r.alive} of ${r.primaries}`,
    takeovers: [...r.takeovers.values()].map((t) => `${t.replica} <- ${t.deadAddress}: ${t.why}`),
    refused: r.refused,
  };
};

describe('takeover without the vote: when a lost majority of primaries may be replaced', () => {
  it.each([
    {
      name: 'node NotReady',
      k: kube({ nodeC: { ...ready('node-c', 'Unknown'), readyReason: 'NodeStatusUnknown' } }),
      why: (p: string) => `pod ${p} ran on a lost node: Node node-c is Unknown (NodeStatusUnknown) since 2026-12-06T04:00:00Z`,
    },
    { name: 'Node deleted', k: kube({ nodeC: 'deleted' }), why: (p: string) => `pod ${p} ran on a lost node: Node node-c was deleted` },
    {
      name: 'out-of-service taint',
      k: kube({ nodeC: { ...ready('node-c', 'True'), outOfService: true } }),
      why: (p: string) => `pod ${p} ran on a lost node: Node node-c has the node.kubernetes.io/out-of-service taint`,
    },
    {
      name: 'pods terminating on a Ready node',
      k: kube({ deadPods: 'terminating' }),
      why: (p: string) => `pod ${p} is being deleted (deletionTimestamp 2026-12-06T04:05:00Z, the end of its grace period)`,
    },
  ])('takes over when Kubernetes holds the pods gone: $name', ({ k, why }) => {
    expect(verdict(observations(), k)).toEqual({
      alive: '1 of 3',
      takeovers: [`c-0-1 <- 10.0.0.0:6379: ${why('c-0-0')}`, `c-2-1 <- 10.0.2.0:6379: ${why('c-2-0')}`],
      refused: [],
    });
  });

  it('takes over when no pod has the dead primary address any more (deleted, or re-created elsewhere)', () => {
    expect(verdict(observations(), kube({ deadPods: 'gone' })).takeovers).toEqual([
      'c-0-1 <- 10.0.0.0:6379: no pod has its address 10.0.0.0:6379 any more (deleted or re-created elsewhere)',
      'c-2-1 <- 10.0.2.0:6379: no pod has its address 10.0.2.0:6379 any more (deleted or re-created elsewhere)',
    ]);
  });

  it('never on a partition: the pods Running on a Ready node, only cut off from the controller', () => {
    const v = verdict(observations(), kube());
    expect(v.takeovers).toEqual([]);
    expect(v.refused).toEqual([
      `shard 0: primary ${id(0, 0).slice(0, 8)} (10.0.0.0:6379) does not answer, but pod c-0-0 on Ready Node node-c does not answer (no connection within 3000 ms): a partition, not a loss, as far as Kubernetes knows; no takeover without the vote`,
      `shard 2: primary ${id(2, 0).slice(0, 8)} (10.0.2.0:6379) does not answer, but pod c-2-0 on Ready Node node-c does not answer (no connection within 3000 ms): a partition, not a loss, as far as Kubernetes knows; no takeover without the vote`,
    ]);
  });

  it.each([
    { deadPods: 'present' as const, since: '' },
    { deadPods: 'terminating' as const, since: ' (being deleted, deletionTimestamp 2026-12-06T04:05:00Z)' },
  ])('without Nodes (a namespaced install), never while the dead primary pod is still there: $deadPods', ({ deadPods, since }) => {
    const v = verdict(observations(), kube({ nodesReadable: false, deadPods }));
    expect(v.takeovers).toEqual([]);
    expect(v.refused[0]).toBe(
      `shard 0: primary ${id(0, 0).slice(0, 8)} (10.0.0.0:6379) does not answer, but the controller cannot read Nodes (a namespaced install), so it cannot tell whether pod c-0-0${since} is lost or cut off; it takes over once Kubernetes has removed or re-created the pod (on a node known down: kubectl delete pod c-0-0 --force --grace-period=0); no takeover without the vote`,
    );
  });

  it('without Nodes, takes over once Kubernetes removed the dead primary pod (its eviction finished, no handover ran)', () => {
    expect(verdict(observations(), kube({ nodesReadable: false, deadPods: 'gone' })).takeovers).toEqual([
      'c-0-1 <- 10.0.0.0:6379: no pod has its address 10.0.0.0:6379 any more (deleted or re-created elsewhere)',
      'c-2-1 <- 10.0.2.0:6379: no pod has its address 10.0.2.0:6379 any more (deleted or re-created elsewhere)',
    ]);
  });

  it('never while the replica still has a link to the old primary', () => {
    const v = verdict(observations({ linkToDead: 'connected', deadFlag: '' }), kube({ nodeC: ready('node-c', 'False') }));
    expect(v.takeovers).toEqual([]);
    expect(v.refused[0]).toContain('but its replicas still have a link to it; waiting');
  });

  it('never from a replica that was not in sync at last sight', () => {
    const behind = new Map<string, LastSight>([['c-0-1', { primaryId: id(0, 0), inSync: false }]]);
    const v = verdict(observations(), kube({ nodeC: ready('node-c', 'False') }), behind);
    // Shard 2 has no sight kept: its replica finished its sync (offset 5000, not syncing), which is enough.
    expect(v.takeovers).toEqual([
      'c-2-1 <- 10.0.2.0:6379: pod c-2-0 ran on a lost node: Node node-c is NotReady since 2026-12-06T04:00:00Z',
    ]);
    expect(v.refused).toEqual([
      `shard 0: primary ${id(0, 0).slice(0, 8)} (10.0.0.0:6379) is gone (pod c-0-0 ran on a lost node: Node node-c is NotReady since 2026-12-06T04:00:00Z), but no replica of it was in sync at last sight; no takeover would keep its data`,
    ]);
  });

  it('with no sight kept (a controller just started), never from a replica still in its first sync', () => {
    const v = verdict(observations({ replication: () => replica(false, 0, true) }), kube({ nodeC: ready('node-c', 'False') }), new Map());
    expect(v.takeovers).toEqual([]);
  });

  it('leaves a lost minority to Valkey: its own vote promotes the replica', () => {
    // Only shard 0's primary is lost: two of three answer.
    const obs = observations().map((o) =>
      o.pod === 'c-2-0'
        ? answeredPod(
            { pod: 'c-2-0', shard: 2, ordinal: 0, ip: fixtureIp(2, 0) },
            {
              nodes: threeByTwoNodes([2, 0], {
                flag: (s, r) => (s === 0 && r === 0 ? 'fail?' : undefined),
                link: (s, r) => (s === 0 && r === 0 ? 'disconnected' : 'connected'),
              }),
              replication: { role: 'primary', linkUp: true, syncing: false, offset: 5000 },
            },
          )
        : o,
    );
    expect(verdict(obs, kube({ nodeC: ready('node-c', 'False') }))).toEqual({ alive: '2 of 3', takeovers: [], refused: [] });
  });

  it('leaves a primary the majority marked failed to formation (the FAIL flag)', () => {
    expect(verdict(observations({ deadFlag: 'fail' }), kube({ nodeC: ready('node-c', 'False') })).takeovers).toEqual([]);
  });
});

describe('the pass plans the takeovers', () => {
  const facts = (k: KubeFacts) => ({
    shards: 3,
    replicasPerShard: 1,
    observations: observations(),
    primaries: [],
    roll: [],
    rollSlotFree: true,
    kube: k,
    lastSight: inSync,
  });

  it('sends CLUSTER FAILOVER TAKEOVER to both replicas although two pods do not answer', () => {
    const plan = planPass(facts(kube({ nodeC: ready('node-c', 'Unknown') })));
    expect(plan.now).toEqual({
      kind: 'formation',
      actions: [
        { kind: 'takeover', on: 'c-0-1', deadPrimaryId: id(0, 0) },
        { kind: 'takeover', on: 'c-2-1', deadPrimaryId: id(2, 0) },
      ],
    });
  });

  it('waits, and says why, on a partition', () => {
    const plan = planPass(facts(kube()));
    expect(plan.now).toEqual({ kind: 'none' });
    expect(plan.lost?.refused).toHaveLength(2);
  });

  it('without Nodes, sends CLUSTER FAILOVER TAKEOVER once the dead primaries pods were removed', () => {
    const plan = planPass(facts(kube({ nodesReadable: false, deadPods: 'gone' })));
    expect(plan.now).toEqual({
      kind: 'formation',
      actions: [
        { kind: 'takeover', on: 'c-0-1', deadPrimaryId: id(0, 0) },
        { kind: 'takeover', on: 'c-2-1', deadPrimaryId: id(2, 0) },
      ],
    });
  });

  it('waits for a person without Kubernetes facts, as before', () => {
    const { kube: _k, ...rest } = facts(kube());
    expect(planPass(rest).now).toEqual({ kind: 'none' });
  });
});

describe('the last sight of each replica', () => {
  it('records in sync while the link is up, and keeps it once the link goes down', () => {
    const up = observations({ replication: () => replica(true) });
    const first = recordSight(new Map(), up);
    expect(first.get('c-0-1')).toEqual({ primaryId: id(0, 0), inSync: true });
    const second = recordSight(first, observations());
    expect(second.get('c-0-1')).toEqual({ primaryId: id(0, 0), inSync: true });
    const behind = recordSight(new Map(), observations({ replication: () => replica(true, 5000, true) }));
    expect(behind.get('c-0-1')).toEqual({ primaryId: id(0, 0), inSync: false });
  });
});
