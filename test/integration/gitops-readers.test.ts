// What Argo CD and Flux read from our objects, with their own readers: the ValkeyCluster health
// check under Argo CD's Lua sandbox, kstatus (Flux's health checks) on the status the controller
// computes, the Argo CD install component as kustomize builds it, and the JSON Schemas with
// kubeconform. The readers are built from their Go modules (scripts/build-gitops-oracles.sh).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ValkeyClusterStatus } from '../../src/api/index.js';
import type { NodeObservation } from '../../src/controller/cluster/observation.js';
import { buildStatus, type StatusInput } from '../../src/controller/cluster/status.js';
import { judgeTlsSecret } from '../../src/controller/cluster/tls-secret.js';
import { parseClusterInfo, parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';
import { run } from '../support/exec.js';
import { tempDirs } from '../support/files.js';
import { argoHealth, kstatus, kubeconform } from '../support/gitops-oracles.js';
import { repoPath } from '../support/paths.js';

const tmp = tempDirs('gitops-readers');
afterAll(() => tmp.cleanup());

// ---------------------------------------------------------------- statuses as the controller computes them

const OK_INFO = parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n');
const primaryView = ['p 10.0.0.1:6379@16379 myself,master - 0 0 1 connected 0-16383', 'r 10.0.0.2:6379@16379 slave p 0 0 1 connected'];
const replicaView = ['r 10.0.0.2:6379@16379 myself,slave p 0 0 1 connected', 'p 10.0.0.1:6379@16379 master - 0 0 1 connected 0-16383'];
const answered = (pod: string, ordinal: number, lines: string[]): NodeObservation => ({
  pod,
  shard: 0,
  ordinal,
  ip: `10.0.0.${ordinal + 1}`,
  state: 'answered',
  identity: { kind: 'valkey', version: '9.1.2' },
  version: '9.1.2',
  endpoint: { host: `10.0.0.${ordinal + 1}`, port: 6379, busPort: 16379 },
  view: parseClusterNodes(lines.join('\n')),
  info: OK_INFO,
});
const formed = [answered('c-0-0', 0, primaryView), answered('c-0-1', 1, replicaView)];

function status(over: Partial<StatusInput>): ValkeyClusterStatus {
  return buildStatus({
    namespace: 'shop',
    generation: 3,
    shards: 1,
    replicasPerShard: 1,
    observations: formed,
    plan: { actions: [], waiting: [], primaries: new Map([[0, 'c-0-0']]) },
    actionErrors: [],
    declared: { imageRef: 'valkey-9-1', version: '9.1.2' },
    now: '2026-12-01T00:00:00Z',
    ...over,
  });
}

const STATUSES: Record<string, ValkeyClusterStatus> = {
  Creating: status({
    observations: [{ pod: 'c-0-0', shard: 0, ordinal: 0, state: 'pending', reason: 'has no IP yet' }],
    plan: { actions: [], waiting: ['shard 0: no pod has answered yet'], primaries: new Map() },
  }),
  Active: status({}),
  // Issue 33: a TLS cluster applied before cert-manager wrote its Secret waits; it does not fail.
  Waiting: status({
    observations: [{ pod: 'c-0-0', shard: 0, ordinal: 0, state: 'pending', reason: 'is Pending' }],
    plan: { actions: [], waiting: ['shard 0: no pod has answered yet'], primaries: new Map() },
    tls: judgeTlsSecret('shop/c-tls', { kind: 'absent' }, Date.parse('2026-12-01T00:00:00Z')),
  }),
  Updating: status({
    day2: { roll: { state: 'rolling', message: 'rolling shard 0: pod c-0-1 to revision r2', revision: 'r2' }, reloads: [] },
  }),
  // Failed belongs to creation: a below-floor binary before the cluster ever formed.
  Failed: status({
    plan: { actions: [], waiting: ['shard 0: no pod has answered yet'], primaries: new Map() },
    observations: [
      {
        pod: 'c-0-1',
        shard: 0,
        ordinal: 1,
        ip: '10.0.0.2',
        state: 'rejected',
        identity: { kind: 'valkey', version: '8.0.1' },
        verdict: { ok: false, reason: 'BelowFloor', found: 'valkey_version 8.0.1' },
      } as NodeObservation,
    ],
  }),
};

const cluster = (st: ValkeyClusterStatus | undefined, generation = 3) => ({
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyCluster',
  metadata: { name: 'c', namespace: 'shop', generation },
  spec: { configRef: 'small', shards: 1, replicasPerShard: 1 },
  ...(st ? { status: st } : {}),
});

// ---------------------------------------------------------------- Argo CD

const component = repoPath('integrations/argocd');
const healthKey = 'resource.customizations.health.valkey.gomomento.com_ValkeyCluster';
const healthScript = (() => {
  const patch = parse(readFileSync(join(component, 'argocd-cm-patch.yaml'), 'utf8')) as { data: Record<string, string> };
  const path = join(tmp.make('lua'), 'health.lua');
  writeFileSync(path, patch.data[healthKey] as string);
  return path;
})();

describe("the ValkeyCluster health check, under Argo CD's Lua sandbox", () => {
  it.each([
    ['Creating', 'Progressing'],
    ['Active', 'Healthy'],
    ['Updating', 'Progressing'],
    ['Failed', 'Degraded'],
  ])('a %s cluster is %s, with the status message', (state, health) => {
    const st = STATUSES[state] as ValkeyClusterStatus;
    expect(st.state).toBe(state);
    expect(argoHealth(healthScript, cluster(st))).toEqual({ status: health, message: st.message });
  });

  it('a cluster waiting for its TLS Secret is Progressing, "Waiting for Secret ...", not Degraded', () => {
    const st = STATUSES.Waiting as ValkeyClusterStatus;
    expect(st.state).toBe('Creating');
    expect(st.message).toMatch(/^Waiting for Secret shop\/c-tls \(spec\.tls\.secretRef\) since 2026-12-01T00:00:00Z/);
    expect(argoHealth(healthScript, cluster(st))).toEqual({ status: 'Progressing', message: st.message });
  });

  it('is Progressing before the controller has reported, and while it has not seen the latest generation', () => {
    expect(argoHealth(healthScript, cluster(undefined))).toMatchObject({ status: 'Progressing' });
    expect(argoHealth(healthScript, cluster(STATUSES.Active, 4))).toEqual({
      status: 'Progressing',
      message: 'valkey-status-sync has not reported on generation 4 yet',
    });
  });

  it('is Degraded for Invalid, and Unknown (not Healthy) for a state it does not know', () => {
    const active = STATUSES.Active as ValkeyClusterStatus;
    expect(argoHealth(healthScript, cluster({ ...active, state: 'Invalid' as 'Failed', message: 'tls secret gone' }))).toEqual({
      status: 'Degraded',
      message: 'tls secret gone',
    });
    expect(argoHealth(healthScript, cluster({ ...active, state: 'Exploding' as 'Failed', message: 'x' }))).toEqual({
      status: 'Unknown',
      message: 'Unknown state Exploding: x',
    });
  });
});

describe('lost data is never Healthy or Current (issue 31)', () => {
  const dataLost = {
    type: 'DataLost',
    status: 'True' as const,
    reason: 'SlotsLost',
    message: 'shard 0: slots 0-16383 (16384) were given to c-0-0, which holds none of their keys, at 2026-12-01T00:00:00Z',
    observedGeneration: 3,
  };
  const lost = status({ kube: { dataLost } });

  it('an Active cluster whose DataLost condition is True is Degraded for Argo CD, with the status message', () => {
    expect(lost.state).toBe('Active');
    expect(argoHealth(healthScript, cluster(lost))).toEqual({ status: 'Degraded', message: lost.message });
  });

  it('and Failed for kstatus (Stalled, reason DataLost), so a Flux health check fails until acknowledged', () => {
    expect(kstatus(cluster(lost)).status).toBe('Failed');
    const acked = status({ kube: { dataLost: { ...dataLost, status: 'False', reason: 'Acknowledged' } } });
    expect(kstatus(cluster(acked)).status).toBe('Current');
    expect(argoHealth(healthScript, cluster(acked))).toMatchObject({ status: 'Healthy' });
  });
});

describe('the Argo CD install component, built with kubectl kustomize', () => {
  const base = (namespace: boolean) =>
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: argocd-repo-server',
      ...(namespace ? ['  namespace: argocd'] : []),
      'spec:',
      '  selector: {matchLabels: {app.kubernetes.io/name: argocd-repo-server}}',
      '  template:',
      '    metadata: {labels: {app.kubernetes.io/name: argocd-repo-server}}',
      '    spec:',
      '      containers: [{name: argocd-repo-server, image: argocd}]',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: argocd-cm',
      ...(namespace ? ['  namespace: argocd'] : []),
      'data:',
      '  url: https://argocd.example.com',
      '',
    ].join('\n');

  it.each([
    ['without a namespace on the base objects', false],
    ['when the base sets namespace: argocd on them', true],
  ])('adds the sidecar and the health check %s, keeping argocd-cm’s own keys', async (_, namespaced) => {
    const root = tmp.make(`install-${String(namespaced)}`);
    cpSync(component, join(root, 'argocd'), { recursive: true });
    writeFileSync(join(root, 'base.yaml'), base(namespaced));
    writeFileSync(join(root, 'kustomization.yaml'), 'namespace: argocd\nresources:\n  - base.yaml\ncomponents:\n  - argocd\n');
    const r = await run('kubectl', ['kustomize', root]);
    expect(r.stderr).toBe('');
    const docs = r.stdout
      .split(/^---$/m)
      .map((d) => parse(d) as { kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: unknown });
    const cm = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'argocd-cm');
    expect(cm?.data?.url).toBe('https://argocd.example.com');
    expect(cm?.data?.[healthKey]).toBe(readFileSync(healthScript, 'utf8'));
    const repo = docs.find((d) => d.kind === 'Deployment') as { spec: { template: { spec: { containers: { name: string }[] } } } };
    expect(repo.spec.template.spec.containers.map((c) => c.name).sort()).toEqual(['argocd-repo-server', 'valkey-krm']);
  });
});

// ---------------------------------------------------------------- Flux (kstatus)

describe('kstatus reads the status the controller computes', () => {
  it.each([
    ['Creating', 'InProgress'],
    ['Waiting', 'InProgress'],
    ['Updating', 'InProgress'],
    ['Active', 'Current'],
    ['Failed', 'Failed'],
  ])('%s -> %s', (state, expected) => {
    const st = STATUSES[state] as ValkeyClusterStatus;
    expect(kstatus(cluster(st)).status).toBe(expected);
  });

  it('an Active status written for an older generation is InProgress, not Current', () => {
    expect(kstatus(cluster(STATUSES.Active, 4)).status).toBe('InProgress');
  });

  it("a cert-manager Certificate still issuing, and once issued (the Flux recipe's valkey-certificates Kustomization waits on it)", () => {
    const certificate = (ready: 'True' | 'False', reason: string) => ({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'c-tls', namespace: 'shop', generation: 1 },
      spec: { secretName: 'c-tls', issuerRef: { kind: 'ClusterIssuer', name: 'internal-ca' } },
      status: { conditions: [{ type: 'Ready', status: ready, reason, message: reason, observedGeneration: 1 }] },
    });
    expect(kstatus(certificate('False', 'Issuing')).status).toBe('InProgress');
    expect(kstatus(certificate('True', 'Ready')).status).toBe('Current');
  });
});

// ---------------------------------------------------------------- JSON Schemas

const SCHEMAS = ['-schema-location', 'schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json'];

describe('the JSON Schemas, with kubeconform', () => {
  it('accept every bundled example package (Kptfiles are skipped: not ours)', () => {
    const r = kubeconform(['-strict', '-summary', '-ignore-missing-schemas', ...SCHEMAS, 'kptfile-examples']);
    expect(r.out).toMatch(/Invalid: 0, Errors: 0/);
    expect(r.out).toMatch(/Valid: (\d{2,})/);
    expect(r.code).toBe(0);
  });

  it('refuse a package with a wrong type, an unknown field and a bad enum, naming each', () => {
    const dir = tmp.make('broken');
    writeFileSync(
      join(dir, 'clusters.yaml'),
      [
        'apiVersion: valkey.gomomento.com/v1alpha1',
        'kind: ValkeyCluster',
        'metadata: {name: cart, namespace: shop}',
        'spec:',
        '  configRef: small',
        '  shards: three',
        '  replicasPerShard: 1',
        '  image: valkey/valkey:latest',
        '  placement: {zoneSpread: sometimes}',
        '',
      ].join('\n'),
    );
    const r = kubeconform(['-strict', '-output', 'text', ...SCHEMAS, dir]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('ValkeyCluster cart is invalid');
    expect(r.out).toMatch(/shards/);
    expect(r.out).toMatch(/image/);
    expect(r.out).toMatch(/zoneSpread/);
  });
});
