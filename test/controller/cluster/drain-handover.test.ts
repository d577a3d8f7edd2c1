// A primary whose pod is leaving (its Node cordoned, or its pod being evicted while the rendered
// preStop hook holds it) hands its shard to an in-sync replica that stays, with the graceful
// CLUSTER FAILOVER, before it is stopped (issue 31: Valkey's own handover on SIGTERM failed about one
// stop in five on three nodes). Pure: the pass planner over observations and Kubernetes' facts.
import { describe, expect, it } from 'vitest';
import type { KubeFacts, NodeFacts, PodFacts } from '../../../src/controller/cluster/kube-facts.js';
import type { NodeObservation } from '../../../src/controller/cluster/observation.js';
import { planPass, type PassFacts } from '../../../src/controller/cluster/pass-planner.js';
import { threeByTwo } from '../../support/controller/observations.js';

// Three shards, two pods each: c-s-0 leads shard s from node N(s), c-s-1 replicates it from node N(s+1).
const NODES = ['node-a', 'node-b', 'node-c'];
const nodeOf = (s: number, o: number) => NODES[(s + o) % 3] as string;

function kube(o: { cordoned?: string[]; deleting?: { pod: string; holds: boolean } } = {}): KubeFacts {
  const pods = new Map<string, PodFacts>();
  for (let s = 0; s < 3; s++)
    for (let r = 0; r < 2; r++) {
      const pod = `c-${s}-${r}`;
      const deleting = o.deleting?.pod === pod;
      pods.set(pod, {
        pod,
        node: nodeOf(s, r),
        ...(deleting ? { deleting: '2026-12-06T18:00:00Z' } : {}),
        ...(deleting && o.deleting?.holds ? { holdsForHandover: true } : {}),
      });
    }
  const nodes = new Map<string, NodeFacts>(
    NODES.map((n) => [
      n,
      { name: n, zone: `zone-${n.slice(-1)}`, ready: 'True', outOfService: false, ...(o.cordoned?.includes(n) ? { cordoned: true } : {}) },
    ]),
  );
  return { pods, nodes };
}

const facts = (obs: NodeObservation[], k?: KubeFacts): PassFacts => ({
  shards: 3,
  replicasPerShard: 1,
  observations: obs,
  primaries: [],
  roll: [],
  rollSlotFree: true,
  ...(k ? { kube: k } : {}),
});

describe('a primary whose pod is leaving hands its shard over before it is stopped', () => {
  it('with every primary where the spread wants it and nothing cordoned, nothing moves', () => {
    expect(planPass(facts(threeByTwo(), kube())).now).toEqual({ kind: 'none' });
  });

  it('node-a cordoned: shard 0’s replica on node-b takes the primary over from c-0-0', () => {
    const plan = planPass(facts(threeByTwo(), kube({ cordoned: ['node-a'] })));
    expect(plan.now).toEqual({ kind: 'failover', on: 'c-0-1', from: 'c-0-0', shard: 0, leaving: 'its node node-a is cordoned' });
  });

  it('goes ahead while formation waits for a pod that does not answer (a drain replaces pods: formation is rarely idle)', () => {
    const plan = planPass(facts(threeByTwo({ unreachable: 'c-2-1' }), kube({ cordoned: ['node-a'] })));
    expect(plan.formation.actions).toEqual([]);
    expect(plan.now).toMatchObject({ kind: 'failover', on: 'c-0-1', from: 'c-0-0', shard: 0 });
    // The failback alone would wait: it is cleanup, and formation is busy.
    const uncordoned = planPass(facts(threeByTwo({ unreachable: 'c-2-1' }), kube()));
    expect(uncordoned.now).toEqual({ kind: 'none' });
  });

  it('a primary’s pod being evicted while its preStop hook holds it: the replica takes over; without the hook Valkey’s own handover is under way and the controller keeps out', () => {
    const held = planPass(facts(threeByTwo(), kube({ deleting: { pod: 'c-1-0', holds: true } })));
    expect(held.now).toEqual({
      kind: 'failover',
      on: 'c-1-1',
      from: 'c-1-0',
      shard: 1,
      leaving: 'its pod is being deleted (its preStop hook waits for the handover)',
    });
    expect(planPass(facts(threeByTwo(), kube({ deleting: { pod: 'c-1-0', holds: false } }))).now).toEqual({ kind: 'none' });
  });

  it('a replica not in sync is not handed the shard: the pass says why and waits (the PodDisruptionBudget holds the eviction meanwhile)', () => {
    const plan = planPass(facts(threeByTwo({ linkDown: true }), kube({ cordoned: ['node-a'] })));
    expect(plan.now).toEqual({ kind: 'none' });
    expect(plan.waiting.find((w) => w.operation === 'failback')?.reason).toContain(
      'c-0-1 takes the primary back from c-0-0 once it is in sync',
    );
  });

  it('every node cordoned (a whole pool): no pod stays, nothing moves', () => {
    expect(planPass(facts(threeByTwo(), kube({ cordoned: NODES }))).now).toEqual({ kind: 'none' });
  });

  it('without Node facts (a namespaced install) nothing is decided from where pods run', () => {
    expect(planPass(facts(threeByTwo())).now).toEqual({ kind: 'none' });
  });
});
