// A pod the scheduler cannot place, as the roll reads it: the scheduler's words reach the status,
// and a Pending pod of a revision git went back from is replaced instead of waited on for ever
// (the real-node day-2 suite's nodeSpread `required` → `bestEffort` revert found that wait).
import { describe, expect, it } from 'vitest';
import { LABELS, STATEFULSET_REVISION_LABEL } from '../../../src/api/index.js';
import type { NodeObservation } from '../../../src/controller/cluster/observation.js';
import { planRoll } from '../../../src/controller/cluster/roll.js';
import type { VersionPolicy } from '../../../src/controller/cluster/version-gate.js';
import type { Pod, StatefulSet } from '../../../src/controller/kube/types.js';
import { rollShards } from '../../../src/controller/reconcile/roll-facts.js';
import { observeNode, podPlace, schedulerRefusal } from '../../../src/controller/valkey/observe-node.js';
import { lonePrimary } from '../../support/controller/observations.js';

const REFUSED = "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: 0/1 nodes are available";

const sts = (updateRevision: string): StatefulSet =>
  ({
    metadata: { name: 'c-0', namespace: 'ns', generation: 3, labels: { [LABELS.shard]: '0' } },
    spec: { replicas: 2 },
    status: { observedGeneration: 3, updateRevision },
  }) as StatefulSet;

const running = (name: string, revision: string): Pod =>
  ({
    metadata: { name, namespace: 'ns', labels: { [LABELS.shard]: '0', [STATEFULSET_REVISION_LABEL]: revision } },
    spec: { nodeName: 'node-a' },
    status: {
      phase: 'Running',
      podIP: '10.0.0.1',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ state: { running: {} } }],
    },
  }) as unknown as Pod;

const unplaced = (name: string, revision: string, scheduled?: Record<string, string>): Pod =>
  ({
    metadata: { name, namespace: 'ns', labels: { [LABELS.shard]: '0', [STATEFULSET_REVISION_LABEL]: revision } },
    spec: {},
    status: { phase: 'Pending', conditions: scheduled ? [{ type: 'PodScheduled', ...scheduled }] : [] },
  }) as unknown as Pod;

const primary = lonePrimary();

/** What the controller observes of a pod that is not placed: no session is opened for it. */
async function observed(pod: Pod): Promise<NodeObservation> {
  const place = podPlace(pod);
  if (!place) throw new Error('no place');
  const ctx = {
    open: () => Promise.reject(new Error('a Pending pod is not dialled')),
    policy: {} as VersionPolicy,
    endpointOf: () => undefined,
  };
  return (await observeNode(pod, place, ctx)).observation;
}

describe('a pod the scheduler refused', () => {
  it("reads the scheduler's message from PodScheduled, and nothing for a pod not refused or placed", () => {
    expect(schedulerRefusal(unplaced('c-0-1', 'r', { status: 'False', reason: 'Unschedulable', message: REFUSED }))).toBe(REFUSED);
    expect(schedulerRefusal(unplaced('c-0-1', 'r', { status: 'False', reason: 'Unschedulable' }))).toBe(
      'the scheduler found no node for it',
    );
    // Not yet considered, or waiting on something other than a node (a scheduling gate).
    expect(schedulerRefusal(unplaced('c-0-1', 'r'))).toBeUndefined();
    expect(schedulerRefusal(unplaced('c-0-1', 'r', { status: 'False', reason: 'SchedulingGated' }))).toBeUndefined();
    expect(schedulerRefusal(running('c-0-0', 'r'))).toBeUndefined();
  });

  it("says why in the pod's observation, which the status carries", async () => {
    const o = await observed(unplaced('c-0-1', 'r', { status: 'False', reason: 'Unschedulable', message: REFUSED }));
    expect(o).toMatchObject({ state: 'pending', reason: `cannot be scheduled: ${REFUSED}` });
    expect(await observed(unplaced('c-0-1', 'r'))).toMatchObject({ state: 'pending', reason: 'is not scheduled on a node yet' });
  });

  it('a refused pod of the revision git went back from is replaced first; one of the update revision is waited on, with the reason', async () => {
    // nodeSpread `required` made revision c-0-req; git went back, so the update revision is c-0-old again.
    const pending = unplaced('c-0-1', 'c-0-req', { status: 'False', reason: 'Unschedulable', message: REFUSED });
    const back = rollShards({
      statefulSets: [sts('c-0-old')],
      pods: [running('c-0-0', 'c-0-old'), pending],
      observations: [primary, await observed(pending)],
    });
    expect(planRoll({ shards: back, clusterProblems: [], mayStart: false })).toMatchObject({
      kind: 'evict',
      pod: 'c-0-1',
      role: 'broken',
      why: `the scheduler cannot place it: ${REFUSED}`,
    });

    // Before the revert the refused pod is of the update revision: the roll waits and says why.
    const ahead = unplaced('c-0-1', 'c-0-req', { status: 'False', reason: 'Unschedulable', message: REFUSED });
    const forward = rollShards({
      statefulSets: [sts('c-0-req')],
      pods: [running('c-0-0', 'c-0-old'), ahead],
      observations: [primary, await observed(ahead)],
    });
    const step = planRoll({ shards: forward, clusterProblems: [], mayStart: true });
    expect(step.kind).toBe('wait');
    expect(step.kind === 'wait' && step.reason).toContain(`pod c-0-1 cannot be scheduled: ${REFUSED}`);

    // Pending but not refused (the scheduler has not looked yet): waited on, never evicted.
    const fresh = unplaced('c-0-1', 'c-0-req');
    const young = rollShards({
      statefulSets: [sts('c-0-old')],
      pods: [running('c-0-0', 'c-0-old'), fresh],
      observations: [primary, await observed(fresh)],
    });
    expect(planRoll({ shards: young, clusterProblems: [], mayStart: true }).kind).toBe('wait');
  });
});
