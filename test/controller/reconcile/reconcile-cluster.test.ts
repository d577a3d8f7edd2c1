// What stays in reconcile/ besides I/O: when to look again, and how the roll's status line is put
// together from the planner's words and what the executor found.
import { describe, expect, it } from 'vitest';
import type { ValkeyClusterStatus } from '../../../src/api/index.js';
import type { PassPlan } from '../../../src/controller/cluster/pass-planner.js';
import type { RollStep } from '../../../src/controller/cluster/roll.js';
import { previousStatus, requeue, rollStatus } from '../../../src/controller/reconcile/reconcile-cluster.js';

const timing = { progressMs: 100, resyncMs: 10_000, failedResyncMs: 60_000 };
const progress = { shard: 0, shards: 3, pod: 'c-0-1', podsDone: 0, podsTotal: 6 };
const evict: RollStep = { kind: 'evict', pod: 'c-0-1', role: 'replica', progress };
const wait: RollStep = { kind: 'wait', reason: 'waiting for a roll slot (--max-concurrent-rolls)', progress };
const held: RollStep = { kind: 'held', reason: 'pod c-0-1 exited at start-up: x', pod: 'c-0-1', progress };

function plan(o: Partial<PassPlan> = {}): PassPlan {
  return {
    formation: { actions: [], waiting: [], primaries: new Map() },
    now: { kind: 'none' },
    waiting: [],
    roll: { state: 'none' },
    slotsBalanced: true,
    ...o,
  };
}

const status = (state: ValkeyClusterStatus['state']): ValkeyClusterStatus => ({ state, message: '', observedGeneration: 1 });

describe('requeue: when a cluster is looked at again', () => {
  it.each([
    ['a Failed cluster: slowly (it needs a new image)', status('Failed'), plan(), timing.failedResyncMs],
    [
      'a roll in progress: soon',
      status('Updating'),
      plan({ roll: { state: 'rolling', message: '', step: evict, revision: 'r' } }),
      timing.progressMs,
    ],
    [
      'a roll waiting for its turn while a roll slot is free: soon (a migration frees up without an event)',
      status('Updating'),
      plan({ roll: { state: 'waiting', message: wait.reason, step: wait, revision: 'r' } }),
      timing.progressMs,
    ],
    [
      'a held roll: slowly (a person acts; pod and StatefulSet events wake it)',
      status('Updating'),
      plan({ roll: { state: 'held', message: held.reason, step: held, revision: 'r' } }),
      timing.failedResyncMs,
    ],
    ['a held shrink: slowly', status('Updating'), plan({ topology: { phase: 'held', message: 'x' } }), timing.failedResyncMs],
    ['slots moving: soon', status('Updating'), plan({ topology: { phase: 'moving', message: 'x' } }), timing.progressMs],
    ['an Active cluster: at the resync period', status('Active'), plan(), timing.resyncMs],
  ] as const)('%s', (_name, s, p, ms) => {
    expect(requeue(s, p, [], false, timing)).toEqual({ requeueAfterMs: ms });
  });

  it("a roll waiting only for the fleet's roll slot: at the resync period (the controller wakes it when a roll ends)", () => {
    const waiting = plan({ roll: { state: 'waiting', message: wait.reason, step: wait, revision: 'r' } });
    expect(requeue(status('Updating'), waiting, [], false, timing, true)).toEqual({ requeueAfterMs: timing.resyncMs });
    // Anything else going on keeps it looked at soon: a reload, slots moving, a formation step.
    expect(requeue(status('Updating'), waiting, ['users.acl: waiting on c-0-0'], false, timing, true)).toEqual({
      requeueAfterMs: timing.progressMs,
    });
    const moving = plan({ ...waiting, topology: { phase: 'moving', message: 'x' } });
    expect(requeue(status('Updating'), moving, [], false, timing, true)).toEqual({ requeueAfterMs: timing.progressMs });
    const forming = plan({
      ...waiting,
      formation: { actions: [{ kind: 'meet', on: 'c-0-0', target: 'c-1-0' } as never], waiting: [], primaries: new Map() },
    });
    expect(requeue(status('Updating'), forming, [], false, timing, true)).toEqual({ requeueAfterMs: timing.progressMs });
  });

  it('a reload not yet everywhere keeps an otherwise idle cluster looked at soon', () => {
    expect(requeue(status('Updating'), plan(), ['users.acl: waiting for the new file on c-0-0'], false, timing)).toEqual({
      requeueAfterMs: timing.progressMs,
    });
  });
});

describe('rollStatus: the roll line status shows', () => {
  it('a step taken: the progress alone; a step that did not happen: the progress and why', () => {
    const p = plan({ now: { kind: 'roll', step: evict }, roll: { state: 'rolling', message: '', step: evict, revision: 'r' } });
    expect(rollStatus(p, {})).toEqual({ state: 'rolling', message: 'rolling shard 1 of 3, pod c-0-1, 0 of 6 pods done', revision: 'r' });
    expect(rollStatus(p, { rollDetail: 'the eviction of c-0-1 was refused (PodDisruptionBudget); retrying' })?.message).toBe(
      'rolling shard 1 of 3, pod c-0-1, 0 of 6 pods done: the eviction of c-0-1 was refused (PodDisruptionBudget); retrying',
    );
  });

  it("a roll waiting for its turn says the planner's reason and stays 'waiting' (not in progress)", () => {
    const p = plan({
      roll: { state: 'waiting', message: 'the roll starts once the slots are spread as shards asks (x)', step: wait, revision: 'r' },
    });
    expect(rollStatus(p, {})).toEqual({
      state: 'waiting',
      message: 'rolling shard 1 of 3, pod c-0-1, 0 of 6 pods done: the roll starts once the slots are spread as shards asks (x)',
      revision: 'r',
    });
  });

  it('a held roll: why first, then how far it got', () => {
    const p = plan({ roll: { state: 'held', message: held.reason, step: held, revision: 'r' } });
    expect(rollStatus(p, {})?.message).toBe('pod c-0-1 exited at start-up: x; rolling shard 1 of 3, pod c-0-1, 0 of 6 pods done');
  });

  it('no roll due: nothing', () => {
    expect(rollStatus(plan(), {})).toBeUndefined();
  });
});

describe('previousStatus: the status a pass starts from', () => {
  const failed = status('Failed');
  it("is the object's status when it shows one", () => {
    expect(previousStatus({ ...status('Creating') }, 'u1', { uid: 'u1', status: failed })).toMatchObject({ state: 'Creating' });
  });
  it('is what this process wrote when the object does not show its write yet (the watch is behind)', () => {
    expect(previousStatus(undefined, 'u1', { uid: 'u1', status: failed })).toBe(failed);
  });
  it('is nothing for a cluster re-created under the same name, or one this process never wrote', () => {
    expect(previousStatus(undefined, 'u2', { uid: 'u1', status: failed })).toBeUndefined();
    expect(previousStatus(undefined, 'u1', undefined)).toBeUndefined();
    expect(previousStatus(undefined, undefined, { uid: 'u1', status: failed })).toBeUndefined();
  });
});
