import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTools, startApiServer, type ApiServer } from './apiserver.js';

// The first run on a machine builds kube-apiserver, etcd and kustomize from
// their Go modules (scripts/build-tools.sh): tens of minutes on 2 cores.
const BUILD_TIMEOUT_MS = 45 * 60_000;
const START_TIMEOUT_MS = 3 * 60_000;

const manifests = `
apiVersion: v1
kind: Namespace
metadata:
  name: harness-test
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: harness-test
data:
  maxmemory: 100mb
`;

describe('kube-apiserver harness', () => {
  let api: ApiServer;

  beforeAll(async () => {
    await ensureTools();
  }, BUILD_TIMEOUT_MS);

  beforeAll(async () => {
    const t0 = performance.now();
    api = await startApiServer();
    console.log(`apiserver harness: ready at ${api.url} in ${Math.round(performance.now() - t0)} ms`);
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await api?.stop();
  });

  it('listens on loopback and serves the built version', async () => {
    expect(api.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(api.etcdUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await api.request('GET', '/version');
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as { gitVersion: string }).gitVersion).toMatch(/^v1\.\d+\.\d+/);
  });

  it('kubectl get ns works', async () => {
    const r = await api.kubectl(['get', 'ns', '-o', 'name']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('namespace/default');
    expect(r.stdout).toContain('namespace/kube-system');
  });

  it('applies a namespace and a ConfigMap server-side', async () => {
    const r = await api.kubectl(['apply', '--server-side', '--field-manager=harness-test', '-f', '-'], {
      input: manifests,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const cm = await api.kubectl(['get', 'configmap', 'settings', '-n', 'harness-test', '-o', 'json', '--show-managed-fields']);
    expect(cm.code).toBe(0);
    const obj = JSON.parse(cm.stdout) as { data: Record<string, string>; metadata: { managedFields: { manager: string }[] } };
    expect(obj.data).toEqual({ maxmemory: '100mb' });
    expect(obj.metadata.managedFields.map((f) => f.manager)).toContain('harness-test');
  });

  it('rejects an invalid object on --dry-run=server', async () => {
    const bad = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: Not_A_Valid_Name
  namespace: harness-test
data:
  "not a valid key!": x
`;
    const r = await api.kubectl(['apply', '--server-side', '--dry-run=server', '-f', '-'], { input: bad });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/is invalid/);
    expect(r.stderr).toContain('metadata.name: Invalid value');
    expect(r.stderr).toContain('not a valid key!');
  });

  it('enforces PodSecurity admission', async () => {
    const r = await api.kubectl(['apply', '--server-side', '-f', '-'], {
      input: `
apiVersion: v1
kind: Namespace
metadata:
  name: harness-restricted
  labels:
    pod-security.kubernetes.io/enforce: restricted
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: default
  namespace: harness-restricted
`,
    });
    expect(r.code, r.stderr).toBe(0);
    const pod = await api.kubectl(['apply', '--dry-run=server', '-f', '-'], {
      input: `
apiVersion: v1
kind: Pod
metadata:
  name: privileged
  namespace: harness-restricted
spec:
  containers:
    - name: c
      image: busybox
      securityContext:
        privileged: true
`,
    });
    expect(pod.code).not.toBe(0);
    expect(pod.stderr).toMatch(/violates PodSecurity "restricted/);
  });

  it('keeps its data across an apiserver restart on the same port', async () => {
    const url = api.url;
    const t0 = performance.now();
    await api.restart();
    console.log(`apiserver harness: restarted in ${Math.round(performance.now() - t0)} ms`);
    expect(api.url).toBe(url);
    const cm = await api.kubectl(['get', 'configmap', 'settings', '-n', 'harness-test', '-o', 'jsonpath={.data.maxmemory}']);
    expect(cm.stderr).toBe('');
    expect(cm.stdout).toBe('100mb');
  });

  it('stops and cleans up', async () => {
    const { dir } = api;
    await api.stop();
    expect(existsSync(dir)).toBe(false);
    const r = await api.kubectl(['get', 'ns', '--request-timeout=2s']);
    expect(r.code).not.toBe(0);
  });
});
