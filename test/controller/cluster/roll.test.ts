import { describe, expect, it } from 'vitest';
import {
  describeProgress,
  planRoll,
  rollUnderWay,
  startupProblemMessage,
  type RollInput,
  type RollPod,
  type RollShard,
} from '../../../src/controller/cluster/roll.js';

const OLD = 'c-0-old';
const NEW = 'c-0-new';

function pod(shard: number, ordinal: number, o: Partial<RollPod> = {}): RollPod {
  return {
    pod: `c-${shard}-${ordinal}`,
    shard,
    ordinal,
    revision: OLD,
    ready: true,
    terminating: false,
    node: { state: 'answered', role: ordinal === 0 ? 'primary' : 'replica', inSync: true },
    ...o,
  };
}

function shard(n: number, pods: RollPod[], o: Partial<RollShard> = {}): RollShard {
  return { shard: n, updateRevision: NEW, observed: true, allowDataLoss: false, replicas: pods.length, pods, ...o };
}

const input = (shards: RollShard[], o: Partial<RollInput> = {}): RollInput => ({ shards, clusterProblems: [], mayStart: true, ...o });
const two = (n: number, o: [Partial<RollPod>, Partial<RollPod>] = [{}, {}]) => shard(n, [pod(n, 0, o[0]), pod(n, 1, o[1])]);

describe('planRoll', () => {
  it('nothing to do when every pod runs the update revision', () => {
    expect(planRoll(input([two(0, [{ revision: NEW }, { revision: NEW }])])).kind).toBe('none');
  });

  it('evicts a replica of the first shard first, with the progress in words', () => {
    const step = planRoll(input([two(0), two(1), two(2)]));
    expect(step).toMatchObject({ kind: 'evict', pod: 'c-0-1', role: 'replica' });
    expect(step.kind !== 'none' && describeProgress(step.progress)).toBe('rolling shard 1 of 3, pod c-0-1, 0 of 6 pods done');
  });

  it("a bad image's pod after git went back (or forward): the pod that cannot run its older revision is replaced first, though the cluster is not whole", () => {
    // c-0-1 ran the bad revision, which is no longer the update revision; the rest run the one git went back to.
    const broken = { revision: 'c-0-bad', ready: false, containerProblem: 'pod c-0-1 exited at start-up: FATAL CONFIG FILE ERROR' };
    const back = [shard(0, [pod(0, 0, { revision: NEW }), pod(0, 1, broken)]), two(1, [{ revision: NEW }, { revision: NEW }])];
    expect(planRoll(input(back, { mayStart: false }))).toMatchObject({ kind: 'evict', pod: 'c-0-1', role: 'broken' });
    // Refused by the version gate is the same: it serves nothing.
    const refused = { revision: 'c-0-bad', ready: false, node: { state: 'rejected' as const, found: 'valkey_version 8.0.1' } };
    expect(planRoll(input([shard(0, [pod(0, 0, { revision: NEW }), pod(0, 1, refused)])]))).toMatchObject({
      kind: 'evict',
      pod: 'c-0-1',
      role: 'broken',
    });
    // A pod of the update revision that cannot run it still holds the roll (a bad image costs one pod).
    const held = planRoll(input([shard(0, [pod(0, 0), pod(0, 1, { ...broken, revision: NEW })])]));
    expect(held).toMatchObject({ kind: 'held', pod: 'c-0-1' });
  });

  it('fails over to the in-sync replica of the new revision before the primary is touched', () => {
    const step = planRoll(input([two(0, [{}, { revision: NEW }]), two(1)]));
    expect(step).toMatchObject({ kind: 'failover', on: 'c-0-1', from: 'c-0-0' });
  });

  it('evicts the old primary once it has become a replica, then moves to the next shard', () => {
    const swapped = two(0, [
      { node: { state: 'answered', role: 'replica', inSync: true } },
      { revision: NEW, node: { state: 'answered', role: 'primary', inSync: true } },
    ]);
    expect(planRoll(input([swapped, two(1)]))).toMatchObject({ kind: 'evict', pod: 'c-0-0', role: 'replica' });
    const done = two(0, [{ revision: NEW }, { revision: NEW }]);
    const step = planRoll(input([done, two(1)]));
    expect(step).toMatchObject({ kind: 'evict', pod: 'c-1-1' });
    expect(step.kind !== 'none' && describeProgress(step.progress)).toBe('rolling shard 2 of 2, pod c-1-1, 2 of 4 pods done');
  });

  it('waits while a returned pod is not ready, not answering, or not in sync; or a pod is missing', () => {
    for (const o of [
      { ready: false },
      { terminating: true },
      { node: { state: 'absent' as const, reason: 'does not answer' } },
      { node: { state: 'answered' as const, role: 'replica' as const, inSync: false } },
    ]) {
      expect(planRoll(input([two(0, [{}, { revision: NEW, ...o }])])).kind).toBe('wait');
    }
    expect(planRoll(input([shard(0, [pod(0, 0)], { replicas: 2 })])).kind).toBe('wait');
    expect(planRoll(input([two(0)], { clusterProblems: ['1 formation step(s) in progress'] })).kind).toBe('wait');
  });

  it('never fails over to a replica that is behind or still on the old revision', () => {
    expect(planRoll(input([two(0, [{}, { revision: NEW, node: { state: 'answered', role: 'replica', inSync: false } }])])).kind).toBe(
      'wait',
    );
  });

  it('holds the roll, naming the pod, when a pod of the new revision fails the version gate or exits at start-up', () => {
    const rejected = planRoll(input([two(0, [{}, { revision: NEW, node: { state: 'rejected', found: 'valkey_version 8.0.1' } }])]));
    expect(rejected).toMatchObject({ kind: 'held', pod: 'c-0-1' });
    expect(rejected.kind === 'held' && rejected.reason).toBe('pod c-0-1 of the new revision runs valkey_version 8.0.1');
    const crashed = planRoll(
      input([
        two(0, [
          {},
          { revision: NEW, ready: false, containerProblem: 'pod c-0-1 exited at start-up: x', node: { state: 'absent', reason: 'no' } },
        ]),
      ]),
    );
    expect(crashed).toMatchObject({ kind: 'held', pod: 'c-0-1', reason: 'pod c-0-1 exited at start-up: x' });
  });

  it('holds a shard with no replica until the opt-in, then evicts its primary', () => {
    const lone = (allowDataLoss: boolean) => input([shard(0, [pod(0, 0)], { allowDataLoss })]);
    expect(planRoll(lone(false))).toMatchObject({ kind: 'held', pod: 'c-0-0' });
    expect(planRoll(lone(false)).kind === 'held' && (planRoll(lone(false)) as { reason: string }).reason).toMatch(
      /no replica.*lose its data.*opt-in/,
    );
    expect(planRoll(lone(true))).toMatchObject({ kind: 'evict', pod: 'c-0-0', role: 'primary' });
  });

  it('a roll that has not started waits for a fleet slot; one that has started goes on', () => {
    expect(planRoll(input([two(0)], { mayStart: false }))).toMatchObject({ kind: 'wait', reason: expect.stringMatching(/roll slot/) });
    expect(planRoll(input([two(0, [{}, { revision: NEW }])], { mayStart: false })).kind).toBe('failover');
  });

  it('waits until the StatefulSet controller has observed the new spec', () => {
    expect(planRoll(input([shard(0, [pod(0, 0), pod(0, 1)], { observed: false })])).kind).toBe('wait');
  });
});

describe('startupProblemMessage', () => {
  it("names the pod, quotes the server's error and says a binary refusing cluster|syncslots is older than 9.0", () => {
    const log = [
      '1:C 01 Dec 2026 03:00:00.000 * Valkey version=8.0.1, bits=64',
      "1:M 01 Dec 2026 03:00:00.001 # /etc/valkey/conf/users.acl:2: Error in applying operation '+cluster|syncslots': Unknown command",
      '1:M 01 Dec 2026 03:00:00.001 # Aborting Valkey startup because of ACL errors',
    ].join('\n');
    expect(startupProblemMessage('c-0-2', log)).toMatch(
      /^pod c-0-2 exited at start-up: .*Unknown command.*Aborting Valkey startup.* \(the binary is older than Valkey 9\.0\)$/,
    );
  });

  it("quotes a refused config line whole (heading, line, directive, reason), and says 9.0's shutdown-on-sigterm failover refused means older than 9.0", () => {
    const log =
      "\n*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***\nReading the configuration file, at line 7\n>>> 'shutdown-on-sigterm failover'\nargument(s) must be one of the following: default, save, nosave, now, force";
    expect(startupProblemMessage('c-0-2', log)).toBe(
      "pod c-0-2 exited at start-up: *** FATAL CONFIG FILE ERROR (Version 8.0.1) *** / Reading the configuration file, at line 7 / >>> 'shutdown-on-sigterm failover' / argument(s) must be one of the following: default, save, nosave, now, force (the binary is older than Valkey 9.0)",
    );
  });

  describe('rollUnderWay: whether the roll has begun (then it needs no roll slot and keeps its turn)', () => {
    const done = (n: number) => two(n, [{ revision: NEW }, { revision: NEW }]);
    it.each([
      ['every pod outdated: not begun', [two(0), two(1)], false],
      ['the first shard has a pod of the new revision', [two(0, [{}, { revision: NEW }]), two(1)], true],
      ['the first shard is missing the pod evicted last pass', [shard(0, [pod(0, 0)], { replicas: 2 }), two(1)], true],
      ['a pod of the first shard is terminating', [two(0, [{}, { terminating: true }]), two(1)], true],
      ['an earlier shard was rolled', [done(0), two(1)], true],
      ['only a new shard, created at the new revision, is current', [two(0), two(1), done(2)], false],
      ['nothing outdated: no roll', [done(0), done(1)], false],
    ] as const)('%s', (_name, shards, expected) => {
      expect(rollUnderWay(shards)).toBe(expected);
    });
  });
});
