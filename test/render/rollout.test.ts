// What the renderer tells a reviewer and the controller about a change to a running cluster:
// the restart hash, the data-loss opt-in, and a TLS toggle seen against its own previous output.
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, type RenderConfig } from '../../src/api/index.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import type { KubeObject } from '../../src/render/object.js';
import { renderAll } from '../../src/render/render-all.js';
import { binding, cluster, config, guideMenu, renderConfigObject, role } from '../support/objects.js';

const render = validateRenderConfig(renderConfigObject()).config as RenderConfig;
const OPT_IN = ANNOTATIONS.allowDataLossRoll;

type Spec = Record<string, unknown>;
const withMeta = (c: ReturnType<typeof cluster>, annotations: Record<string, string>) => ({
  ...c,
  metadata: { ...c.metadata, annotations },
});

function renderOne(objects: unknown[], previous: unknown[] = []) {
  const out = renderAll(objects, render, { previous });
  const objectsOut = out.clusters[0]?.objects ?? [];
  const statefulSets = objectsOut.filter((o) => o.kind === 'StatefulSet');
  return { out, statefulSets, problems: out.problems.map((p) => ({ severity: p.severity, field: p.field, message: p.message })) };
}

const restartHashOf = (sts: KubeObject) =>
  (sts.spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations[ANNOTATIONS.restartHash];

describe('the restart hash', () => {
  const hashFor = (spec: Spec, valkey: Record<string, string> = {}) => {
    const menu = [...guideMenu(), role('reader'), config('tuned', { baseRef: 'standard', valkey })];
    const { statefulSets } = renderOne([...menu, cluster('c', { configRef: 'tuned', replicasPerShard: 1, ...spec })]);
    const hashes = new Set(statefulSets.map(restartHashOf));
    expect(hashes.size).toBe(1);
    return [...hashes][0];
  };
  const base = hashFor({ shards: 2 });

  it('is one digest for every shard, and adding a shard or a replica does not change it', () => {
    expect(hashFor({ shards: 3 })).toBe(base);
    expect(hashFor({ shards: 2, replicasPerShard: 2 })).toBe(base);
  });

  it('does not move for a live setting or an ACL change', () => {
    expect(hashFor({ shards: 2 }, { 'maxmemory-policy': 'volatile-lru', hz: '20' })).toBe(base);
    expect(hashFor({ shards: 2, acl: [binding('app')] })).toBe(base);
  });

  it('moves for a restart-only setting, the image, resources, TLS, placement and pod annotations', () => {
    expect(hashFor({ shards: 2 }, { 'tcp-backlog': '1024' })).not.toBe(base);
    expect(hashFor({ shards: 2, tls: { secretRef: 's' } })).not.toBe(base);
    expect(hashFor({ shards: 2, placement: { zones: ['a'] } })).not.toBe(base);
    expect(hashFor({ shards: 2, podAnnotations: { 'example.com/a': 'b' } })).not.toBe(base);
    const bigger = [...guideMenu(), config('tuned', { baseRef: 'large' })];
    const { statefulSets } = renderOne([...bigger, cluster('c', { configRef: 'tuned', shards: 2, replicasPerShard: 1 })]);
    expect(restartHashOf(statefulSets[0]!)).not.toBe(base);
  });
});

describe('the data-loss opt-in', () => {
  const zero = cluster('c', { shards: 2, replicasPerShard: 0 });
  const hash = restartHashOf(renderOne([...guideMenu(), zero]).statefulSets[0]!) as string;
  // The availability warning of two zero-replica shards under cluster-require-full-coverage
  // (shape-checks.ts) is another finding, which the opt-in does not acknowledge.
  const dataLoss = (problems: readonly { message: string }[]) =>
    problems.filter((p) => !p.message.includes('cluster-require-full-coverage yes'));

  it('without it, a zero-replica cluster gets a warning that names this revision, and nothing is copied', () => {
    const { problems, statefulSets } = renderOne([...guideMenu(), zero]);
    expect(dataLoss(problems)).toEqual([
      { severity: 'warning', field: 'spec.replicasPerShard', message: expect.stringContaining(`"${hash}" (this revision)`) },
    ]);
    for (const sts of statefulSets) expect(sts.metadata.annotations?.[OPT_IN]).toBeUndefined();
  });

  it.each([
    ["this render's restart hash", () => hash],
    ['"true"', () => 'true'],
  ])('%s allows the roll: copied onto every StatefulSet, and the warning is acknowledged', (_label, value) => {
    const { problems, statefulSets } = renderOne([...guideMenu(), withMeta(zero, { [OPT_IN]: value() })]);
    expect(dataLoss(problems)).toEqual([]);
    expect(statefulSets).toHaveLength(2);
    for (const sts of statefulSets) expect(sts.metadata.annotations?.[OPT_IN]).toBe(value());
    // The opt-in is on the StatefulSet, not the pod template: setting it rolls nothing.
    for (const sts of statefulSets) expect(restartHashOf(sts)).toBe(hash);
  });

  it('an opt-in that is not "true" or a restart hash is an error', () => {
    const { problems, out } = renderOne([...guideMenu(), withMeta(zero, { [OPT_IN]: 'yes' })]);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([
      {
        severity: 'error',
        field: `metadata.annotations["${OPT_IN}"]`,
        message: expect.stringContaining('"yes" is neither "true" nor a restart hash'),
      },
    ]);
    expect(out.clusters).toEqual([]);
  });
});

describe('TLS toggled on a running cluster', () => {
  const previousStatefulSet = (tlsSecret?: string) => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: 'c-0',
      namespace: 'team-a',
      labels: { 'app.kubernetes.io/managed-by': 'valkey-krm', 'valkey.gomomento.com/cluster': 'c' },
      ...(tlsSecret ? { annotations: { [ANNOTATIONS.tls]: tlsSecret } } : {}),
    },
  });
  const tlsWarnings = (spec: Spec, previous: unknown[]) =>
    renderOne([...guideMenu(), cluster('c', { replicasPerShard: 1, ...spec })], previous).problems.filter((p) => p.field === 'spec.tls');

  it('warns when its own previous output ran the other mode', () => {
    expect(tlsWarnings({ tls: { secretRef: 's' } }, [previousStatefulSet()])).toEqual([
      { severity: 'warning', field: 'spec.tls', message: expect.stringContaining('turns TLS on for a running cluster') },
    ]);
    expect(tlsWarnings({}, [previousStatefulSet('s')])).toEqual([
      { severity: 'warning', field: 'spec.tls', message: expect.stringContaining('turns TLS off for a running cluster') },
    ]);
  });

  it('is quiet for a new cluster, an unchanged mode, and another cluster or namespace', () => {
    expect(tlsWarnings({ tls: { secretRef: 's' } }, [])).toEqual([]);
    expect(tlsWarnings({ tls: { secretRef: 's2' } }, [previousStatefulSet('s')])).toEqual([]);
    const other = previousStatefulSet();
    expect(tlsWarnings({ tls: { secretRef: 's' } }, [{ ...other, metadata: { ...other.metadata, namespace: 'team-b' } }])).toEqual([]);
    const notOurs = { ...other, metadata: { ...other.metadata, labels: { 'valkey.gomomento.com/cluster': 'c' } } };
    expect(tlsWarnings({ tls: { secretRef: 's' } }, [notOurs])).toEqual([]);
  });
});

describe("valkey-krm's rendered default: shutdown-on-sigterm failover", () => {
  const confFor = (valkey: Record<string, string>) => {
    const menu = [...guideMenu(), config('tuned', { baseRef: 'standard', valkey })];
    const { out } = renderOne([...menu, cluster('c', { configRef: 'tuned', replicasPerShard: 1 })]);
    const cm = out.clusters[0]?.objects.find((o) => o.kind === 'ConfigMap') as KubeObject & { data: Record<string, string> };
    return cm.data['valkey.conf'] as string;
  };
  const lines = (conf: string) => conf.split('\n').filter((l) => l.startsWith('shutdown-on-sigterm'));

  it('is rendered, in the live section, when the chain leaves it unset', () => {
    const conf = confFor({});
    expect(lines(conf)).toEqual(['shutdown-on-sigterm failover']);
    const live = conf.split('\n\n').find((s) => s.startsWith('# Live settings')) ?? '';
    expect(live).toContain('shutdown-on-sigterm failover');
  });

  it("the chain's own value wins, however it spells the key", () => {
    expect(lines(confFor({ 'shutdown-on-sigterm': 'default' }))).toEqual(['shutdown-on-sigterm default']);
    expect(lines(confFor({ 'SHUTDOWN-ON-SIGTERM': 'nosave' }))).toEqual(['shutdown-on-sigterm nosave']);
  });

  it('rolls nothing: it is live, so the restart hash is the same with it or without it', () => {
    const hash = (valkey: Record<string, string>) => {
      const menu = [...guideMenu(), config('tuned', { baseRef: 'standard', valkey })];
      return restartHashOf(renderOne([...menu, cluster('c', { configRef: 'tuned' })]).statefulSets[0] as KubeObject);
    };
    expect(hash({})).toBe(hash({ 'shutdown-on-sigterm': 'default' }));
  });
});
