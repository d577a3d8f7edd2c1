// TLS certificate rotation on a real Valkey (SUPPORTED_BUILD) without a restart: the controller's handshake
// shows the old certificate, `CONFIG SET tls-cert-file <same path>` rebuilds the context once the
// files changed, and a fresh handshake proves the Secret's certificate is served. Before the files
// change, a reload changes nothing and is reported as waiting. This exercises the executor against
// the real server; tls-rotation.integration.test.ts rotates a certificate in the kube world.
// What 9.1.2 does with a bad certificate, on reload and on restart, is shown here too: it refuses
// a certificate and key that do not match (the reload fails and the old one stays; a restart exits)
// but loads an expired certificate and serves it (on reload and on restart), so the controller
// never reloads a Secret certificate outside its validity.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateFingerprint, podsServingOtherCertificate, reloadTls } from '../../../src/controller/reconcile/tls-reload.js';
import { controllerMetrics } from '../../../src/controller/runtime/metrics.js';
import { sessionOpener } from '../../../src/controller/valkey/node-session.js';
import type { RunningServer } from '../../support/servers.js';
import { SUPPORTED_BUILD, startValkey } from '../../support/valkey.js';
import { freePort } from '../../support/process.js';
import { CONTROLLER_PASSWORD, usersAcl } from '../../support/controller/api-world.js';
import { makePki, type TestPki } from '../../support/tls.js';

describe('TLS reload on a real Valkey', () => {
  let node: RunningServer;
  let port: number;
  let before: TestPki;
  let after: TestPki;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'valkey-krm-tls-reload-'));
    writeFileSync(join(dir, 'users.acl'), usersAcl());
    before = makePki(['*.tlsc.shop.svc.cluster.local']);
    after = makePki(['*.tlsc.shop.svc.cluster.local']);
    port = await freePort();
    node = await startValkey({ build: SUPPORTED_BUILD, args: ['--aclfile', join(dir, 'users.acl'), ...before.tlsArgs(port)] });
  });

  afterAll(async () => {
    await node?.stop();
    before?.remove();
    after?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('picks the pods whose handshake shows another certificate', () => {
    expect(
      podsServingOtherCertificate(
        'AA',
        new Map([
          ['p-0', 'AA'],
          ['p-2', 'BB'],
          ['p-1', undefined],
          ['p-3', 'CC'],
        ]),
      ),
    ).toEqual(['p-2', 'p-3']);
  });

  it('reloads the certificate without a restart once the files changed, and proves it by a handshake', async () => {
    const open = sessionOpener(async () => ({ username: 'valkey-krm-controller', password: CONTROLLER_PASSWORD }), {
      connectMs: 2000,
      commandMs: 2000,
    });
    // Trust both CAs (the rotation here also changes the CA); present the old client certificate,
    // which the server's (unchanged) tls-ca-cert-file still accepts.
    const tls = { ca: before.ca + after.ca, cert: before.cert, key: before.key, servername: 'tlsc-0-0.tlsc.shop.svc.cluster.local' };
    const endpoint = { host: '127.0.0.1', port, busPort: 0 };
    const metrics = controllerMetrics();
    const reopen = async () => open(endpoint, tls);
    const session = await open(endpoint, tls);
    try {
      expect(session.peerFingerprint()).toBe(certificateFingerprint(before.cert));
      // The Secret changed, the files not yet: the reload changes nothing and waits.
      const early = await reloadTls({ certificate: after.cert, sessions: new Map([['p-0', session]]), reopen, metrics, nowMs: Date.now() });
      expect(early).toEqual({ reloaded: [], stale: ['p-0'], failures: [] });
      // The kubelet projects the new files (same paths).
      copyFileSync(after.certPath, before.certPath);
      copyFileSync(after.keyPath, before.keyPath);
      const done = await reloadTls({ certificate: after.cert, sessions: new Map([['p-0', session]]), reopen, metrics, nowMs: Date.now() });
      expect(done).toEqual({ reloaded: ['p-0'], stale: [], failures: [] });
      const fresh = await reopen();
      expect(fresh.peerFingerprint()).toBe(certificateFingerprint(after.cert));
      expect(await fresh.infoServer()).toContain('valkey_version');
      fresh.close();
    } finally {
      session.close();
    }
  });
});

/** The certificate a TLS server on 127.0.0.1:port serves, read without verifying it (client certificate from `pki`). */
function servedFingerprint(port: number, pki: TestPki): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, cert: pki.cert, key: pki.key }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

/** A handshake that verifies the chain, the name and the validity, as an application's client does. */
function strictHandshake(port: number, pki: TestPki, servername: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: pki.ca, cert: pki.cert, key: pki.key, servername }, () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

describe(`a bad certificate on ${SUPPORTED_BUILD}: what the server does, and what the controller does about it`, () => {
  const names = ['*.tlsc.shop.svc.cluster.local'];
  const servername = 'tlsc-0-0.tlsc.shop.svc.cluster.local';
  const open = sessionOpener(async () => ({ username: 'valkey-krm-controller', password: CONTROLLER_PASSWORD }), {
    connectMs: 2000,
    commandMs: 2000,
  });
  let dir: string;
  const pkis: TestPki[] = [];
  const nodes: RunningServer[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'valkey-krm-tls-bad-'));
    writeFileSync(join(dir, 'users.acl'), usersAcl());
  });
  afterAll(async () => {
    for (const n of nodes) await n.stop();
    for (const p of pkis) p.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const startNode = async () => {
    const pki = makePki(names);
    pkis.push(pki);
    const port = await freePort();
    const node = await startValkey({ build: SUPPORTED_BUILD, args: ['--aclfile', join(dir, 'users.acl'), ...pki.tlsArgs(port)] });
    nodes.push(node);
    const tls = { ca: pki.ca, cert: pki.cert, key: pki.key, servername };
    const endpoint = { host: '127.0.0.1', port, busPort: 0 };
    return { pki, port, session: await open(endpoint, tls), reopen: () => open(endpoint, tls) };
  };
  const project = (pki: TestPki, pair: { cert: string; key: string }) => {
    writeFileSync(pki.certPath, pair.cert);
    writeFileSync(pki.keyPath, pair.key);
  };

  it('an expired certificate in the Secret is not loaded, because the server would load and serve it', async () => {
    const { pki, port, session, reopen } = await startNode();
    try {
      const expired = pki.issue(names, { days: 0 });
      await new Promise((r) => setTimeout(r, 1_100));
      project(pki, expired);
      const metrics = controllerMetrics();
      const out = await reloadTls({ certificate: expired.cert, sessions: new Map([['p-0', session]]), reopen, metrics, nowMs: Date.now() });
      expect(out.reloaded).toEqual([]);
      expect(out.stale).toEqual([]);
      expect(out.failures).toEqual([
        {
          pod: 'p-0',
          message: expect.stringMatching(/^TLS reload on p-0 held: the Secret's certificate expired at \S+Z; Valkey would load it/),
        },
      ]);
      expect(await servedFingerprint(port, pki)).toBe(certificateFingerprint(pki.cert));
      // What the guard prevents: the server itself takes the expired pair (CONFIG SET says OK), serves
      // it, and a client that verifies can no longer connect.
      await session.configSet('tls-cert-file', pki.certPath);
      expect(await servedFingerprint(port, pki)).toBe(certificateFingerprint(expired.cert));
      await expect(strictHandshake(port, pki, servername)).rejects.toThrow(/certificate has expired/);
      // A node can get there anyway (a reload, or a restart, on files the kubelet had not renewed
      // yet). The controller still gets in, since only the expiry is let through, and so it can
      // reload the node once a valid certificate is projected.
      const stuck = await reopen();
      expect(stuck?.peerCertificateExpired()).toBe(true);
      const renewed = pki.issue(names);
      project(pki, renewed);
      const back = await reloadTls({
        certificate: renewed.cert,
        sessions: new Map([['p-0', stuck as NonNullable<typeof stuck>]]),
        reopen,
        metrics,
        nowMs: Date.now(),
      });
      stuck?.close();
      expect(back).toEqual({ reloaded: ['p-0'], stale: [], failures: [] });
      await strictHandshake(port, pki, servername);
    } finally {
      session.close();
    }
  });

  it('a certificate and key that do not match: the server refuses the reload and keeps serving the old pair; the failure is reported', async () => {
    const { pki, port, session, reopen } = await startNode();
    try {
      const next = pki.issue(names);
      project(pki, { cert: next.cert, key: pki.key });
      const out = await reloadTls({
        certificate: next.cert,
        sessions: new Map([['p-0', session]]),
        reopen,
        metrics: controllerMetrics(),
        nowMs: Date.now(),
      });
      expect(out.reloaded).toEqual([]);
      expect(out.failures).toEqual([
        { pod: 'p-0', message: expect.stringContaining('TLS reload on p-0 failed: CONFIG SET: ERR CONFIG SET failed') },
      ]);
      expect(out.failures[0]?.message).toContain('Unable to update TLS configuration');
      expect(await servedFingerprint(port, pki)).toBe(certificateFingerprint(pki.cert));
      // Once the key follows (the kubelet projects both), the same reload goes through.
      project(pki, next);
      const done = await reloadTls({
        certificate: next.cert,
        sessions: new Map([['p-0', session]]),
        reopen,
        metrics: controllerMetrics(),
        nowMs: Date.now(),
      });
      expect(done).toEqual({ reloaded: ['p-0'], stale: [], failures: [] });
    } finally {
      session.close();
    }
  });

  it('on restart: an expired certificate is served; a mismatched pair stops the server at start-up', async () => {
    const pki = makePki(names);
    pkis.push(pki);
    const expired = pki.issue(names, { days: 0 });
    await new Promise((r) => setTimeout(r, 1_100));
    const mismatched = pki.issue(names);
    const expiredDir = mkdtempSync(join(dir, 'expired-'));
    writeFileSync(join(expiredDir, 'tls.crt'), expired.cert);
    writeFileSync(join(expiredDir, 'tls.key'), expired.key);
    const port = await freePort();
    const tlsArgs = (d: string) => [
      '--tls-port',
      String(port),
      '--tls-cert-file',
      join(d, 'tls.crt'),
      '--tls-key-file',
      join(d, 'tls.key'),
      '--tls-ca-cert-file',
      pki.caPath,
      '--tls-auth-clients',
      'yes',
    ];
    const started = await startValkey({ build: SUPPORTED_BUILD, args: ['--aclfile', join(dir, 'users.acl'), ...tlsArgs(expiredDir)] });
    try {
      expect(await servedFingerprint(port, pki)).toBe(certificateFingerprint(expired.cert));
    } finally {
      await started.stop();
    }
    const mismatchedDir = mkdtempSync(join(dir, 'mismatched-'));
    writeFileSync(join(mismatchedDir, 'tls.crt'), mismatched.cert);
    writeFileSync(join(mismatchedDir, 'tls.key'), pki.key);
    await expect(
      startValkey({ build: SUPPORTED_BUILD, args: ['--aclfile', join(dir, 'users.acl'), ...tlsArgs(mismatchedDir)], quietFailure: true }),
    ).rejects.toThrow(/key values mismatch/);
  });
});
