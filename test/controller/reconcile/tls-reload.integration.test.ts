// TLS certificate rotation on a real Valkey (SUPPORTED_BUILD) without a restart: the controller's handshake
// shows the old certificate, `CONFIG SET tls-cert-file <same path>` rebuilds the context once the
// files changed, and a fresh handshake proves the Secret's certificate is served. Before the files
// change, a reload changes nothing and is reported as waiting. This exercises the executor against
// the real server; tls-rotation.integration.test.ts rotates a certificate in the kube world.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
      const early = await reloadTls({ certificate: after.cert, sessions: new Map([['p-0', session]]), reopen, metrics });
      expect(early).toEqual({ reloaded: [], stale: ['p-0'], failures: [] });
      // The kubelet projects the new files (same paths).
      copyFileSync(after.certPath, before.certPath);
      copyFileSync(after.keyPath, before.keyPath);
      const done = await reloadTls({ certificate: after.cert, sessions: new Map([['p-0', session]]), reopen, metrics });
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
