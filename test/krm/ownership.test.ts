import { describe, expect, it } from 'vitest';
import { runFunction, type InputItem } from '../../src/krm/run-function.js';
import { isEarlierOutput } from '../../src/krm/ownership.js';
import { cluster, guideMenu, renderConfigObject } from '../support/objects.js';

const item = (value: unknown): InputItem => ({ text: `${JSON.stringify(value)}\n`, value });
const LABEL = { 'app.kubernetes.io/managed-by': 'valkey-krm' };
const owned = (apiVersion: string, kind: string, name: string, owner: string | undefined, extra: Record<string, string> = {}) => ({
  apiVersion,
  kind,
  metadata: {
    name,
    namespace: 'team-a',
    labels: LABEL,
    annotations: { ...(owner === undefined ? {} : { 'valkey.gomomento.com/rendered-for': owner }), ...extra },
  },
});
const run = (extra: unknown[]) =>
  runFunction(
    [...guideMenu(), cluster('cache', { replicasPerShard: 1 }), ...extra].map(item),
    renderConfigObject({ outputDir: 'valkey' }),
    {
      validateOnly: false,
      dropLocalConfig: false,
    },
  );
const kinds = (items: InputItem[]) =>
  items.map((i) => `${(i.value as { kind: string }).kind}/${(i.value as { metadata: { name: string } }).metadata.name}`);

describe('earlier output is recognised by what the renderer writes, not by our label alone', () => {
  it('every rendered object names its cluster, and a re-render replaces exactly them (idempotent)', () => {
    const first = run([]);
    expect(first.ok).toBe(true);
    for (const g of first.generated) expect(g.object.metadata.annotations?.['valkey.gomomento.com/rendered-for']).toBe('team-a/cache');
    const again = run(first.generated.map((g) => g.object));
    expect(again.ok).toBe(true);
    expect(again.previous).toHaveLength(first.generated.length);
    expect(again.generated).toEqual(first.generated);
    expect(again.problems.filter((p) => p.severity !== 'info')).toEqual([]);
  });

  it.each([
    ['a Role that copied our labels', owned('rbac.authorization.k8s.io/v1', 'Role', 'cache', 'team-a/cache')],
    ['a NetworkPolicy not named for its cluster', owned('networking.k8s.io/v1', 'NetworkPolicy', 'cache-extra', 'team-a/cache')],
    ['a ConfigMap named like ours without the annotation', owned('v1', 'ConfigMap', 'cache-config', undefined)],
    ['a ConfigMap whose name is not what we render for its cluster', owned('v1', 'ConfigMap', 'other', 'team-a/cache')],
    ['a StatefulSet in another namespace than its cluster', owned('apps/v1', 'StatefulSet', 'cache-0', 'team-b/cache')],
    ['a StatefulSet not named for a shard', owned('apps/v1', 'StatefulSet', 'cache-x', 'team-a/cache')],
    ['a Service of another apiVersion', owned('v2', 'Service', 'cache', 'team-a/cache')],
  ])('%s is not taken for output, and, claiming the cluster, is an error (issue 32)', (_, value) => {
    const r = run([value]);
    expect(r.ok).toBe(false);
    expect(r.previous).toEqual([]);
    expect(r.problems.filter((p) => p.severity === 'warning').map((p) => p.message)).toEqual([
      expect.stringContaining('wears app.kubernetes.io/managed-by: valkey-krm but is not an object valkey-krm rendered'),
    ]);
    expect(r.problems.filter((p) => p.severity === 'error').map((p) => p.message)).toEqual([
      expect.stringMatching(/claims to be part of ValkeyCluster team-a\/cache by .*, but valkey-krm did not render it/),
    ]);
  });

  it('an object of ours for a cluster the package does not have comes back unchanged with a warning', () => {
    const value = owned('rbac.authorization.k8s.io/v1', 'Role', 'cache', 'team-z/other');
    const r = run([value]);
    expect(r.ok).toBe(true);
    expect(kinds(r.passthrough)).toContain('Role/cache');
  });

  it("a removed cluster's objects still disappear", () => {
    const r = run([
      owned('apps/v1', 'StatefulSet', 'gone-2', 'team-a/gone'),
      owned('policy/v1', 'PodDisruptionBudget', 'gone-0', 'team-a/gone'),
      owned('networking.k8s.io/v1', 'NetworkPolicy', 'gone', 'team-a/gone'),
    ]);
    expect(r.previous).toHaveLength(3);
    expect(kinds(r.passthrough)).not.toContain('StatefulSet/gone-2');
  });

  it('output of releases before the annotation is recognised by the file kpt read it from', () => {
    const legacy = (path: string) => owned('v1', 'ConfigMap', 'old-config', undefined, { 'config.kubernetes.io/path': path });
    expect(isEarlierOutput(legacy('valkey/team-a/old.yaml'), 'valkey')).toBe(true);
    expect(isEarlierOutput(legacy('valkey/team-a/other.yaml'), 'valkey')).toBe(false);
    expect(isEarlierOutput(legacy('mine/team-a/old.yaml'), 'valkey')).toBe(false);
    expect(isEarlierOutput(legacy('valkey/team-a/old.yaml'), undefined)).toBe(false);
  });

  it('a Valkey object that wears our label is read as a Valkey object, not dropped', () => {
    const labelled = { ...cluster('other'), metadata: { name: 'other', namespace: 'team-a', labels: LABEL } };
    const r = run([labelled]);
    expect(r.generated.map((g) => g.path)).toContain('valkey/team-a/other.yaml');
  });
});
