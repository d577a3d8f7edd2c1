import { describe, expect, it } from 'vitest';
import { optInCovers, readDataLossOptIn } from '../../../src/api/contract/data-loss-opt-in.js';
import { ANNOTATIONS, LABELS, STATEFULSET_REVISION_LABEL } from '../../../src/api/index.js';
import type { Pod, StatefulSet } from '../../../src/controller/kube/types.js';
import { planRoll } from '../../../src/controller/cluster/roll.js';
import { rollShards } from '../../../src/controller/reconcile/roll-facts.js';
import { lonePrimary } from '../../support/controller/observations.js';

const HASH = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);

describe('the data-loss opt-in, one reading', () => {
  it.each([
    [undefined, HASH, false],
    ['true', HASH, true],
    ['true', undefined, true],
    [HASH, HASH, true],
    [OTHER, HASH, false],
    [HASH, undefined, false],
    ['yes please', HASH, false],
    ['A'.repeat(64), 'A'.repeat(64), false],
  ])('%j for restart hash %j covers the roll: %j', (value, restartHash, covers) => {
    expect(optInCovers(readDataLossOptIn(value), restartHash)).toBe(covers);
  });

  it('reads what it is', () => {
    expect(readDataLossOptIn('yes please')).toEqual({ kind: 'malformed', value: 'yes please' });
    expect(readDataLossOptIn(HASH)).toEqual({ kind: 'revision', restartHash: HASH });
  });
});

/** A one-shard cluster with no replica, its one pod on the old revision: the roll is held without an opt-in. */
function loneShardRoll(stsAnnotations: Record<string, string>) {
  const sts: StatefulSet = {
    metadata: { name: 'c-0', namespace: 'ns', generation: 2, labels: { [LABELS.shard]: '0' }, annotations: stsAnnotations },
    spec: { replicas: 1, template: { metadata: { annotations: { [ANNOTATIONS.restartHash]: HASH } } } },
    status: { observedGeneration: 2, updateRevision: 'c-0-new', currentRevision: 'c-0-old' },
  } as StatefulSet;
  const pod = {
    metadata: { name: 'c-0-0', namespace: 'ns', labels: { [LABELS.shard]: '0', [STATEFULSET_REVISION_LABEL]: 'c-0-old' } },
    status: { conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ state: { running: {} } }] },
  } as unknown as Pod;
  const node = lonePrimary();
  return planRoll({ shards: rollShards({ statefulSets: [sts], pods: [pod], observations: [node] }), clusterProblems: [], mayStart: true })
    .kind;
}

describe('the controller reads the opt-in as the docs allow', () => {
  it('holds without one, rolls with "true" or the template restart hash', () => {
    expect(loneShardRoll({})).toBe('held');
    expect(loneShardRoll({ [ANNOTATIONS.allowDataLossRoll]: 'true' })).toBe('evict');
    expect(loneShardRoll({ [ANNOTATIONS.allowDataLossRoll]: HASH })).toBe('evict');
  });

  it("the StatefulSet's update revision is not an opt-in (it was accepted before)", () => {
    expect(loneShardRoll({ [ANNOTATIONS.allowDataLossRoll]: 'c-0-new' })).toBe('held');
  });
});
