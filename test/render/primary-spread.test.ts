// Placement that spreads primaries (issue 31): every shard's pods carry a cluster-wide, per-ordinal
// preferred anti-affinity over nodes and zones (matchLabelKeys: the pod's own
// apps.kubernetes.io/pod-index), so the shards' ordinals 0, their preferred primaries, land on
// distinct nodes and zones where the cluster has them; a preference, never a Pending pod. The render warns where no layout holds "losing one node or zone leaves a
// majority of the primaries": too few listed zones, and fewer than 3 shards where zones matter.
import { describe, expect, it } from 'vitest';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { domainsNeeded, holdsMajority } from '../../src/render/primary-promise.js';
import { renderAll } from '../../src/render/render-all.js';
import { cluster, config, image } from '../support/objects.js';

const renderConfig = validateRenderConfig({
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyRenderConfig',
  metadata: { name: 'render' },
  spec: { systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } } },
}).config!;
const render = (spec: Record<string, unknown>) =>
  renderAll([image('img'), config('std', { imageRef: 'img' }), cluster('c', { configRef: 'std', ...spec })], renderConfig);
type PodSpec = {
  affinity?: { podAntiAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: unknown[] } };
  topologySpreadConstraints: { topologyKey: string; whenUnsatisfiable: string; labelSelector: unknown }[];
};
const podSpecs = (spec: Record<string, unknown>) =>
  render(spec)
    .clusters[0]!.objects.filter((o) => o.kind === 'StatefulSet')
    .map((s) => (s as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec);
const promise = (spec: Record<string, unknown>) =>
  render(spec).problems.filter((p) => /no majority of the primaries|primaries share a zone/.test(p.message));
const layouts: [string, Record<string, unknown>][] = [
  ['3 x 1, default placement', { shards: 3, replicasPerShard: 1 }],
  ['2 x 2, zones required', { shards: 2, replicasPerShard: 2, placement: { zones: ['a', 'b', 'c'], zoneSpread: 'required' } }],
  ['2 x 1, zones best effort', { shards: 2, replicasPerShard: 1, placement: { zones: ['a', 'b', 'c'] } }],
  ['1 x 0', { shards: 1, replicasPerShard: 0 }],
];

describe('each ordinal prefers nodes and zones without another of its kind, cluster-wide', () => {
  it.each(layouts)('%s: every shard carries the same two preferences (hostname, zone) per pod-index', (_name, spec) => {
    for (const s of podSpecs(spec)) {
      expect(s.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution).toEqual(
        ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'].map((topologyKey) => ({
          weight: 100,
          podAffinityTerm: {
            labelSelector: { matchLabels: { 'valkey.gomomento.com/cluster': 'c' } },
            matchLabelKeys: ['apps.kubernetes.io/pod-index'],
            topologyKey,
          },
        })),
      );
    }
  });

  it.each(layouts)(
    '%s: no two spread constraints share a topology key and whenUnsatisfiable (the API server refuses that)',
    (_name, spec) => {
      for (const s of podSpecs(spec)) {
        const keys = s.topologySpreadConstraints.map((c) => `${c.topologyKey} ${c.whenUnsatisfiable}`);
        expect(new Set(keys).size).toBe(keys.length);
      }
    },
  );

  it('nothing in the rules depends on the number of shards: adding a shard rolls no pod (same restart hash)', () => {
    const hash = (shards: number) =>
      (
        render({ shards, replicasPerShard: 1 }).clusters[0]!.objects.find((o) => o.kind === 'StatefulSet') as unknown as {
          spec: { template: { metadata: { annotations: Record<string, string> } } };
        }
      ).spec.template.metadata.annotations['valkey.gomomento.com/restart-hash'];
    expect(hash(3)).toBe(hash(4));
    expect(hash(1)).toBe(hash(7));
  });

  it('no rule across shards is a filter: the only DoNotSchedule is the shard-own zone rule (zoneSpread: required)', () => {
    const s = podSpecs({ shards: 3, replicasPerShard: 1, placement: { zones: ['a', 'b', 'c'], zoneSpread: 'required' } })[0]!;
    expect(s.topologySpreadConstraints.filter((c) => c.whenUnsatisfiable === 'DoNotSchedule').map((c) => c.labelSelector)).toEqual([
      { matchLabels: { 'valkey.gomomento.com/cluster': 'c', 'valkey.gomomento.com/shard': '0' } },
    ]);
  });
});

describe('the promise: losing one node or zone leaves a majority of the primaries', () => {
  it.each([
    // shards, domains (nodes or zones), holds
    [1, 3, false],
    [2, 3, false],
    [3, 2, false],
    [3, 3, true],
    [4, 3, false],
    [4, 4, true],
    [5, 3, true],
    [6, 3, true],
    [6, 2, false],
    [9, 3, true],
    [10, 4, true],
  ])('%i shards over %i domains: %s', (shards, domains, holds) => {
    expect(holdsMajority(shards, domains)).toBe(holds);
  });

  it('needs 3 domains for 3 shards and for 5 or more, 4 for 4, and none can do it below 3 shards', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 12, 30].map(domainsNeeded)).toEqual([undefined, undefined, 3, 4, 3, 3, 3, 3, 3, 3]);
  });

  it('warns at placement.zones when the listed zones cannot hold it, naming how many are needed', () => {
    const [w] = promise({ shards: 4, replicasPerShard: 1, placement: { zones: ['a', 'b', 'c'] } });
    expect(w).toMatchObject({ severity: 'warning', field: 'spec.placement.zones', object: { kind: 'ValkeyCluster', name: 'c' } });
    expect(w!.message).toBe(
      'ValkeyCluster team-a/c: spec.placement.zones: 3 zone(s) for 4 shards: spread as evenly as they can be, 2 primaries share a zone, and losing it leaves 2 of 4, no majority, so Valkey cannot elect their replicas; list at least 4 zones, or use 3 or 5 shards',
    );
    expect(promise({ shards: 6, replicasPerShard: 1, placement: { zones: ['a', 'b'] } })[0]!.message).toContain(
      '2 zone(s) for 6 shards: spread as evenly as they can be, 3 primaries share a zone, and losing it leaves 3 of 6, no majority, so Valkey cannot elect their replicas; list at least 3 zones',
    );
  });

  it('warns at shards below 3 where the cluster asks for zones; not on a small cluster that does not', () => {
    for (const placement of [{ zones: ['a', 'b', 'c'] }, { zoneSpread: 'required' }]) {
      const [w] = promise({ shards: 2, replicasPerShard: 1, placement });
      expect(w).toMatchObject({ severity: 'warning', field: 'spec.shards' });
      expect(w!.message).toContain('2 shard(s): losing the node or zone of a primary leaves no majority of the primaries');
    }
    expect(promise({ shards: 1, replicasPerShard: 1 })).toEqual([]);
  });

  it('says nothing where the layout can hold it, or where there is no replica to elect (that has its own warning)', () => {
    expect(promise({ shards: 3, replicasPerShard: 1, placement: { zones: ['a', 'b', 'c'], zoneSpread: 'required' } })).toEqual([]);
    expect(promise({ shards: 5, replicasPerShard: 2, placement: { zones: ['a', 'b', 'c'] } })).toEqual([]);
    expect(promise({ shards: 4, replicasPerShard: 1 })).toEqual([]); // nodes and zones unknown to the render
    expect(promise({ shards: 4, replicasPerShard: 0, placement: { zones: ['a', 'b', 'c'] } })).toEqual([]);
  });
});
