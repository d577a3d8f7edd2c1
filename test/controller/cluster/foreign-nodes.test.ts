// Own, departed or foreign (issue 37): which cluster a node in the members' `CLUSTER NODES` belongs
// to, what formation does about a foreign one, and the check that the node answering at a pod's
// address is that pod. Pure; the real servers are in test/controller/foreign-node.integration.test.ts.
import { describe, expect, it } from 'vitest';
import {
  classifyNodes,
  foreignNodeMessage,
  FORMER_ID_GRACE_MS,
  formerNodeIds,
  impostorReason,
  ownNodeHistory,
} from '../../../src/controller/cluster/foreign-nodes.js';
import { planFormation, type FormationAction } from '../../../src/controller/cluster/formation.js';
import { isMyself } from '../../../src/controller/cluster/cluster-view.js';
import type { Member } from '../../../src/controller/cluster/observation.js';
import { parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

const identity = { cluster: 'a', namespace: 'team' };
const host = (pod: string, cluster = 'a', ns = 'team') => `${pod}.${cluster}.${ns}.svc.cluster.local`;

interface Node {
  id: string;
  port: number;
  /** Announced hostname; `null`: none. Default: the pod's. */
  hostname?: string | null;
  pod?: string;
  primary?: string;
  slots?: string;
  flags?: readonly string[];
}

function line(n: Node, myself: boolean): string {
  const hostname = n.hostname === undefined ? (n.pod ? host(n.pod) : null) : n.hostname;
  const flags = [myself ? 'myself' : '', n.primary ? 'slave' : 'master', ...(n.flags ?? [])].filter(Boolean).join(',');
  const address = `127.0.0.1:${n.port}@${n.port + 10000}${hostname ? `,${hostname}` : ''}`;
  return `${n.id} ${address} ${flags} ${n.primary ?? '-'} 0 0 1 connected ${n.slots ?? ''}`.trim();
}

/** A member: pod `a-<shard>-<ordinal>` whose view is itself and `others`. */
function member(self: Node & { pod: string }, others: Node[]): Member {
  const [, shard, ordinal] = /^a-(\d+)-(\d+)$/.exec(self.pod) ?? [];
  return {
    pod: self.pod,
    shard: Number(shard),
    ordinal: Number(ordinal),
    endpoint: { host: '127.0.0.1', port: self.port, busPort: self.port + 10000 },
    view: parseClusterNodes([line(self, true), ...others.map((o) => line(o, false))].join('\n')),
  };
}

// A formed 1-shard cluster: primary p0 (a-0-0) with all slots, replica r0 (a-0-1).
const p0 = { id: 'p0', port: 7000, pod: 'a-0-0', slots: '0-16383' };
const r0 = { id: 'r0', port: 7001, pod: 'a-0-1', primary: 'p0' };

const classify = (others: Node[], o: { allPodsObserved?: boolean; announce?: boolean; identity?: boolean } = {}) => {
  const strip = (n: Node): Node => (o.announce === false ? { ...n, hostname: null } : n);
  const members = [member(strip(p0) as typeof p0, [strip(r0), ...others]), member(strip(r0) as typeof r0, [strip(p0), ...others])];
  const c = classifyNodes(members, o.identity === false ? undefined : identity, o.allPodsObserved ?? true);
  const kind = (id: string) => (c.own.has(id) ? 'own' : c.departed.has(id) ? 'departed' : c.foreign.has(id) ? 'foreign' : 'unlisted');
  return { c, kind };
};

describe('which cluster a node belongs to', () => {
  it.each([
    [
      'a replaced pod’s old node (this cluster’s hostname, failed)',
      { id: 'old', port: 7009, hostname: host('a-0-1'), flags: ['fail'] },
      {},
      'departed',
    ],
    ['a retired shard’s node, still alive', { id: 'ret', port: 7030, hostname: host('a-3-0'), slots: '' }, {}, 'departed'],
    ['a node of another cluster in the same namespace', { id: 'b0', port: 7100, hostname: host('b-0-0', 'b') }, {}, 'foreign'],
    [
      'a node of a cluster of the same name in another namespace',
      { id: 'x0', port: 7100, hostname: host('a-0-0', 'a', 'other') },
      {},
      'foreign',
    ],
    [
      'a hostname that only starts like a pod of this cluster',
      { id: 'x1', port: 7100, hostname: 'a-0-0.a.teamz.svc.cluster.local' },
      {},
      'foreign',
    ],
    ['a node of another cluster holding slots', { id: 'b1', port: 7100, hostname: host('b-0-0', 'b'), slots: '0-100' }, {}, 'foreign'],
    [
      'no hostname, while this cluster’s nodes announce theirs and every pod answered',
      { id: 'n0', port: 7100, hostname: null },
      {},
      'foreign',
    ],
    [
      'no hostname, while a pod of this cluster did not answer (it may be that pod)',
      { id: 'n1', port: 7100, hostname: null },
      { allPodsObserved: false },
      'departed',
    ],
    [
      'no hostname in a cluster whose nodes announce none (cannot tell)',
      { id: 'n2', port: 7100, hostname: null },
      { announce: false },
      'departed',
    ],
    [
      'another cluster’s hostname, but no identity given (the planner as before)',
      { id: 'b2', port: 7100, hostname: host('b-0-0', 'b') },
      { identity: false },
      'departed',
    ],
  ] as const)('%s: %s', (_, node, opts, expected) => {
    const { kind } = classify([node], opts);
    expect(kind(node.id)).toBe(expected);
    expect(kind('p0')).toBe('own');
    expect(kind('r0')).toBe('own');
  });

  it('leaves a node in handshake alone (a MEET under way has a random id until it answers)', () => {
    const { kind } = classify([{ id: 'hs', port: 7100, hostname: null, flags: ['handshake'] }]);
    expect(kind('hs')).toBe('unlisted');
  });

  it('says where a foreign node is and what it claims', () => {
    const { c } = classify([{ id: 'b1', port: 7100, hostname: host('b-0-0', 'b'), slots: '0-100' }]);
    const message = foreignNodeMessage(c.foreign.get('b1')!);
    expect(message).toBe(
      'a node of another cluster at 127.0.0.1:7100 (id b1, hostname b-0-0.b.team.svc.cluster.local, flags master, slots 0-100) is in this ' +
        "cluster's node tables; it is forgotten on every node that lists it and never met; it claims slots: they are not moved to it, and " +
        "once it is forgotten the cluster's own primaries take back the ones of their range that no member holds",
    );
  });
});

const describeActions = (actions: readonly FormationAction[]): string[] =>
  actions.map((a) =>
    a.kind === 'forget'
      ? `forget ${a.nodeId} on ${a.on}`
      : a.kind === 'meet'
        ? `meet ${a.target} on ${a.on}`
        : a.kind === 'addSlots'
          ? `addSlots on ${a.on}`
          : a.kind === 'replicate'
            ? `replicate on ${a.on}`
            : `takeover on ${a.on}`,
  );

describe('formation with a node of another cluster in the tables', () => {
  const b0 = { id: 'b0', port: 7100, hostname: host('b-0-0', 'b') };

  it('forgets it on every member that lists it, in one pass, and does nothing else while it is there', () => {
    // A new replica a-0-2 not met yet: without the foreign node, formation would meet it.
    const r2 = { id: 'r2', port: 7002, pod: 'a-0-2' };
    const members = [member(p0, [r0, b0]), member(r0, [p0, b0]), member(r2, [])];
    const plan = planFormation({ shards: 1, members, allPodsObserved: true, identity });
    expect(describeActions(plan.actions)).toEqual(['forget b0 on a-0-0', 'forget b0 on a-0-1']);
    expect(plan.foreign?.map((f) => f.node.id)).toEqual(['b0']);
    expect(plan.waiting).toEqual([expect.stringContaining('a node of another cluster at 127.0.0.1:7100 (id b0')]);
    // Without the identity (the planner before issue 37) it was a departed node waiting to fail, and
    // the meet went ahead: the foreign node's cluster would have reached the new member by gossip.
    const before = planFormation({ shards: 1, members, allPodsObserved: true });
    expect(describeActions(before.actions)).toEqual(['meet a-0-2 on a-0-0']);
    expect(before.foreign).toBeUndefined();
  });

  it('never lets a replica fail over to it, never assigns slots under it; a replica of it is named, not asked to forget it', () => {
    // The merge already happened: a-0-1 replicates b0, which holds slots 0-100 that a-0-0 lost.
    const bWithSlots = { ...b0, slots: '0-100' };
    const p0Left = { ...p0, slots: '101-16383' };
    const r0OfB = { ...r0, primary: 'b0' };
    const members = [member(p0Left, [r0OfB, bWithSlots]), member(r0OfB, [p0Left, bWithSlots])];
    const plan = planFormation({ shards: 1, members, allPodsObserved: true, identity });
    expect(describeActions(plan.actions)).toEqual(['forget b0 on a-0-0']);
    expect(plan.waiting[0]).toContain('a-0-1 replicate it and cannot forget it');
  });

  it('once it is forgotten everywhere, the slots it held go back to the shard primary of their range', () => {
    const p0Left = { ...p0, slots: '101-16383' };
    const members = [member(p0Left, [r0]), member(r0, [p0Left])];
    const plan = planFormation({ shards: 1, members, allPodsObserved: true, identity });
    expect(plan.actions).toEqual([{ kind: 'addSlots', on: 'a-0-0', ranges: [[0, 100]] }]);
  });

  it('a departed primary of this cluster is still taken over by its replica, not forgotten as foreign', () => {
    const dead = { id: 'p0', port: 7000, hostname: host('a-0-0'), slots: '0-16383', flags: ['fail'] };
    const newPod = { id: 'p0new', port: 7010, pod: 'a-0-0' };
    const members = [member(newPod, []), member(r0, [dead])];
    const plan = planFormation({ shards: 1, members, allPodsObserved: true, identity });
    expect(plan.foreign).toBeUndefined();
    expect(describeActions(plan.actions)).toEqual(['meet a-0-0 on a-0-1', 'takeover on a-0-1']);
  });
});

// Valkey sends a node's hostname only in that node's own pings, never in gossip about it (measured on
// 9.1.2: a node met after another died lists the dead one with no hostname). In a node-pool upgrade
// every pod is replaced in turn, and the members that heard a departed node themselves go too.
describe('a departed node of this cluster known only from gossip (no hostname)', () => {
  // Both pods of shard 0 were replaced: a-0-0 is p0new (the primary now), a-0-1 is r0new, not met
  // yet. The old replica r0 died a moment ago: p0new learned it from gossip, so without a hostname,
  // and no node has flagged it yet.
  const p0new = { id: 'p0new', port: 7010, pod: 'a-0-0', slots: '0-16383' };
  const r0new = { id: 'r0new', port: 7011, pod: 'a-0-1' };
  const r0gossip = { id: 'r0', port: 7001, hostname: null };
  const members = [member(p0new, [r0gossip]), member(r0new, [])];
  // What status recorded: a-0-1 had r0 before (a-0-0's nodeId was p0 then).
  const history = ownNodeHistory({
    nodes: [
      { pod: 'a-0-0', shard: 0, role: 'primary', nodeId: 'p0', health: 'online' },
      { pod: 'a-0-1', shard: 0, role: 'replica', nodeId: 'r0', health: 'online' },
    ],
  });

  it('is departed, not foreign, when status recorded its id for a pod of this cluster', () => {
    const c = classifyNodes(members, identity, true, history);
    expect([...c.departed.keys()]).toEqual(['r0']);
    expect(c.foreign.size).toBe(0);
  });

  it('formation goes on (meets the new pod) and forgets it only once the cluster marks it failed', () => {
    const plan = planFormation({ shards: 1, members, allPodsObserved: true, identity, history });
    expect(plan.foreign).toBeUndefined();
    expect(describeActions(plan.actions)).toEqual(['meet a-0-1 on a-0-0']);
    expect(plan.waiting).toEqual([
      'node r0 (127.0.0.1:7001) belongs to no pod; it is forgotten once the cluster marks it failed',
      'pod a-0-1 does not know its primary a-0-0 yet',
    ]);
    // Without the record it is taken for another cluster's node: forgotten at once, a ForeignNode
    // Warning, and formation stopped (the new pod is not met).
    const blind = planFormation({ shards: 1, members, allPodsObserved: true, identity });
    expect(blind.foreign?.map((f) => f.node.id)).toEqual(['r0']);
    expect(describeActions(blind.actions)).toEqual(['forget r0 on a-0-0']);
  });

  it('a recorded id that announces another cluster’s hostname is still foreign (what the node says now wins)', () => {
    const claimed = { id: 'r0', port: 7001, hostname: host('b-0-0', 'b') };
    const c = classifyNodes([member(p0new, [claimed]), member(r0new, [])], identity, true, history);
    expect([...c.foreign.keys()]).toEqual(['r0']);
  });

  it('an id no pod of this cluster had, with no hostname, is foreign as before', () => {
    const stranger = { id: 'zz', port: 7100, hostname: null };
    const c = classifyNodes([member(p0new, [stranger]), member(r0new, [])], identity, true, history);
    expect([...c.foreign.keys()]).toEqual(['zz']);
  });
});

describe('the record of this cluster’s node ids in status', () => {
  const p0new = { id: 'p0new', port: 7010, pod: 'a-0-0', slots: '0-16383' };
  const r0now = { id: 'r0', port: 7001, pod: 'a-0-1', primary: 'p0new' };

  it('takes each pod’s nodeId and formerNodeIds from every status given (shown and last written)', () => {
    const shown = { nodes: [{ pod: 'a-0-0', shard: 0, role: 'primary' as const, nodeId: 'p0', health: 'online' as const }] };
    const written = {
      nodes: [{ pod: 'a-0-0', shard: 0, role: 'primary' as const, nodeId: 'p0new', formerNodeIds: ['old'], health: 'online' as const }],
    };
    expect([...ownNodeHistory(shown, undefined, written)]).toEqual([
      ['p0', 'a-0-0'],
      ['p0new', 'a-0-0'],
      ['old', 'a-0-0'],
    ]);
  });

  it('keeps a replaced pod’s old id while a node lists it, and drops it once none does', () => {
    const history = new Map([
      ['p0', 'a-0-0'],
      ['p0new', 'a-0-0'],
      ['r0', 'a-0-1'],
      ['gone', 'a-0-1'],
    ]);
    const p0dead = { id: 'p0', port: 7000, hostname: null, flags: ['fail'] };
    const members = [member(p0new, [r0now, p0dead]), member(r0now, [p0new])];
    const both = [
      ['a-0-0', ['p0']],
      ['a-0-1', ['gone']],
    ];
    const unlistedSince = new Map<string, number>();
    const at = (nowMs: number, observed = true) => [...formerNodeIds(history, members, observed, { unlistedSince, nowMs })];
    // No node lists `gone` now, but one pass is not proof: a pod re-created since, or one whose
    // FORGET ban ran out, can learn it again by gossip. It is kept for the grace period...
    expect(at(1_000)).toEqual(both);
    expect(at(1_000 + FORMER_ID_GRACE_MS - 1)).toEqual(both);
    // ...and dropped once no node has listed it for that long.
    expect(at(1_000 + FORMER_ID_GRACE_MS)).toEqual([['a-0-0', ['p0']]]);
    // A pod did not answer: it may still list `gone`, which would come back by its gossip.
    expect(at(2 * FORMER_ID_GRACE_MS, false)).toEqual(both);
    // Listed again (or a pod unanswered) restarts the grace: the id is kept a whole period more.
    expect(at(2 * FORMER_ID_GRACE_MS + 1)).toEqual(both);
    expect(at(3 * FORMER_ID_GRACE_MS)).toEqual(both);
    expect(at(3 * FORMER_ID_GRACE_MS + 1)).toEqual([['a-0-0', ['p0']]]);
    // A controller restart (no memory) starts the grace again: an id is only ever kept longer.
    expect([...formerNodeIds(history, members, true, { unlistedSince: new Map(), nowMs: 9 * FORMER_ID_GRACE_MS })]).toEqual(both);
  });
});

describe('the node at a pod’s address is that pod', () => {
  const self = (hostname: string | null) => parseClusterNodes(line({ id: 'x', port: 7000, hostname }, true)).find(isMyself);
  it.each([
    ['its own hostname', host('a-0-1'), undefined],
    ['its own hostname under another cluster domain', 'a-0-1.a.team.svc.example.internal', undefined],
    ['no hostname (a server started without one)', null, undefined],
    ['another cluster’s pod', host('b-0-0', 'b'), 'announces hostname "b-0-0.b.team.svc.cluster.local", not a-0-1.a.team.svc'],
    ['another pod of this cluster', host('a-0-10'), 'announces hostname "a-0-10.a.team.svc.cluster.local"'],
  ] as const)('%s', (_, hostname, expected) => {
    const reason = impostorReason('a-0-1', self(hostname), identity);
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toContain(expected);
  });
});
