// The contract tests' view of a real kube-apiserver: the generated CRDs installed, kubectl's
// verdicts read, the API groups it serves.
import { readdirSync } from 'node:fs';
import { ApiextensionsV1Api, KubeConfig } from '@kubernetes/client-node';
import { type ApiServer, type KubectlResult, startApiServer } from './apiserver.js';
import { CRD_DIR, repoPath } from './paths.js';
import { waitFor } from './process.js';

const CERTIFICATE_CRD = repoPath('test/fixtures/cert-manager/certificate-crd.yaml');
const CRD_FILES = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'));

/** kubectl's warnings: one `Warning: ...` line on stderr each. */
export const warningsIn = (stderr: string): string[] => stderr.split('\n').filter((l) => /^Warning:/.test(l));

/** Compact context for a failed expectation. */
export const show = (r: KubectlResult): string => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/** API groups this server serves (core is ""): objects of other groups (cert-manager, ...) cannot be checked here. */
export async function servedGroups(api: ApiServer): Promise<Set<string>> {
  const res = await api.request('GET', '/apis');
  const body = JSON.parse(res.body) as { groups: { name: string }[] };
  return new Set(['', ...body.groups.map((g) => g.name)]);
}

/**
 * Starts the harness and installs crds/ with `kubectl apply --server-side`, then waits (through
 * @kubernetes/client-node) until every valkey-krm CRD is Established.
 */
export async function startWithCrds(): Promise<{ api: ApiServer; crdApply: KubectlResult }> {
  const api = await startApiServer();
  try {
    const crdApply = await api.kubectl(['apply', '--server-side', '--field-manager=contract-test', '-f', CRD_DIR]);
    if (crdApply.code !== 0) return { api, crdApply };
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfigPath);
    const ext = kc.makeApiClient(ApiextensionsV1Api);
    await waitFor(
      'valkey-krm CRDs Established',
      async () => {
        const list = await ext.listCustomResourceDefinition({ labelSelector: 'app.kubernetes.io/part-of=valkey-krm' });
        const established = list.items.filter((crd) =>
          crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'),
        );
        // Every CRD in crds/ (the menu's four kinds and the controller's metering record), each Established.
        return established.length === CRD_FILES.length;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    return { api, crdApply };
  } catch (e) {
    await api.stop();
    throw e;
  }
}

/**
 * Teaches the server cert-manager's Certificate kind from the schema of our own in
 * test/fixtures/cert-manager/ (cert-manager is not installed in the tests), so rendered and
 * example Certificates are applied and validated like the rest; waits until it is Established.
 */
export async function installCertificateCrd(api: ApiServer): Promise<void> {
  const applied = await api.kubectl(['apply', '--server-side', '--field-manager=contract-test', '-f', CERTIFICATE_CRD]);
  if (applied.code !== 0) throw new Error(`cert-manager Certificate CRD stand-in: ${show(applied)}`);
  const est = await api.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/certificates.cert-manager.io']);
  if (est.code !== 0) throw new Error(`cert-manager Certificate CRD stand-in not Established: ${show(est)}`);
}
