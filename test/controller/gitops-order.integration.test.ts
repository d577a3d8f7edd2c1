// Whatever order a GitOps sync applies things in, a cluster comes up (issue 33), in the real kube
// world (kube-apiserver, etcd, the stand-in kubelet running real Valkey 9.1.2), the controller
// in-process as its ServiceAccount with the shipped timings:
//
// - a TLS cluster applied without its Secret (as cert-manager leaves it for a while) waits,
//   Creating with condition Waiting naming the Secret, Progressing for Argo CD's health check (on
//   gopher-lua) and InProgress for kstatus; the Secret written 20 s later, it reaches Active with
//   no one involved (the time from Secret to Active is printed);
// - a Secret that never appears leaves a clear, non-terminal status;
// - a cluster's objects applied one by one in reverse order (the ValkeyCluster first, the
//   replication Secret last) converge to Active;
// - an application connects from the connection ConfigMap with a client certificate issued by the
//   cluster's CA (client auth only) and its ACL user, with real valkey-cli; without a certificate,
//   or with one from another CA, it is refused.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podFqdn } from '../../src/api/index.js';
import type { App } from '../../src/controller/app.js';
import { podEndpoint } from '../../src/controller/main.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { SHIPPED_NODE_TIMEOUT_MS, SHIPPED_RETRY_BACKOFF, SHIPPED_TIMING } from '../../src/controller/shipped-defaults.js';
import { ensureTools } from '../support/apiserver.js';
import { prepareWorld } from '../support/controller/api-world.js';
import { apiJson, renderClusterObjects, startDay2World } from '../support/controller/day2-world.js';
import { startInProcessApp } from '../support/controller/test-controller.js';
import { run } from '../support/exec.js';
import { tempDirs } from '../support/files.js';
import { argoHealth, argoHealthScript, kstatus } from '../support/gitops-oracles.js';
import { sha256 } from '../support/hash.js';
import type { KubeWorld } from '../support/kube-world.js';
import { cluster, role } from '../support/objects.js';
import { waitFor } from '../support/process.js';
import { issueClientCertificate, makePki, type TestPki } from '../support/tls.js';
import { valkeyCliPath } from '../support/valkey.js';

const NS = 'gitops';
const NS_REV = 'gitops-rev';
const REPLICATION_PASSWORD = 'replication-password-for-gitops';
const CONTROLLER_PASSWORD = 'controller-password-for-gitops';
const APP_USER = 'orders-api';
const APP_PASSWORD = 'orders-api-password';
const SECRET_DELAY_MS = 20_000;
const passwords = { replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD };

const rw = role('rw', {
  categories: [
    { name: 'read', access: 'allow' },
    { name: 'write', access: 'allow' },
    { name: 'connection', access: 'allow' },
  ],
});
const acl = [
  {
    username: APP_USER,
    passwordHashes: [sha256(APP_PASSWORD)],
    permissions: [{ roleRef: 'rw', keys: [{ pattern: 'orders:*', access: 'readwrite' }] }],
  },
];
const LATE = cluster('late', { shards: 1, replicasPerShard: 1, tls: { secretRef: 'late-tls' }, acl }, NS);
const NEVER = cluster('never', { shards: 1, replicasPerShard: 0, tls: { secretRef: 'never-tls' } }, NS);
const REV = cluster('rev', { shards: 1, replicasPerShard: 1 }, NS_REV);

const tmp = tempDirs('gitops-order');
afterAll(() => tmp.cleanup());

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
}
interface ClusterObject {
  metadata: { name: string; generation?: number };
  status?: { state?: string; message?: string; conditions?: Condition[] };
}

const healthScript = argoHealthScript(tmp.make('lua'));

const tlsSecret = (name: string, pki: TestPki) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS },
  type: 'kubernetes.io/tls',
  stringData: { 'ca.crt': pki.ca, 'tls.crt': pki.cert, 'tls.key': pki.key },
});

describe('a GitOps sync in any order: waiting, not failing; connecting from the connection document', () => {
  let world: KubeWorld;
  let app: App | undefined;
  let pki: TestPki;
  let secretToActiveMs = Number.NaN;
  const logs: string[] = [];

  const get = <T>(path: string): Promise<T> => apiJson<T>(world, 'GET', path);
  const clusterObject = (ns: string, name: string) =>
    get<ClusterObject>(`/apis/valkey.gomomento.com/v1alpha1/namespaces/${ns}/valkeyclusters/${name}`);
  const condition = (c: ClusterObject, type: string) => c.status?.conditions?.find((x) => x.type === type);
  const podIp = async (ns: string, pod: string) =>
    (await get<{ status?: { podIP?: string } }>(`/api/v1/namespaces/${ns}/pods/${pod}`)).status?.podIP;

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    pki = makePki(
      ['late-0-0', 'late-0-1'].map((p) => podFqdn(p, 'late', NS, 'cluster.local')),
      { days: 30 },
    );
    world = await startDay2World({
      images: { 'valkey/valkey:9.0.1': { build: '9.1.2' } },
      configSyncDelayMs: 1_000,
      namespace: NS,
      replicationPassword: REPLICATION_PASSWORD,
    });
    await world.createNamespace(NS_REV);
    const prepared = await prepareWorld(world.api);
    app = await startInProcessApp({
      kubeconfig: prepared.controllerKubeconfig,
      namespaces: [NS, NS_REV],
      password: CONTROLLER_PASSWORD,
      endpointOf: podEndpoint,
      timeouts: { connectMs: SHIPPED_NODE_TIMEOUT_MS, commandMs: SHIPPED_NODE_TIMEOUT_MS },
      tuning: { concurrency: 4, maxConcurrentRolls: 1, timing: SHIPPED_TIMING, retryBackoff: SHIPPED_RETRY_BACKOFF },
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics: controllerMetrics(),
    });
  }, 300_000);

  afterAll(async () => {
    await app?.stop();
    await world?.stop();
    pki?.remove();
    if (Number.isFinite(secretToActiveMs))
      process.stdout.write(
        `[gitops-order] TLS Secret written -> cluster Active: ${(secretToActiveMs / 1000).toFixed(1)} s (shipped timings)\n`,
      );
  }, 120_000);

  it('a TLS cluster whose Secret appears 20 s after its objects waits (Creating, Waiting, Progressing) and reaches Active untouched', async () => {
    const objects = [...renderClusterObjects(passwords, [rw, LATE]), LATE, ...renderClusterObjects(passwords, [NEVER]), NEVER];
    const applied = Date.now();
    await world.apply(objects);
    // The controller's first passes find the Secret missing: a wait, named, never Failed.
    let waiting: ClusterObject | undefined;
    await waitFor(
      'late waiting for its Secret',
      async () => {
        const c = await clusterObject(NS, 'late');
        if (condition(c, 'Waiting')?.status === 'True') waiting = c;
        return waiting !== undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    const w = waiting as ClusterObject;
    expect(w.status?.state).toBe('Creating');
    expect(condition(w, 'Waiting')).toMatchObject({ reason: 'SecretMissing' });
    expect(w.status?.message).toMatch(/^Waiting for Secret gitops\/late-tls \(spec\.tls\.secretRef\) since \d{4}-/);
    expect(condition(w, 'Stalled')).toBeUndefined();
    // What the GitOps tools show meanwhile, by their own readers.
    expect(argoHealth(healthScript, w)).toEqual({ status: 'Progressing', message: w.status?.message });
    expect(kstatus(w).status).toBe('InProgress');
    const states = new Set<string>();
    while (Date.now() - applied < SECRET_DELAY_MS) {
      states.add((await clusterObject(NS, 'late')).status?.state ?? 'none');
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect([...states]).toEqual(['Creating']);
    // cert-manager writes the Secret now; nobody touches the cluster.
    await world.apply([tlsSecret('late-tls', pki)]);
    const written = Date.now();
    await waitFor('late Active', async () => (await clusterObject(NS, 'late')).status?.state === 'Active', {
      timeoutMs: 240_000,
      intervalMs: 250,
    });
    secretToActiveMs = Date.now() - written;
    const active = await clusterObject(NS, 'late');
    expect(condition(active, 'Waiting')).toMatchObject({ status: 'False', reason: 'NothingMissing' });
    expect(argoHealth(healthScript, active).status).toBe('Healthy');
    expect(kstatus(active).status).toBe('Current');
  }, 360_000);

  it('a Secret that never appears leaves a clear, non-terminal status: Creating, Waiting since its first pass, InProgress', async () => {
    const c = await clusterObject(NS, 'never');
    expect(c.status?.state).toBe('Creating');
    const waiting = condition(c, 'Waiting') as Condition;
    expect(waiting).toMatchObject({ status: 'True', reason: 'SecretMissing' });
    expect(waiting.message).toContain(`Waiting for Secret gitops/never-tls (spec.tls.secretRef) since ${waiting.lastTransitionTime}`);
    // It has waited all along: since before the other cluster's Secret was written.
    expect(Date.now() - Date.parse(waiting.lastTransitionTime)).toBeGreaterThan(SECRET_DELAY_MS);
    expect(condition(c, 'TLSSecretValid')).toMatchObject({ status: 'False', reason: 'SecretMissing' });
    expect(condition(c, 'Stalled')).toBeUndefined();
    expect(kstatus(c).status).toBe('InProgress');
    expect(argoHealth(healthScript, c).status).toBe('Progressing');
  });

  it('an application connects from the connection ConfigMap with a client certificate from the cluster CA; without one it is refused', async () => {
    const doc = await get<{ data: Record<string, string> }>(`/api/v1/namespaces/${NS}/configmaps/late-connection`);
    expect(doc.data).toMatchObject({ tls: 'yes', 'tls-ca-secret': 'late-tls', 'tls-ca-key': 'ca.crt', port: '6379', users: APP_USER });
    expect(JSON.stringify(doc)).not.toContain(APP_PASSWORD);
    // The seed's DNS name is its pod's: the test has no cluster DNS, so it dials that pod's IP.
    const seed = (doc.data.seeds as string).split(',')[0] as string;
    const ip = (await podIp(NS, seed.split('.')[0] as string)) as string;
    const caSecret = await get<{ data: Record<string, string> }>(`/api/v1/namespaces/${NS}/secrets/${doc.data['tls-ca-secret']}`);
    const dir = tmp.make('client');
    const caFile = join(dir, 'ca.crt');
    writeFileSync(caFile, Buffer.from(caSecret.data[doc.data['tls-ca-key'] as string] as string, 'base64'));
    const user = (doc.data.users as string).split(',')[0] as string;
    const cli = (extra: string[], ...command: string[]) =>
      run(valkeyCliPath(), [
        '-h',
        ip,
        '-p',
        doc.data.port as string,
        '--tls',
        '--cacert',
        caFile,
        ...extra,
        '--user',
        user,
        '--pass',
        APP_PASSWORD,
        '--no-auth-warning',
        ...command,
      ]);

    const issued = issueClientCertificate(pki.dir, user, dir);
    const set = await cli(['--cert', issued.cert, '--key', issued.key, '-c'], 'SET', 'orders:1', 'paid');
    expect(set.stdout.trim()).toBe('OK');
    const got = await cli(['--cert', issued.cert, '--key', issued.key, '-c'], 'GET', 'orders:1');
    expect(got.stdout.trim()).toBe('paid');

    const none = await cli([], 'PING');
    expect(`${none.stdout}${none.stderr}`).not.toContain('PONG');
    const other = makePki(['elsewhere']);
    try {
      const foreign = issueClientCertificate(other.dir, user, tmp.make('foreign'));
      const refused = await cli(['--cert', foreign.cert, '--key', foreign.key], 'PING');
      expect(`${refused.stdout}${refused.stderr}`).not.toContain('PONG');
    } finally {
      other.remove();
    }
    // A certificate alone is not a login: the ACL user's password is still required.
    const wrong = await run(valkeyCliPath(), [
      '-h',
      ip,
      '-p',
      '6379',
      '--tls',
      '--cacert',
      caFile,
      '--cert',
      issued.cert,
      '--key',
      issued.key,
      '--user',
      user,
      '--pass',
      'not-the-password',
      '--no-auth-warning',
      'GET',
      'orders:1',
    ]);
    expect(`${wrong.stdout}${wrong.stderr}`).not.toContain('paid');
    process.stdout.write(
      `[gitops-order] valkey-cli 9.1.2: with the issued client certificate "${set.stdout.trim()}"/"${got.stdout.trim()}"; without a certificate: ${JSON.stringify(`${none.stdout}${none.stderr}`.trim())}; another CA: refused; wrong password: ${JSON.stringify(`${wrong.stdout}${wrong.stderr}`.trim())}\n`,
    );
  }, 60_000);

  it('objects applied one by one in reverse order (the ValkeyCluster first, the replication Secret last) converge to Active', async () => {
    const rendered = renderClusterObjects<{ kind: string; metadata: { name: string } }>(passwords, [REV]);
    const replication = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'valkey-replication', namespace: NS_REV },
      stringData: { password: REPLICATION_PASSWORD },
    };
    const order = [REV, ...[...rendered].reverse(), replication];
    const seen = new Map<string, string>();
    for (const o of order) {
      await world.apply([o]);
      await new Promise((r) => setTimeout(r, 3_000));
      const c = await clusterObject(NS_REV, 'rev');
      seen.set(`${(o as { kind: string }).kind}/${(o as { metadata: { name: string } }).metadata.name}`, c.status?.message ?? '');
      expect(c.status?.state ?? 'Creating').toBe('Creating');
    }
    // Before its ConfigMap and the replication Secret came, the cluster said it waited for them.
    const waitedFor = [...seen.values()].join('\n');
    expect(waitedFor).toMatch(/Waiting for ConfigMap gitops-rev\/rev-config \(volume config\)/);
    expect(waitedFor).toMatch(/Secret gitops-rev\/valkey-replication \(env VALKEY_REPLICATION_PASSWORD\)/);
    await waitFor('rev Active', async () => (await clusterObject(NS_REV, 'rev')).status?.state === 'Active', {
      timeoutMs: 240_000,
      intervalMs: 500,
    });
    process.stdout.write(
      `[gitops-order] reverse order, status after each apply:\n${[...seen].map(([k, v]) => `  ${k}: ${v}`).join('\n')}\n`,
    );
  }, 360_000);
});
