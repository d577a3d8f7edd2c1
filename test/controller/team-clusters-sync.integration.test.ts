// kptfile-examples/team-clusters synced as ONE apply comes up Active untouched (issue 33, "Done
// when"), in the real kube world: kube-apiserver, etcd, kube-controller-manager, the stand-in
// scheduler and kubelet running real Valkey 9.1.2 for every pod, and the controller in-process as
// its ServiceAccount with the shipped timings. The package is rendered by render-valkey (dist/) as
// Argo CD's plugin or Flux's pipeline would, and everything it prints, the teams' cert-manager
// Certificates included, goes to the API server in one `kubectl apply` (server-side, strict
// validation), once in the order rendered and once reversed (the ValkeyClusters and Certificates
// after the StatefulSets that need their Secrets, or before them).
//
// cert-manager is not installed here. The API server learns its Certificate kind from a schema of
// our own (test/fixtures/cert-manager/certificate-crd.yaml), so the Certificates are applied and
// checked as objects; and ISSUER_STAND_IN plays cert-manager's part ~20 s after the apply (about
// how long an ACME or Vault issuer may take): it reads each applied Certificate and writes the
// Secret its spec asks for, signed by a CA the test made (server names and usages from the spec).
//
// What the platform provides outside the package is created first, as it would be: the teams'
// namespaces with the replication Secret (the README's example password), and the controller.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/controller/app.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { ensureTools } from '../support/apiserver.js';
import { type ClusterObject, getCluster, prepareWorld } from '../support/controller/api-world.js';
import { apiJson, startShippedController } from '../support/controller/day2-world.js';
import { run } from '../support/exec.js';
import { tempDirs } from '../support/files.js';
import { argoHealth, argoHealthScript, kstatus } from '../support/gitops-oracles.js';
import { startKubeWorld, type KubeWorld } from '../support/kube-world.js';
import { installCertificateCrd } from '../support/kubectl.js';
import { waitFor } from '../support/process.js';
import { renderPackage } from '../support/render.js';
import { issueClientCertificate, makePki, type TestPki } from '../support/tls.js';
import { valkeyCliPath } from '../support/valkey.js';
import { joinDocs, type SourceDoc } from '../support/yaml-docs.js';

/** The example passwords of kptfile-examples/team-clusters/README.md, whose hashes the package holds. */
const EXAMPLE = {
  replication: 'example-replication-password',
  controllerKey: 'example-controller-key',
  ledgerApi: 'example-ledger-api-password',
} as const;
const NAMESPACES = ['payments', 'search'] as const;
/** How long the issuer stand-in takes to answer the Certificates after the apply. */
const ISSUE_DELAY_MS = 20_000;

const tmp = tempDirs('team-clusters-sync');
afterAll(() => tmp.cleanup());

interface Certificate {
  metadata: { name: string; namespace: string };
  spec: { secretName: string; commonName?: string; dnsNames?: string[]; usages?: string[]; issuerRef: { kind?: string; name: string } };
}

const healthScript = argoHealthScript(tmp.make('lua'));

/**
 * ISSUER_STAND_IN: cert-manager's part for a CA issuer, from the Certificate objects the API server
 * holds: a `kubernetes.io/tls` Secret named by spec.secretName with tls.crt, tls.key and ca.crt; a
 * certificate for spec.dnsNames with server and client usages when `server auth` is asked, else a
 * client-only one with spec.commonName; then the Certificate's Ready condition, as cert-manager
 * sets it.
 */
async function issueAsCertManager(world: KubeWorld, ca: TestPki, cert: Certificate): Promise<void> {
  const usages = cert.spec.usages ?? [];
  let pair: { cert: string; key: string };
  if (usages.includes('server auth')) {
    expect(cert.spec.dnsNames?.length, `${cert.metadata.name}: a server certificate names its hosts`).toBeGreaterThan(0);
    pair = ca.issue(cert.spec.dnsNames ?? []);
  } else {
    expect(usages).toEqual(['client auth']);
    const dir = tmp.make(`client-${cert.metadata.name}`);
    const files = issueClientCertificate(ca.dir, cert.spec.commonName ?? cert.metadata.name, dir);
    pair = { cert: readFileSync(files.cert, 'utf8'), key: readFileSync(files.key, 'utf8') };
  }
  await world.apply([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: cert.spec.secretName,
        namespace: cert.metadata.namespace,
        annotations: { 'cert-manager.io/certificate-name': cert.metadata.name, 'cert-manager.io/issuer-name': cert.spec.issuerRef.name },
      },
      type: 'kubernetes.io/tls',
      stringData: { 'tls.crt': pair.cert, 'tls.key': pair.key, 'ca.crt': ca.ca },
    },
  ]);
}

describe.each([
  { order: 'as rendered', reverse: false },
  { order: 'reversed', reverse: true },
])('kptfile-examples/team-clusters in one apply, $order: Active untouched', ({ reverse }) => {
  let world: KubeWorld;
  let app: App | undefined;
  let ca: TestPki;
  let docs: SourceDoc[];
  const figures: string[] = [];
  const logs: string[] = [];

  const get = <T>(path: string): Promise<T> => apiJson<T>(world, 'GET', path);
  const clusterObject = (ns: string, name: string) => getCluster(world.api, ns, name);
  const condition = (c: ClusterObject, type: string) => c.status?.conditions?.find((x) => x.type === type);

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    docs = await renderPackage('team-clusters');
    ca = makePki(['issuer-stand-in.invalid'], { days: 30 });
    world = await startKubeWorld({
      images: { 'valkey/valkey:9.0.1': { build: '9.1.2' } },
      // The package's zones and node pool: ledger-cache requires eu-west-1a/b/c, suggest node-pool=caches.
      nodeLabelling: { zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'], labels: { 'node-pool': 'caches' } },
      configSyncDelayMs: 1_000,
      probePeriodMs: 300,
    });
    const prepared = await prepareWorld(world.api);
    await installCertificateCrd(world.api);
    for (const ns of NAMESPACES) {
      await world.createNamespace(ns);
      await world.apply([
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'valkey-replication', namespace: ns },
          stringData: { password: EXAMPLE.replication },
        },
      ]);
    }
    app = await startShippedController({
      controllerKubeconfig: prepared.controllerKubeconfig,
      namespace: NAMESPACES[0],
      namespaces: NAMESPACES,
      controllerPassword: 'unused: the key below derives each namespace password',
      controllerKey: EXAMPLE.controllerKey,
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics: controllerMetrics(),
    });
  }, 300_000);

  afterAll(async () => {
    await app?.stop();
    await world?.stop();
    ca?.remove();
    if (figures.length) process.stdout.write(`[team-clusters-sync ${reverse ? 'reversed' : 'as rendered'}] ${figures.join('; ')}\n`);
  }, 120_000);

  it('one kubectl apply of everything rendered (the Certificates included) is accepted; ledger-cache waits for its Secret, then both clusters reach Active with no one involved', async () => {
    const kinds = docs.map((d) => d.object.kind);
    expect(kinds.filter((k) => k === 'Certificate')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'ValkeyCluster')).toHaveLength(2);
    const ordered = reverse ? [...docs].reverse() : docs;
    const applied = Date.now();
    const r = await world.api.kubectl(['apply', '--server-side', '--field-manager=gitops-sync', '-f', '-'], { input: joinDocs(ordered) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(docs.length);

    // Until the issuer answers, ledger-cache waits, by name, and the GitOps tools say Progressing.
    let waiting: ClusterObject | undefined;
    await waitFor(
      'ledger-cache waiting for its Secret',
      async () => {
        const c = await clusterObject('payments', 'ledger-cache');
        if (condition(c, 'Waiting')?.status === 'True') waiting = c;
        return waiting !== undefined;
      },
      { timeoutMs: ISSUE_DELAY_MS - 2_000, intervalMs: 250 },
    );
    const w = waiting as ClusterObject;
    expect(w.status?.state).toBe('Creating');
    expect(condition(w, 'Waiting')).toMatchObject({ reason: 'SecretMissing' });
    expect(w.status?.message).toMatch(/^Waiting for Secret payments\/ledger-cache-tls \(spec\.tls\.secretRef\) since /);
    expect(argoHealth(healthScript, w)).toEqual({ status: 'Progressing', message: w.status?.message });
    expect(kstatus(w).status).toBe('InProgress');
    const states = new Set<string>();
    while (Date.now() - applied < ISSUE_DELAY_MS) {
      states.add((await clusterObject('payments', 'ledger-cache')).status?.state ?? 'none');
      await new Promise((res) => setTimeout(res, 1_000));
    }
    expect([...states]).toEqual(['Creating']);

    // The issuer stand-in answers every Certificate the apply created.
    const certs = await get<{ items: Certificate[] }>('/apis/cert-manager.io/v1/certificates');
    expect(certs.items.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).sort()).toEqual([
      'payments/ledger-cache-client-ledger-api',
      'payments/ledger-cache-tls',
    ]);
    for (const c of certs.items) await issueAsCertManager(world, ca, c);
    const issued = Date.now();

    await waitFor(
      'both clusters Active',
      async () =>
        (await clusterObject('payments', 'ledger-cache')).status?.state === 'Active' &&
        (await clusterObject('search', 'suggest')).status?.state === 'Active',
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    expect(condition(await clusterObject('payments', 'ledger-cache'), 'Waiting')).toMatchObject({
      status: 'False',
      reason: 'NothingMissing',
    });
    figures.push(`TLS Secrets written -> ledger-cache (3x3) and suggest (2x2) Active: ${((Date.now() - issued) / 1000).toFixed(1)} s`);
    figures.push(`one apply -> both Active: ${((Date.now() - applied) / 1000).toFixed(1)} s`);
    for (const [ns, name] of [
      ['payments', 'ledger-cache'],
      ['search', 'suggest'],
    ] as const) {
      const c = await clusterObject(ns, name);
      // suggest has nothing to wait for and may never have waited: no Waiting condition, or a False one.
      expect(condition(c, 'Waiting')?.status ?? 'False', `${ns}/${name}`).toBe('False');
      expect(argoHealth(healthScript, c).status, `${ns}/${name}`).toBe('Healthy');
      expect(kstatus(c).status, `${ns}/${name}`).toBe('Current');
    }
  }, 420_000);

  it("ledger-api connects as docs/connecting.md shows, with the rendered client Certificate's Secret and its password; refused without the certificate", async () => {
    const doc = await get<{ data: Record<string, string> }>('/api/v1/namespaces/payments/configmaps/ledger-cache-connection');
    const seed = (doc.data.seeds as string).split(',')[0] as string;
    // No cluster DNS here: the seed's pod IP instead of its name.
    const pod = await get<{ status?: { podIP?: string } }>(`/api/v1/namespaces/payments/pods/${seed.split('.')[0]}`);
    const ip = pod.status?.podIP as string;
    const secret = async (name: string, key: string) =>
      Buffer.from(
        (await get<{ data: Record<string, string> }>(`/api/v1/namespaces/payments/secrets/${name}`)).data[key] as string,
        'base64',
      );
    const dir = tmp.make('ledger-api');
    const file = (name: string, content: Buffer) => {
      writeFileSync(join(dir, name), content);
      return join(dir, name);
    };
    const caFile = file('ca.crt', await secret(doc.data['tls-ca-secret'] as string, doc.data['tls-ca-key'] as string));
    // The rendered client Certificate's Secret, found as an application would: from the connection document.
    expect(doc.data['tls-client-secrets']).toBe('ledger-api=ledger-cache-client-ledger-api');
    const clientSecret = (doc.data['tls-client-secrets'] as string).split('=')[1] as string;
    const certFile = file('client.crt', await secret(clientSecret, 'tls.crt'));
    const keyFile = file('client.key', await secret(clientSecret, 'tls.key'));
    const cli = (certArgs: string[], ...command: string[]) =>
      run(valkeyCliPath(), [
        '-h',
        ip,
        '-p',
        doc.data.port as string,
        '--tls',
        '--cacert',
        caFile,
        ...certArgs,
        '--user',
        'ledger-api',
        '--pass',
        EXAMPLE.ledgerApi,
        '--no-auth-warning',
        ...command,
      ]);
    // A cluster client follows MOVED to the owner's DNS name, and this world has no cluster DNS:
    // the keys share a hash tag whose slot the seed's shard owns (the first tag it takes).
    const withCert = ['--cert', certFile, '--key', keyFile];
    let tag: string | undefined;
    for (let t = 0; t < 50 && tag === undefined; t += 1) {
      const probe = await cli(withCert, 'SET', `ledger:{t${t}}probe`, 'x');
      if (probe.stdout.trim() === 'OK') tag = `t${t}`;
    }
    expect(tag, 'a hash tag of the seed shard').toBeDefined();
    const written: string[] = [];
    const refusals: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const set = await cli(withCert, 'SET', `ledger:{${tag}}${i}`, `entry-${i}`);
      if (set.stdout.trim() === 'OK') written.push(String(i));
      else refusals.push(`${set.stdout}${set.stderr}`.trim());
    }
    const lost: string[] = [];
    for (const i of written) {
      const got = await cli(withCert, 'GET', `ledger:{${tag}}${i}`);
      if (got.stdout.trim() !== `entry-${i}`) lost.push(i);
    }
    expect(refusals).toEqual([]);
    const none = await cli([], 'PING');
    figures.push(`ledger-api with its issued certificate: ${written.length} of 20 writes acknowledged, ${lost.length} lost`);
    expect(written).toHaveLength(20);
    expect(lost).toEqual([]);
    expect(`${none.stdout}${none.stderr}`).not.toContain('PONG');
  }, 120_000);
});
