// A TLS cluster on a real node (`npm run test:node`; not in CI's smoke set): the rendered pods
// start on the Secret the kubelet really projects (0440, fsGroup), form over TLS (clients,
// replication and the cluster bus), pass the rendered probes over TLS, and reach Active with the
// shipped controller checking every certificate against its pod's name. Then a certificate
// rotation (same CA, new key and serial): the new Secret applied, the kubelet's own projection
// (its sync delay and atomic symlink swap) carries it into the pods, the controller reloads it
// on every node, and each node serves it in a fresh handshake; no pod restarted. A TLS client
// writes and reads throughout and counts what was lost.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podFqdn } from '../../../src/api/index.js';
import { figure, isReady, secondsSince, startNodeSuite, type NodeSuite, type Pod } from '../../support/node/node-suite.js';
import { waitFor } from '../../support/process.js';

const MIN = 60_000;

describe('a TLS cluster on a real node, with the shipped controller Deployment', () => {
  let s: NodeSuite;
  const suiteStart = Date.now();
  const service = () => `${s.pkg.cluster}.${s.pkg.namespace}.svc.cluster.local`;
  beforeAll(async () => {
    s = await startNodeSuite({ name: 'tls', tls: true, shards: 3, replicasPerShard: 1 });
    figure(`tls: Node Ready ${(s.node.nodeReadyMs / 1000).toFixed(1)} s after start`);
    const t = Date.now();
    await s.applyPackage();
    await s.waitActive('the TLS ValkeyCluster Active', 10 * MIN, async () => (await readyPods()).length === 6);
    figure(`tls: 6 TLS pods Ready, formed, Active ${secondsSince(t)} after apply`);
  }, 30 * MIN);
  afterAll(async () => {
    await s?.stop();
    figure(`tls: wall time ${secondsSince(suiteStart)}`);
  }, 5 * MIN);

  const readyPods = async (): Promise<Pod[]> => (await s.pods()).filter((p) => !p.metadata.deletionTimestamp && isReady(p));
  const restarts = (pods: readonly Pod[]): string[] =>
    pods.map((p) => `${p.metadata.uid}:${p.status?.containerStatuses?.[0]?.restartCount ?? '-'}`).sort();
  /**
   * The SHA-256 fingerprint of the certificate a pod presents in a fresh handshake, from openssl
   * inside the node's namespace, verified against the CA and the pod's own hostname (with the
   * client certificate the servers require).
   */
  const served = async (pod: Pod): Promise<string> => {
    const pki = s.pki;
    if (!pki) throw new Error('not a TLS suite');
    const name = podFqdn(pod.metadata.name, s.pkg.cluster, s.pkg.namespace, 'cluster.local');
    const r = await s.node.exec(
      'openssl',
      [
        's_client',
        '-connect',
        `${pod.status?.podIP}:6379`,
        '-servername',
        name,
        '-verify_hostname',
        name,
        '-verify_return_error',
        '-CAfile',
        pki.caPath,
        '-cert',
        pki.certPath,
        '-key',
        pki.keyPath,
      ],
      { input: '', timeoutMs: 20_000 },
    );
    const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(r.stdout)?.[0];
    if (r.code !== 0 || !pem) throw new Error(`openssl s_client to ${pod.metadata.name} exited ${r.code}: ${r.stderr.slice(-400)}`);
    return new X509Certificate(pem).fingerprint256;
  };
  const servedByAll = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const p of await readyPods()) out.push(await served(p));
    return out;
  };

  it(
    'every node serves the Secret’s certificate, verified against the CA and its own hostname',
    async () => {
      const first = new X509Certificate(s.pki?.cert ?? '');
      expect(await servedByAll()).toEqual(Array.from({ length: 6 }, () => first.fingerprint256));
      // A TLS client routed by the hostnames the cluster announces (what the certificate names).
      const w = await s.writer('tls writes');
      await new Promise((r) => setTimeout(r, 5_000));
      const report = await w.stop();
      expect(report.acknowledged).toBeGreaterThan(0);
      expect(report.lost).toBe(0);
    },
    5 * MIN,
  );

  it(
    'a certificate rotation (same CA, new key and serial) is served by every node with no restart, nothing lost',
    async () => {
      const pki = s.pki;
      if (!pki) throw new Error('not a TLS suite');
      const before = restarts(await readyPods());
      const next = pki.issue([service(), `*.${service()}`], { days: 365 });
      const rotated = new X509Certificate(next.cert);
      expect(rotated.serialNumber).not.toBe(new X509Certificate(pki.cert).serialNumber);
      const w = await s.writer('tls rotation');
      const t = Date.now();
      await s.applyTlsSecret(next.cert, next.key);
      let firstServedMs = 0;
      await waitFor(
        'every node serves the new certificate',
        async () => {
          const fps = await servedByAll();
          if (!firstServedMs && fps.includes(rotated.fingerprint256)) firstServedMs = Date.now() - t;
          return fps.length === 6 && fps.every((f) => f === rotated.fingerprint256);
        },
        { timeoutMs: 6 * MIN, intervalMs: 1_000 },
      );
      figure(
        `tls rotation: the new certificate served by a first node ${(firstServedMs / 1000).toFixed(1)} s and by all 6 ${secondsSince(t)} after the Secret was applied (the kubelet's projection included)`,
      );
      type Ev = { reason: string; message: string; involvedObject: { kind: string; name: string } };
      const reloaded = async (): Promise<Ev[]> =>
        (await s.node.json<{ items: Ev[] }>('GET', `/api/v1/namespaces/${s.pkg.namespace}/events`)).items.filter(
          (e) => e.reason === 'TlsReloaded',
        );
      await waitFor(
        'TlsReloaded Events naming every pod',
        async () => {
          const named = (await reloaded()).map((e) => e.message).join('\n');
          return (await readyPods()).every((p) => named.includes(p.metadata.name));
        },
        { timeoutMs: 2 * MIN, intervalMs: 1_000 },
      );
      expect((await reloaded()).every((e) => e.involvedObject.kind === 'ValkeyCluster' && e.involvedObject.name === s.pkg.cluster)).toBe(
        true,
      );
      await s.waitActive('Active after the rotation', 3 * MIN);
      const r = await w.stop();
      expect(restarts(await readyPods())).toEqual(before);
      expect(r.lost).toBe(0);
    },
    15 * MIN,
  );
});
