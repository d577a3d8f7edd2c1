// A certificate rotation in the real kube world (issue 12): a TLS cluster (1 shard x 1 replica)
// formed by the controller from its Secret, then the Secret's certificate replaced by another from
// the same CA (new key, new serial). The kubelet stand-in projects the new files with a delay; the
// controller reloads them with `CONFIG SET tls-cert-file` (tls-reload.ts). The test checks with its
// own TLS handshakes, not the controller's, that every node serves the new certificate, that no pod
// was replaced or restarted, and that the controller said so (Event and metric). Then the states
// the TLS Secret can put a running cluster in, on real Valkey 9.1.2: a certificate that expires
// within 30 days (CertificateExpiringSoon, still Active), the Secret deleted (Invalid, the pods
// serve on) and restored (Active), an expired certificate (Invalid, not reloaded) and its renewal.
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podFqdn } from '../../src/api/index.js';
import type { App } from '../../src/controller/app.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { ensureTools } from '../support/apiserver.js';
import { prepareWorld } from '../support/controller/api-world.js';
import {
  apiJson,
  clusterPods,
  renderClusterObjects,
  startDay2World,
  startKubeController,
  stopControllerAndWorld,
} from '../support/controller/day2-world.js';
import type { KubeWorld } from '../support/kube-world.js';
import { cluster } from '../support/objects.js';
import { waitFor } from '../support/process.js';
import { makePki, type TestPki } from '../support/tls.js';

const NS = 'tls';
const NAME = 'tlsc';
const SECRET = 'tlsc-tls';
const POD_NAMES = [`${NAME}-0-0`, `${NAME}-0-1`];
const REPLICATION_PASSWORD = 'replication-password-for-tls';
const CONTROLLER_PASSWORD = 'controller-password-for-tls';
const SECRET_SYNC_DELAY_MS = 2_000;
const spec = { shards: 1, replicasPerShard: 1, tls: { secretRef: SECRET } };

interface PodObject {
  metadata: { name: string; uid: string };
  status?: { podIP?: string; containerStatuses?: { restartCount: number }[] };
}
interface EventObject {
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
}

const rendered = (): unknown[] =>
  renderClusterObjects({ replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD }, [cluster(NAME, spec, NS)]);

const tlsSecret = (ca: string, cert: string, key: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: SECRET, namespace: NS },
  type: 'kubernetes.io/tls',
  stringData: { 'ca.crt': ca, 'tls.crt': cert, 'tls.key': key },
});

/** The SHA-256 fingerprint of the certificate a node presents in a fresh TLS handshake (verified against the CA and the pod's name). */
function servedFingerprint(ip: string, pod: string, pki: TestPki): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: ip,
      port: 6379,
      ca: pki.ca,
      cert: pki.cert,
      key: pki.key,
      servername: podFqdn(pod, NAME, NS, 'cluster.local'),
    });
    socket.setTimeout(2_000, () => socket.destroy(new Error(`TLS handshake with ${pod} timed out`)));
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
  });
}

describe('TLS in the kube world: rotation, a certificate expiring soon, the Secret deleted and restored, an expired certificate', () => {
  let world: KubeWorld;
  let app: App | undefined;
  let pki: TestPki;
  const logs: string[] = [];
  const metrics = controllerMetrics();

  const request = <T>(method: string, path: string): Promise<T> => apiJson<T>(world, method, path);
  const pods = (): Promise<PodObject[]> => clusterPods<PodObject>(world, NS, NAME);
  const clusterObject = () =>
    request<{
      status?: { state?: string; message?: string; conditions?: { type: string; status: string; reason: string; message: string }[] };
    }>('GET', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${NS}/valkeyclusters/${NAME}`);
  const clusterState = async (): Promise<string | undefined> => (await clusterObject()).status?.state;
  const expiringSoon = async () => (await clusterObject()).status?.conditions?.find((c) => c.type === 'CertificateExpiringSoon');
  const names = POD_NAMES.map((p) => podFqdn(p, NAME, NS, 'cluster.local'));
  const counter = async (name: string, kind: string): Promise<number> => {
    const m = (await metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
    return (m?.values ?? []).filter((v) => v.labels.kind === kind).reduce((n, v) => n + Number(v.value), 0);
  };
  const served = async (): Promise<Map<string, string>> => {
    const out = new Map<string, string>();
    for (const p of await pods()) out.set(p.metadata.name, await servedFingerprint(p.status?.podIP as string, p.metadata.name, pki));
    return out;
  };

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    // A year: the first certificate is not one that expires soon.
    pki = makePki(
      POD_NAMES.map((p) => podFqdn(p, NAME, NS, 'cluster.local')),
      { days: 365 },
    );
    world = await startDay2World({
      images: { 'valkey/valkey:9.0.1': { build: '9.1.2' } },
      configSyncDelayMs: SECRET_SYNC_DELAY_MS,
      namespace: NS,
      replicationPassword: REPLICATION_PASSWORD,
      secrets: [tlsSecret(pki.ca, pki.cert, pki.key)],
    });
    const prepared = await prepareWorld(world.api);
    await world.apply([...rendered(), cluster(NAME, spec, NS)]);
    app = await startKubeController({
      controllerKubeconfig: prepared.controllerKubeconfig,
      namespace: NS,
      controllerPassword: CONTROLLER_PASSWORD,
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics,
      concurrency: 2,
      resyncMs: 1_000,
    });
    await waitFor('the TLS cluster Active', async () => (await clusterState()) === 'Active', { timeoutMs: 120_000, intervalMs: 250 });
  }, 300_000);

  afterAll(async () => {
    await stopControllerAndWorld(app, logs, world);
    pki?.remove();
  }, 60_000);

  it('a certificate rotation (same CA, new key and serial) is served by every node with no restart', async () => {
    const original = new X509Certificate(pki.cert);
    expect([...(await served()).values()]).toEqual(POD_NAMES.map(() => original.fingerprint256));
    const before = await pods();
    expect(before.map((p) => p.metadata.name).sort()).toEqual(POD_NAMES);
    const pids = before.map((p) => world.kubelet.pod(NS, p.metadata.name)?.pid);
    expect(pids.every((pid) => pid !== undefined)).toBe(true);

    const next = pki.issue(POD_NAMES.map((p) => podFqdn(p, NAME, NS, 'cluster.local')));
    const rotated = new X509Certificate(next.cert);
    expect(rotated.serialNumber).not.toBe(original.serialNumber);
    expect(rotated.verify(new X509Certificate(pki.ca).publicKey)).toBe(true);
    const t0 = Date.now();
    await world.apply([tlsSecret(pki.ca, next.cert, next.key)]);
    await waitFor(
      'every node serves the new certificate',
      async () => [...(await served()).values()].every((f) => f === rotated.fingerprint256),
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    process.stdout.write(
      `[tls] rotation: Secret applied -> new certificate served by every node in ${Date.now() - t0} ms (kubelet delay ${SECRET_SYNC_DELAY_MS} ms)\n`,
    );

    // No pod replaced, no container restarted: same UIDs, same processes.
    const after = await pods();
    expect(after.map((p) => p.metadata.uid).sort()).toEqual(before.map((p) => p.metadata.uid).sort());
    expect(after.map((p) => world.kubelet.pod(NS, p.metadata.name)?.pid)).toEqual(pids);
    expect(after.map((p) => p.status?.containerStatuses?.[0]?.restartCount)).toEqual([0, 0]);

    // The controller reported it: TlsReloaded Events naming every pod (the kubelet may hand the new
    // files to one pod a pass before the other, so one Event may name one pod), and the metric.
    const tlsEvents = async () =>
      (await request<{ items: EventObject[] }>('GET', `/api/v1/namespaces/${NS}/events`)).items.filter((e) => e.reason === 'TlsReloaded');
    await waitFor(
      'TlsReloaded Events naming every pod',
      async () => {
        const named = (await tlsEvents()).map((e) => e.message).join('\n');
        return POD_NAMES.every((pod) => named.includes(pod));
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    const events = await tlsEvents();
    expect(events.every((e) => e.involvedObject.kind === 'ValkeyCluster' && e.involvedObject.name === NAME)).toBe(true);
    expect(await counter('valkey_status_sync_live_applies_total', 'tls')).toBe(POD_NAMES.length);
    expect(await counter('valkey_status_sync_reload_failures_total', 'tls')).toBe(0);
    await waitFor('the cluster Active', async () => (await clusterState()) === 'Active', { timeoutMs: 30_000, intervalMs: 250 });
  }, 180_000);
  it('a certificate that expires within 30 days: CertificateExpiringSoon True with the date, and the cluster stays Active', async () => {
    expect(await expiringSoon()).toMatchObject({ status: 'False' });
    const soon = pki.issue(names, { days: 10 });
    const notAfter = new Date(new X509Certificate(soon.cert).validTo);
    await world.apply([tlsSecret(pki.ca, soon.cert, soon.key)]);
    await waitFor('CertificateExpiringSoon True', async () => (await expiringSoon())?.status === 'True', {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    const condition = await expiringSoon();
    process.stdout.write(`[tls] expiring soon: ${condition?.message}\n`);
    expect(condition?.message).toContain(notAfter.toISOString().slice(0, 10));
    expect(condition?.message).toMatch(/within 30 days: renew it in the Secret/);
    await waitFor(
      'served and Active',
      async () =>
        (await clusterState()) === 'Active' &&
        [...(await served()).values()].every((f) => f === new X509Certificate(soon.cert).fingerprint256),
      {
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    );
  }, 120_000);

  it('the TLS Secret deleted from a running cluster: Invalid while the pods keep serving; restored: Active again', async () => {
    const before = await served();
    const uids = (await pods()).map((p) => p.metadata.uid).sort();
    const secret = await request<Record<string, unknown>>('GET', `/api/v1/namespaces/${NS}/secrets/${SECRET}`);
    await request('DELETE', `/api/v1/namespaces/${NS}/secrets/${SECRET}`);
    await waitFor('Invalid', async () => (await clusterState()) === 'Invalid', { timeoutMs: 60_000, intervalMs: 250 });
    const invalid = await clusterObject();
    process.stdout.write(`[tls] Secret deleted: ${invalid.status?.state}: ${invalid.status?.message}\n`);
    expect(invalid.status?.message).toMatch(new RegExp(`^TLS Secret ${NS}/${SECRET} does not exist`));
    expect(invalid.status?.message).toMatch(/The pods keep serving what they loaded; once this is fixed the cluster returns to Active$/);
    // They do: the same certificate, the same pods.
    expect(await served()).toEqual(before);
    expect((await pods()).map((p) => p.metadata.uid).sort()).toEqual(uids);
    const data = (secret as { data: Record<string, string> }).data;
    await world.apply([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: SECRET, namespace: NS },
        type: 'kubernetes.io/tls',
        data,
      },
    ]);
    await waitFor('Active again', async () => (await clusterState()) === 'Active', { timeoutMs: 60_000, intervalMs: 250 });
  }, 150_000);

  it('an expired certificate put in the Secret: Invalid, not reloaded (the pods serve the one they have); renewed: Active', async () => {
    const before = await served();
    const expired = pki.issue(names, { days: 0 });
    await new Promise((r) => setTimeout(r, 2_000));
    expect(Date.parse(new X509Certificate(expired.cert).validTo)).toBeLessThan(Date.now());
    await world.apply([tlsSecret(pki.ca, expired.cert, expired.key)]);
    await waitFor('Invalid', async () => (await clusterState()) === 'Invalid', { timeoutMs: 60_000, intervalMs: 250 });
    const invalid = await clusterObject();
    process.stdout.write(`[tls] expired certificate: ${invalid.status?.state}: ${invalid.status?.message}\n`);
    expect(invalid.status?.message).toMatch(
      /tls\.crt \(.*\) expired on .*the controller does not reload it into the pods: renew the certificate in the Secret/,
    );
    expect(await expiringSoon()).toMatchObject({ status: 'True', reason: 'Expired' });
    // Past the kubelet's projection delay, the nodes still serve the certificate they had.
    await new Promise((r) => setTimeout(r, SECRET_SYNC_DELAY_MS + 2_000));
    expect(await served()).toEqual(before);

    const renewed = pki.issue(names, { days: 365 });
    await world.apply([tlsSecret(pki.ca, renewed.cert, renewed.key)]);
    let seen = '';
    await waitFor(
      'the renewed certificate served, Active, not expiring',
      async () => {
        const c = await clusterObject();
        const fingerprints = [...(await served().catch(() => new Map<string, string>())).values()];
        seen = `${c.status?.state}: ${c.status?.message}; served ${fingerprints.map((f) => f.slice(0, 11)).join(', ')}`;
        return (
          c.status?.state === 'Active' &&
          c.status.conditions?.find((x) => x.type === 'CertificateExpiringSoon')?.status === 'False' &&
          fingerprints.length === POD_NAMES.length &&
          fingerprints.every((f) => f === new X509Certificate(renewed.cert).fingerprint256)
        );
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}; last seen ${seen}; renewed ${new X509Certificate(renewed.cert).fingerprint256.slice(0, 11)}`);
    });
  }, 150_000);
});
