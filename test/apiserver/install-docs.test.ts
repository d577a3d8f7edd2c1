// docs/install.md's "Install" block, run exactly as written against a real kube-apiserver, in a
// scratch copy of the repository: the CRDs, the overlay with a user's image, the namespace, the
// controller's Secret, a server-side dry run and the apply. (The Deployment's pods need a
// kubelet: the real-node suite runs them.)
import { createHash } from 'node:crypto';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namespacePassword } from '../../src/controller/valkey/controller-credentials.js';
import { ensureTools, startApiServer, type ApiServer } from '../support/apiserver.js';
import { run } from '../support/exec.js';
import { tempDirs } from '../support/files.js';
import { shBlockAfter } from '../support/markdown.js';
import { repoPath } from '../support/paths.js';

const tmp = tempDirs('install-docs');
let api: ApiServer;

beforeAll(async () => {
  await ensureTools();
  api = await startApiServer();
}, 300_000);
afterAll(async () => {
  await api?.stop();
  tmp.cleanup();
});

const kubectl = (args: string[]) => run('kubectl', ['--kubeconfig', api.kubeconfigPath, ...args]);

describe('docs/install.md', () => {
  it('"Install" runs as written and leaves the controller, its PDB and NetworkPolicy, with the overlay\'s image', async () => {
    const dir = tmp.make('repo');
    for (const part of ['crds', 'deploy']) cpSync(repoPath(part), join(dir, part), { recursive: true });
    const script = shBlockAfter('docs/install.md', '## 2. Install');
    const r = await run('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', script], {
      cwd: dir,
      env: { ...process.env, KUBECONFIG: api.kubeconfigPath },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/^Warning:/m);

    const deployment = JSON.parse((await kubectl(['-n', 'valkey-system', 'get', 'deployment', 'valkey-status-sync', '-o', 'json'])).stdout);
    expect(deployment.spec.template.spec.containers[0].image).toBe('registry.example.com/platform/valkey-krm:0.1.0');
    expect(deployment.spec.replicas).toBe(2);
    const pdb = JSON.parse((await kubectl(['-n', 'valkey-system', 'get', 'pdb', 'valkey-status-sync', '-o', 'json'])).stdout);
    expect(pdb.spec).toMatchObject({ maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': 'valkey-status-sync' } } });
    const policy = JSON.parse((await kubectl(['-n', 'valkey-system', 'get', 'networkpolicy', 'valkey-status-sync', '-o', 'json'])).stdout);
    const egressPorts = policy.spec.egress.flatMap((e: { ports: { port: number }[] }) => e.ports.map((p) => p.port)).sort();
    expect(egressPorts).toEqual([16379, 443, 53, 53, 6379, 6443].sort());
    // The PDB selects the Deployment's own pods, and so does the NetworkPolicy.
    expect(deployment.spec.template.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
    expect(deployment.spec.template.metadata.labels).toMatchObject(policy.spec.podSelector.matchLabels);

    const secret = JSON.parse((await kubectl(['-n', 'valkey-system', 'get', 'secret', 'valkey-controller', '-o', 'json'])).stdout);
    const key = Buffer.from(secret.data.key, 'base64').toString('utf8');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    // The hash the doc computes is the one the controller's derivation gives for that namespace.
    const password = namespacePassword(key, 'team-a');
    expect(readFileSync(join(dir, 'team-a.controller.sha256'), 'utf8').trim()).toBe(createHash('sha256').update(password).digest('hex'));

    const crds = (await kubectl(['get', 'crd', '-o', 'name'])).stdout.split('\n').filter((l) => l.includes('valkey.gomomento.com'));
    expect(crds).toHaveLength(5);
  }, 240_000);
});
