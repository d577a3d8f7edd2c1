// The limits of src/api/kube-limits.ts against a real kube-apiserver (v1.34): the function refuses
// exactly what the API server (or Pod Security, for the pods a StatefulSet creates) refuses, on
// both sides of each line. Every object goes in with dryRun=All, as an apply would send it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATIONS, KUBE_LIMITS, POD_ANNOTATION_ROOM, type RenderConfig } from '../../src/api/index.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { configMapSizeProblem, renderConfigMap } from '../../src/render/configmap.js';
import type { KubeObject } from '../../src/render/object.js';
import { renderAll } from '../../src/render/render-all.js';
import { type ApiServer, type RawResponse, ensureTools, startApiServer } from '../support/apiserver.js';
import { createNamespaces } from '../support/namespaces.js';
import { cluster, guideMenu, podsFromTemplates, renderConfigObject } from '../support/objects.js';

const NAMESPACE = 'limits';
const render = validateRenderConfig(renderConfigObject()).config as RenderConfig;

const dryRun = (api: ApiServer, path: string, body: unknown): Promise<RawResponse> => api.request('POST', `${path}?dryRun=All`, body);
const verdict = (r: RawResponse): string => (r.status === 201 ? 'accepted' : `refused (${r.status}): ${r.body.slice(0, 300)}`);

/** The function's verdict on a cluster with these podAnnotations: an error on them, or none. */
function functionRefuses(podAnnotations: Record<string, string>): boolean {
  const out = renderAll([...guideMenu(), cluster('c', { podAnnotations }, NAMESPACE)], render);
  const errors = out.problems.filter((p) => p.severity === 'error');
  expect(
    errors.every((p) => p.field?.startsWith('spec.podAnnotations')),
    JSON.stringify(errors),
  ).toBe(true);
  return errors.length > 0;
}

/** The shard StatefulSet as rendered without podAnnotations, then given these: what the API server would get without the check. */
function statefulSetWith(podAnnotations: Record<string, string>): KubeObject {
  const out = renderAll([...guideMenu(), cluster('c', {}, NAMESPACE)], render);
  const sts = out.clusters[0]?.objects.find((o) => o.kind === 'StatefulSet') as KubeObject & {
    spec: { template: { metadata: { annotations: Record<string, string> } } };
  };
  sts.spec.template.metadata.annotations = { ...sts.spec.template.metadata.annotations, ...podAnnotations };
  return sts;
}

const blob = 'example.com/blob';
const ROWS: ReadonlyArray<[string, Record<string, string>]> = [
  ['annotations that fill the 256 KiB exactly', { [blob]: 'x'.repeat(POD_ANNOTATION_ROOM - blob.length) }],
  ['annotations one byte over 256 KiB', { [blob]: 'x'.repeat(POD_ANNOTATION_ROOM - blob.length + 1) }],
  ['deletion cost "+5"', { 'controller.kubernetes.io/pod-deletion-cost': '+5' }],
  ['deletion cost "2147483648"', { 'controller.kubernetes.io/pod-deletion-cost': '2147483648' }],
  ['deletion cost "-2147483648"', { 'controller.kubernetes.io/pod-deletion-cost': '-2147483648' }],
  ['deletion cost "0"', { 'controller.kubernetes.io/pod-deletion-cost': '0' }],
  ['deletion cost "007"', { 'controller.kubernetes.io/pod-deletion-cost': '007' }],
  ['pod seccomp "unconfined"', { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' }],
  ['pod seccomp "runtime/default"', { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default' }],
  ['container seccomp "strict"', { 'container.seccomp.security.alpha.kubernetes.io/valkey': 'strict' }],
  ['container seccomp "localhost/../p.json"', { 'container.seccomp.security.alpha.kubernetes.io/valkey': 'localhost/../p.json' }],
  [
    'container seccomp "localhost/profiles/p.json"',
    { 'container.seccomp.security.alpha.kubernetes.io/valkey': 'localhost/profiles/p.json' },
  ],
  ['AppArmor "strict"', { 'container.apparmor.security.beta.kubernetes.io/valkey': 'strict' }],
  ['AppArmor "unconfined" (Pod Security refuses the pods)', { 'container.apparmor.security.beta.kubernetes.io/valkey': 'unconfined' }],
  ['AppArmor "" (Pod Security refuses the pods)', { 'container.apparmor.security.beta.kubernetes.io/valkey': '' }],
  ['AppArmor "runtime/default"', { 'container.apparmor.security.beta.kubernetes.io/valkey': 'runtime/default' }],
  ['AppArmor "localhost/valkey"', { 'container.apparmor.security.beta.kubernetes.io/valkey': 'localhost/valkey' }],
  ['AppArmor for a container the pod does not have', { 'container.apparmor.security.beta.kubernetes.io/sidecar': 'runtime/default' }],
  ['the mirror-pod annotation', { 'kubernetes.io/config.mirror': 'x' }],
  ['the old tolerations annotation, not JSON', { 'scheduler.alpha.kubernetes.io/tolerations': 'not json' }],
];

describe('the API server refuses what the function refuses, and takes what it renders', () => {
  let api: ApiServer;

  beforeAll(async () => {
    await ensureTools();
    api = await startApiServer();
    await createNamespaces(api, [NAMESPACE], { restricted: true });
  }, 45 * 60_000);

  afterAll(async () => {
    await api?.stop();
  });

  it('a ConfigMap of exactly 1 MiB of data is created; one byte more is refused, by both', async () => {
    const files = (aclBytes: number) => ({ 'valkey.conf': 'é'.repeat(1000), 'users.acl': 'x'.repeat(aclBytes), 'probe.sh': '#!/bin/sh\n' });
    const room = KUBE_LIMITS.configMapData - 2000 - 10;
    const fits = await dryRun(api, `/api/v1/namespaces/${NAMESPACE}/configmaps`, renderConfigMap('c', NAMESPACE, files(room)));
    expect(verdict(fits)).toBe('accepted');
    expect(configMapSizeProblem('c', NAMESPACE, files(room))).toBeUndefined();
    const over = await dryRun(api, `/api/v1/namespaces/${NAMESPACE}/configmaps`, renderConfigMap('c', NAMESPACE, files(room + 1)));
    expect(over.status).toBe(422);
    expect(over.body).toContain('Too long: may not be more than 1048576 bytes');
    expect(configMapSizeProblem('c', NAMESPACE, files(room + 1))?.severity).toBe('error');
  });

  it.each(ROWS)('%s', async (_name, podAnnotations) => {
    const sts = statefulSetWith(podAnnotations);
    expect(sts.spec).toMatchObject({ template: { metadata: { annotations: { [ANNOTATIONS.restartHash]: expect.any(String) } } } });
    const stsVerdict = verdict(await dryRun(api, `/apis/apps/v1/namespaces/${NAMESPACE}/statefulsets`, sts));
    // The StatefulSet controller would create its pods from the template, in a restricted namespace.
    const [pod] = podsFromTemplates([sts]);
    const podVerdict = stsVerdict === 'accepted' ? verdict(await dryRun(api, `/api/v1/namespaces/${NAMESPACE}/pods`, pod)) : 'not created';
    const apiRefuses = stsVerdict !== 'accepted' || podVerdict !== 'accepted';
    expect({ functionRefuses: functionRefuses(podAnnotations), stsVerdict, podVerdict }).toMatchObject({ functionRefuses: apiRefuses });
  });
});
