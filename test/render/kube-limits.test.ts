// Limits the API server enforces on what the renderer writes (src/api/kube-limits.ts): a render
// that passes them is green, one that does not is an error naming the object, the field, the
// limit and the size, and nothing is rendered. test/apiserver/kube-limits.test.ts holds the same
// lines against a real kube-apiserver.
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, KUBE_LIMITS, POD_ANNOTATION_ROOM, type RenderConfig, utf8Length } from '../../src/api/index.js';
import { generatedValkeyCommands } from '../../src/api/valkey-commands.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { configMapSizeProblem } from '../../src/render/configmap.js';
import { renderAll } from '../../src/render/render-all.js';
import { HASH_A, cluster, guideMenu, renderConfigObject, role } from '../support/objects.js';

const render = validateRenderConfig(renderConfigObject()).config as RenderConfig;

/** A role with 256 real commands: each permission that names it repeats about 2 KB in users.acl. */
const LONG_ROLE = role('long', {
  commands: Object.keys(generatedValkeyCommands())
    .slice(0, 256)
    .map((name) => ({ name, access: 'allow' })),
});

/** `n` bindings of `k` permissions each, all naming the long role. */
const manyBindings = (n: number, k: number) =>
  Array.from({ length: n }, (_, b) => ({
    username: `app${b}`,
    passwordHashes: [HASH_A],
    permissions: Array.from({ length: k }, (_, p) => ({
      roleRef: 'long',
      keys: [{ pattern: `app${b}:part${p}:*`, access: 'read' }],
      channels: [`app${b}:events${p}`],
    })),
  }));

const errorsOf = (out: ReturnType<typeof renderAll>) => out.problems.filter((p) => p.severity === 'error');

describe('a ConfigMap over the 1 MiB the API server takes', () => {
  it('the reported case: a 45 KB ValkeyCluster whose users.acl comes to 1.35 MB is a clean error, and nothing is rendered', () => {
    const big = cluster('cache', { acl: manyBindings(40, 11) });
    const clusterBytes = JSON.stringify(big).length;
    expect(clusterBytes).toBeGreaterThan(40_000);
    expect(clusterBytes).toBeLessThan(50_000);
    const out = renderAll([...guideMenu(), LONG_ROLE, big], render);
    expect(out.clusters).toEqual([]);
    const errors = errorsOf(out);
    expect(errors).toHaveLength(1);
    const [e] = errors;
    expect(e?.object).toMatchObject({ kind: 'ValkeyCluster', namespace: 'team-a', name: 'cache' });
    expect(e?.field).toBe('spec.acl');
    const total = Number(/would hold (\d+) bytes of data/.exec(e?.message ?? '')?.[1]);
    expect(total).toBeGreaterThan(1_300_000);
    expect(total).toBeLessThan(1_400_000);
    expect(e?.message).toMatch(
      /^ValkeyCluster team-a\/cache: spec\.acl: ConfigMap cache-config would hold \d+ bytes of data \(valkey\.conf \d+, users\.acl \d+, probe\.sh \d+\); the API server takes at most 1048576 bytes \(1 MiB\) in a ConfigMap, so it would refuse it: users\.acl repeats a role's commands/,
    );
  });

  it('the same cluster with a third of the bindings renders green', () => {
    const out = renderAll([...guideMenu(), LONG_ROLE, cluster('cache', { acl: manyBindings(13, 11) })], render);
    expect(errorsOf(out)).toEqual([]);
    const cm = out.clusters[0]?.objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    const total = Object.values(cm.data).reduce((n, v) => n + utf8Length(v), 0);
    expect(total).toBeGreaterThan(400_000);
    expect(total).toBeLessThanOrEqual(KUBE_LIMITS.configMapData);
  });

  it('counts UTF-8 bytes of the values, as the API server does: exactly 1 MiB passes, one byte more does not', () => {
    const files = (aclBytes: number) => ({ 'valkey.conf': 'é'.repeat(1000), 'users.acl': 'x'.repeat(aclBytes), 'probe.sh': '#!/bin/sh\n' });
    const room = KUBE_LIMITS.configMapData - 2000 - 10;
    expect(configMapSizeProblem('c', 'team-a', files(room))).toBeUndefined();
    expect(configMapSizeProblem('c', 'team-a', files(room + 1))?.message).toContain('would hold 1048577 bytes of data');
  });
});

describe('podAnnotations the API server would refuse on the pod template', () => {
  const renderWith = (podAnnotations: Record<string, string>) => renderAll([...guideMenu(), cluster('c', { podAnnotations })], render);
  const deletionCost = 'controller.kubernetes.io/pod-deletion-cost';
  const seccompPod = 'seccomp.security.alpha.kubernetes.io/pod';
  const seccompValkey = 'container.seccomp.security.alpha.kubernetes.io/valkey';
  const appArmor = 'container.apparmor.security.beta.kubernetes.io/valkey';

  describe.each([
    ['a deletion cost with a plus sign', { [deletionCost]: '+5' }, deletionCost, /must be a 32-bit integer/],
    ['a deletion cost with a leading zero', { [deletionCost]: '05' }, deletionCost, /must be a 32-bit integer/],
    ['a deletion cost over int32', { [deletionCost]: '2147483648' }, deletionCost, /must be a 32-bit integer/],
    ['a deletion cost under int32', { [deletionCost]: '-2147483649' }, deletionCost, /must be a 32-bit integer/],
    ['a deletion cost that is no number', { [deletionCost]: 'high' }, deletionCost, /got "high"/],
    ['an empty deletion cost', { [deletionCost]: '' }, deletionCost, /must be a 32-bit integer/],
    [
      'a pod seccomp annotation that disagrees with RuntimeDefault',
      { [seccompPod]: 'unconfined' },
      seccompPod,
      /must be runtime\/default or docker\/default/,
    ],
    ['a pod seccomp annotation that is no profile', { [seccompPod]: 'strict' }, seccompPod, /must be runtime\/default/],
    ['a container seccomp profile that is no profile', { [seccompValkey]: 'strict' }, seccompValkey, /must be a seccomp profile/],
    ['a container seccomp profile with an absolute path', { [seccompValkey]: 'localhost//etc/p.json' }, seccompValkey, /relative path/],
    ['a container seccomp profile that climbs out', { [seccompValkey]: 'localhost/../p.json' }, seccompValkey, /without '\.\.'/],
    [
      'an AppArmor profile that is no profile',
      { [appArmor]: 'strict' },
      appArmor,
      /must be runtime\/default or localhost\/<profile> \(or empty\)/,
    ],
    ['an AppArmor profile that Pod Security refuses', { [appArmor]: 'unconfined' }, appArmor, /Pod Security baseline/],
    [
      'an AppArmor annotation for another container',
      { 'container.apparmor.security.beta.kubernetes.io/sidecar': 'runtime/default' },
      'container.apparmor.security.beta.kubernetes.io/sidecar',
      /names container "sidecar"/,
    ],
    ['the mirror-pod annotation', { 'kubernetes.io/config.mirror': 'x' }, 'kubernetes.io/config.mirror', /spec\.nodeName/],
    [
      'the old tolerations annotation',
      { 'scheduler.alpha.kubernetes.io/tolerations': '[]' },
      'scheduler.alpha.kubernetes.io/tolerations',
      /validates its value as tolerations/,
    ],
  ])('%s', (_name, podAnnotations, key, message) => {
    it('is an error on that annotation, and no StatefulSet is rendered', () => {
      const out = renderWith(podAnnotations as Record<string, string>);
      expect(out.clusters).toEqual([]);
      expect(errorsOf(out).map((p) => [p.field, p.message])).toEqual([
        [`spec.podAnnotations[${JSON.stringify(key)}]`, expect.stringMatching(message)],
      ]);
    });
  });

  it.each([
    ['deletion costs at both ends of int32', { [deletionCost]: '-2147483648' }],
    ['a deletion cost of 0', { [deletionCost]: '0' }],
    ['the largest deletion cost', { [deletionCost]: '2147483647' }],
    ['the pod seccomp annotation that agrees', { [seccompPod]: 'runtime/default', [seccompValkey]: 'localhost/profiles/valkey.json' }],
    ['AppArmor runtime/default', { [appArmor]: 'runtime/default' }],
    ['an AppArmor localhost profile', { [appArmor]: 'localhost/valkey' }],
    ['an empty AppArmor annotation', { [appArmor]: '' }],
  ])('%s renders green, on every pod template', (_name, podAnnotations) => {
    const out = renderWith(podAnnotations);
    expect(errorsOf(out)).toEqual([]);
    const sts = out.clusters[0]?.objects.find((o) => o.kind === 'StatefulSet') as unknown as {
      spec: { template: { metadata: { annotations: object } } };
    };
    expect(sts.spec.template.metadata.annotations).toMatchObject(podAnnotations);
  });

  it('counts keys and values against 256 KiB less the restart hash: the last byte that fits renders, one more is an error with both sizes', () => {
    const key = 'example.com/blob';
    const fits = { [key]: 'x'.repeat(POD_ANNOTATION_ROOM - key.length) };
    const out = renderWith(fits);
    expect(errorsOf(out)).toEqual([]);
    const sts = out.clusters[0]?.objects.find((o) => o.kind === 'StatefulSet') as unknown as {
      spec: { template: { metadata: { annotations: Record<string, string> } } };
    };
    const onTemplate = sts.spec.template.metadata.annotations;
    expect(Object.keys(onTemplate).sort()).toEqual([key, ANNOTATIONS.restartHash].sort());
    expect(Object.entries(onTemplate).reduce((n, [k, v]) => n + k.length + v.length, 0)).toBe(KUBE_LIMITS.annotations);

    const over = renderWith({ [key]: `${fits[key]}é` });
    expect(over.clusters).toEqual([]);
    expect(errorsOf(over).map((p) => [p.field, p.message])).toEqual([
      [
        'spec.podAnnotations',
        `ValkeyCluster team-a/c: spec.podAnnotations: keys and values take ${POD_ANNOTATION_ROOM + 2} bytes; the API server takes at most 262144 bytes (256 KiB) of annotations on a pod template, and valkey-krm's restart hash takes ${KUBE_LIMITS.annotations - POD_ANNOTATION_ROOM} of them, so at most ${POD_ANNOTATION_ROOM} are left: shorten or remove annotations (large data belongs in a ConfigMap, not an annotation)`,
      ],
    ]);
  });

  it('quotes at most 40 characters of a value it refuses', () => {
    const out = renderWith({ [deletionCost]: '9'.repeat(100_000) });
    const [e] = errorsOf(out);
    expect(e?.message.length).toBeLessThan(400);
  });
});
