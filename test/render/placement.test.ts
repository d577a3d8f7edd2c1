// A shard survives losing one node (issue 23): with replicas, a shard's pods carry required pod
// anti-affinity on the hostname by default; the render config's nodeSpread: bestEffort relaxes it
// to a ScheduleAnyway spread, with a warning in the render. Zone rules are unchanged.
import { describe, expect, it } from 'vitest';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { renderAll } from '../../src/render/render-all.js';
import { cluster, config, image } from '../support/objects.js';

const renderWith = (nodeSpread?: 'required' | 'bestEffort') =>
  validateRenderConfig({
    apiVersion: 'valkey.gomomento.com/v1alpha1',
    kind: 'ValkeyRenderConfig',
    metadata: { name: 'render' },
    spec: {
      ...(nodeSpread ? { nodeSpread } : {}),
      systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } },
    },
  }).config!;
const menu = [image('img'), config('std', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' } })];
type PodSpec = {
  affinity?: Record<string, unknown>;
  topologySpreadConstraints?: { topologyKey: string; whenUnsatisfiable: string }[];
};
const podSpecs = (replicasPerShard: number, nodeSpread?: 'required' | 'bestEffort', placement?: Record<string, unknown>) => {
  const out = renderAll(
    [...menu, cluster('c', { configRef: 'std', shards: 2, replicasPerShard, ...(placement ? { placement } : {}) })],
    renderWith(nodeSpread),
  );
  const specs = out.clusters[0]!.objects.filter((o) => o.kind === 'StatefulSet').map(
    (s) => (s as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec,
  );
  return { specs, problems: out.problems };
};
/** The shard's own hostname rules (the cluster-wide spread of each ordinal, primary-spread.test.ts, aside). */
const hostnameRules = (s: PodSpec) => s.topologySpreadConstraints?.filter((c) => c.topologyKey === 'kubernetes.io/hostname') ?? [];
/** The shard's own affinity: the cluster-wide preferences per ordinal (primary-spread.test.ts) aside. */
const shardAffinity = (s: PodSpec): Record<string, unknown> | undefined => {
  const { podAntiAffinity, ...rest } = (s.affinity ?? {}) as { podAntiAffinity?: Record<string, unknown> };
  const { preferredDuringSchedulingIgnoredDuringExecution: _, ...required } = podAntiAffinity ?? {};
  const out = { ...rest, ...(Object.keys(required).length ? { podAntiAffinity: required } : {}) };
  return Object.keys(out).length ? out : undefined;
};

describe('node placement of a shard', () => {
  it('with replicas, by default: required anti-affinity on the hostname for the shard, and no warning', () => {
    const { specs, problems } = podSpecs(1);
    specs.forEach((s, shard) => {
      expect(shardAffinity(s)).toEqual({
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              topologyKey: 'kubernetes.io/hostname',
              labelSelector: { matchLabels: { 'valkey.gomomento.com/cluster': 'c', 'valkey.gomomento.com/shard': String(shard) } },
            },
          ],
        },
      });
      expect(hostnameRules(s)).toEqual([]);
    });
    expect(problems.filter((p) => p.message.includes('nodeSpread'))).toEqual([]);
  });

  it('nodeSpread: bestEffort relaxes it to a ScheduleAnyway spread and warns on each cluster with replicas', () => {
    const { specs, problems } = podSpecs(2, 'bestEffort');
    for (const s of specs) {
      expect(shardAffinity(s)).toBeUndefined();
      expect(hostnameRules(s).map((c) => c.whenUnsatisfiable)).toEqual(['ScheduleAnyway']);
    }
    const warnings = problems.filter((p) => p.severity === 'warning' && p.message.includes('nodeSpread: bestEffort'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ field: 'spec.replicasPerShard', object: { kind: 'ValkeyCluster', name: 'c' } });
    expect(warnings[0]!.message).toContain("losing that node loses the shard's data");
  });

  it('without replicas there is one pod per shard: nothing to keep apart, no warning either way', () => {
    for (const spread of ['required', 'bestEffort'] as const) {
      const { specs, problems } = podSpecs(0, spread);
      expect(specs.every((s) => shardAffinity(s) === undefined)).toBe(true);
      expect(problems.filter((p) => p.message.includes('nodeSpread'))).toEqual([]);
    }
  });

  it('zone rules stay as they were, next to the anti-affinity', () => {
    const { specs } = podSpecs(1, undefined, { zones: ['a', 'b'], zoneSpread: 'required' });
    const s = specs[0]!;
    expect(Object.keys(s.affinity ?? {}).sort()).toEqual(['nodeAffinity', 'podAntiAffinity']);
    expect(s.topologySpreadConstraints?.map((c) => `${c.topologyKey} ${c.whenUnsatisfiable}`)).toEqual([
      'topology.kubernetes.io/zone DoNotSchedule',
      'topology.kubernetes.io/zone ScheduleAnyway',
    ]);
  });
});
