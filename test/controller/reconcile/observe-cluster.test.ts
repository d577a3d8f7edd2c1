// The observing half of a pass, where it is plain data: which pods are asked, which StatefulSets
// are shards and for how many shards they were rendered, what git declared for the image.
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, LABELS } from '../../../src/api/index.js';
import type { Pod, StatefulSet } from '../../../src/controller/kube/types.js';
import { declaredVersion, podsToObserve, renderedShardCounts } from '../../../src/controller/reconcile/observe-cluster.js';

const pod = (name: string, shard: number): Pod => ({
  metadata: { name, labels: { [LABELS.shard]: String(shard) } },
  status: { phase: 'Running', podIP: '10.0.0.1' },
});
const sts = (name: string, annotations: Record<string, string> = {}): StatefulSet => ({ metadata: { name, annotations } });

describe('observe-cluster', () => {
  it("skips a retired shard's pods (StatefulSet deleted, at or above spec.shards), keeps a removed shard's still draining", () => {
    const pods = [pod('c-0-0', 0), pod('c-3-0', 3), pod('c-4-0', 4), { metadata: { name: 'stranger' } }];
    expect(podsToObserve(pods, 3, [0, 1, 2, 3]).map((p) => p.place.pod)).toEqual(['c-0-0', 'c-3-0']);
  });

  it('reads the shard count each shard StatefulSet was rendered for; other StatefulSets are not shards', () => {
    const sets = [sts('c-0', { [ANNOTATIONS.shards]: '4' }), sts('c-1', { [ANNOTATIONS.shards]: '3' }), sts('c-x'), sts('other-0')];
    expect(renderedShardCounts(sets, 'c')).toEqual([
      { shard: 0, shards: 4 },
      { shard: 1, shards: 3 },
    ]);
  });

  it('the declared version comes from the first StatefulSet by name that carries one', () => {
    const sets = [sts('c-1', { [ANNOTATIONS.imageVersion]: '9.0.2', [ANNOTATIONS.imageRef]: 'valkey-9-0' }), sts('c-0')];
    expect(declaredVersion(sets)).toEqual({ version: '9.0.2', imageRef: 'valkey-9-0' });
    expect(declaredVersion([sts('c-0')])).toBeUndefined();
  });
});
