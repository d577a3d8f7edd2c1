import { describe, expect, it } from 'vitest';
import { LABELS } from '../../src/api/index.js';
import { STATEFULSET_LABELS, foreignPodMessage, provePodOwnership } from '../../src/controller/cluster/pod-ownership.js';
import type { Pod, StatefulSet } from '../../src/controller/kube/types.js';

const set = (shard: number, uid: string): StatefulSet => ({ metadata: { name: `cache-${shard}`, namespace: 'shop', uid } });
const SETS = [set(0, 'uid-0'), set(1, 'uid-1')];

/** A pod as the StatefulSet controller makes it; `change` edits what the test is about. */
function pod(shard: number, ordinal: number, change: (p: Pod) => void = () => {}): Pod {
  const name = `cache-${shard}-${ordinal}`;
  const p: Pod = {
    metadata: {
      name,
      namespace: 'shop',
      labels: {
        [LABELS.cluster]: 'cache',
        [LABELS.shard]: String(shard),
        [STATEFULSET_LABELS.podName]: name,
        [STATEFULSET_LABELS.revision]: `cache-${shard}-7b9c`,
      },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: `cache-${shard}`, uid: `uid-${shard}`, controller: true }],
    },
    spec: { nodeName: 'node-a' },
  };
  change(p);
  return p;
}

const labels = (p: Pod) => p.metadata.labels as Record<string, string>;

describe('provePodOwnership: only the StatefulSets own pods are dialled', () => {
  it('takes the StatefulSets own pods, with their shard and ordinal', () => {
    const out = provePodOwnership('cache', [pod(0, 0), pod(0, 1), pod(1, 0)], SETS);
    expect(out.foreign).toEqual([]);
    expect(out.owned.map((o) => [o.pod.metadata.name, o.shard, o.ordinal])).toEqual([
      ['cache-0-0', 0, 0],
      ['cache-0-1', 0, 1],
      ['cache-1-0', 1, 0],
    ]);
  });

  it.each([
    [
      'no owner at all (a tenant pod wearing the labels)',
      pod(0, 7, (p) => void delete p.metadata.ownerReferences),
      'it is not controlled by StatefulSet cache-0',
    ],
    [
      'an owner that is not the controller',
      pod(0, 7, (p) => {
        (p.metadata.ownerReferences ?? [])[0] = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'cache-0', uid: 'uid-0' };
      }),
      'it is not controlled by StatefulSet cache-0',
    ],
    [
      'a controller reference with another UID (a guess, or a deleted StatefulSet)',
      pod(0, 7, (p) => {
        (p.metadata.ownerReferences ?? [])[0] = {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          name: 'cache-0',
          uid: 'uid-old',
          controller: true,
        };
      }),
      'its controller reference is to an earlier StatefulSet cache-0 (another UID)',
    ],
    [
      'a controller of another kind',
      pod(0, 7, (p) => {
        (p.metadata.ownerReferences ?? [])[0] = {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'cache-0',
          uid: 'uid-0',
          controller: true,
        };
      }),
      'its controller is ReplicaSet cache-0, not StatefulSet cache-0',
    ],
    [
      "another shard's StatefulSet as controller",
      pod(0, 7, (p) => {
        (p.metadata.ownerReferences ?? [])[0] = {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          name: 'cache-1',
          uid: 'uid-1',
          controller: true,
        };
      }),
      'its controller is StatefulSet cache-1, not StatefulSet cache-0',
    ],
    [
      'a name outside the pattern',
      pod(0, 0, (p) => {
        p.metadata.name = 'cache-0-evil';
      }),
      'its name is not cache-<shard>-<ordinal>',
    ],
    [
      'a leading zero in the ordinal',
      pod(0, 0, (p) => {
        p.metadata.name = 'cache-0-01';
      }),
      'its name is not cache-<shard>-<ordinal>',
    ],
    [
      'a shard label that disagrees with its name',
      pod(0, 0, (p) => {
        labels(p)[LABELS.shard] = '1';
      }),
      'its app.kubernetes.io/shard label',
    ],
    ['a shard whose StatefulSet does not exist', pod(5, 0), 'StatefulSet cache-5 does not exist'],
    [
      'no pod-name label',
      pod(0, 0, (p) => void delete labels(p)[STATEFULSET_LABELS.podName]),
      'statefulset.kubernetes.io/pod-name label is not its name',
    ],
    [
      'a revision of another StatefulSet',
      pod(0, 0, (p) => {
        labels(p)[STATEFULSET_LABELS.revision] = 'cache-1-7b9c';
      }),
      'its controller-revision-hash label is not a revision of StatefulSet cache-0',
    ],
  ])('refuses %s, saying why', (_what, p, reason) => {
    const out = provePodOwnership('cache', [p], SETS);
    expect(out.owned).toEqual([]);
    expect(out.foreign).toHaveLength(1);
    expect(out.foreign[0]?.reason).toContain(reason.replace('app.kubernetes.io/shard', LABELS.shard));
  });

  it('says what the status says about a foreign pod', () => {
    expect(foreignPodMessage({ pod: 'cache-0-7', reason: 'it is not controlled by StatefulSet cache-0' })).toBe(
      "pod cache-0-7 carries this cluster's labels but is not its StatefulSet's (it is not controlled by StatefulSet cache-0); the controller does not talk to it",
    );
  });
});

describe('provePodOwnership: a StatefulSet named like a shard the render did not write', () => {
  const extra = set(7, 'uid-7');
  it('`<cluster>-7` beyond spec.shards, never seen as a shard (status.nodes): its pods are foreign, never dialled', () => {
    const out = provePodOwnership('cache', [pod(0, 0), pod(7, 0)], [...SETS, extra], { shards: 2, known: new Set([0, 1]) });
    expect(out.owned.map((o) => o.pod.metadata.name)).toEqual(['cache-0-0']);
    expect(out.foreign).toEqual([
      {
        pod: 'cache-7-0',
        reason:
          'StatefulSet cache-7 is beyond spec.shards (2) and was never a shard of this cluster the controller saw, so the render did not write it',
      },
    ]);
  });

  it('a shard being retired by a scale-in (beyond spec.shards, but one the controller saw) is still the cluster’s', () => {
    const out = provePodOwnership('cache', [pod(0, 0), pod(1, 0)], SETS, { shards: 1, known: new Set([0, 1]) });
    expect(out.foreign).toEqual([]);
  });
});
