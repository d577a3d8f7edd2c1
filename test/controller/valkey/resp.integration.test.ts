import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionOpener } from '../../../src/controller/valkey/node-session.js';
import { RespError, RespParser, encodeCommand } from '../../../src/controller/valkey/resp.js';
import { CommandError, NodeUnavailableError, connectResp } from '../../../src/controller/valkey/resp-connection.js';
import { freePort } from '../../support/process.js';
import type { RunningServer } from '../../support/servers.js';
import { SUPPORTED_BUILD, startValkey } from '../../support/valkey.js';
import { CONTROLLER_PASSWORD, usersAcl } from '../../support/controller/api-world.js';
import { startSilentServer, type SilentServer } from '../../support/servers.js';
import { makePki, type TestPki } from '../../support/tls.js';

describe('RespParser', () => {
  const wire = '+OK\r\n-ERR unknown node\r\n:42\r\n$4\r\nhé!\r\n$-1\r\n*3\r\n$1\r\na\r\n*1\r\n:1\r\n$0\r\n\r\n*-1\r\n';
  const expected = ['OK', new RespError('ERR unknown node'), 42, 'hé!', null, ['a', [1], ''], null];

  it('parses every RESP2 type, whole', () => {
    const p = new RespParser();
    p.push(Buffer.from(wire));
    const out = [];
    for (let v = p.next(); v !== undefined; v = p.next()) out.push(v);
    expect(out).toEqual(expected);
  });

  it('parses the same bytes split at every possible point', () => {
    const bytes = Buffer.from(wire);
    for (let cut = 1; cut < bytes.length; cut++) {
      const p = new RespParser();
      const out = [];
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut)]) {
        p.push(part);
        for (let v = p.next(); v !== undefined; v = p.next()) out.push(v);
      }
      expect(out).toEqual(expected);
    }
  });

  it('encodes commands as arrays of bulk strings, counting bytes not characters', () => {
    expect(encodeCommand(['AUTH', 'u', 'pä']).toString()).toBe('*3\r\n$4\r\nAUTH\r\n$1\r\nu\r\n$3\r\npä\r\n');
  });
});

describe(`the RESP client against a real Valkey (${SUPPORTED_BUILD})`, () => {
  let node: RunningServer;
  let tlsNode: RunningServer;
  let tlsPort: number;
  let pki: TestPki;
  let silent: SilentServer | undefined;
  let silentPort: number;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'valkey-krm-acl-'));
    await writeFile(join(dir, 'users.acl'), usersAcl());
    node = await startValkey({ build: SUPPORTED_BUILD, args: ['--aclfile', join(dir, 'users.acl')] });
    pki = makePki(['*.tlsc.shop.svc.cluster.local']);
    tlsPort = await freePort();
    tlsNode = await startValkey({
      build: SUPPORTED_BUILD,
      args: ['--aclfile', join(dir, 'users.acl'), ...pki.tlsArgs(tlsPort)],
    });
    silent = await startSilentServer();
    silentPort = silent.port;
  });

  afterAll(async () => {
    await silent?.close();
    await node?.stop();
    await tlsNode?.stop();
    pki?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const open = sessionOpener(async () => ({ username: 'valkey-krm-controller', password: CONTROLLER_PASSWORD }), {
    connectMs: 2000,
    commandMs: 2000,
  });

  it('authenticates as the controller user with the rules the renderer gives it, and reads INFO server', async () => {
    const s = await open({ host: '127.0.0.1', port: node.port, busPort: 0 }, undefined);
    const info = await s.infoServer();
    expect(info).toContain('valkey_version:9.1.2');
    s.close();
  });

  it('reports a wrong password as a command error (WRONGPASS), not as an unreachable node', async () => {
    const bad = sessionOpener(async () => ({ username: 'valkey-krm-controller', password: 'nope' }), { connectMs: 2000, commandMs: 2000 });
    const err = await bad({ host: '127.0.0.1', port: node.port, busPort: 0 }, undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandError);
    expect((err as CommandError).code).toBe('WRONGPASS');
    expect((err as CommandError).message).not.toContain('nope');
  });

  it('pipelines commands and keeps replies in order', async () => {
    const c = await connectResp({ host: '127.0.0.1', port: node.port, connectTimeoutMs: 2000, commandTimeoutMs: 2000 });
    const replies = await Promise.all([
      c.call(['PING']),
      c.call(['AUTH', 'valkey-krm-controller', CONTROLLER_PASSWORD]),
      c.call(['ACL', 'WHOAMI']),
      c.call(['GET', 'k']).catch((e: Error) => e.message),
    ]);
    expect(replies).toEqual(['PONG', 'OK', 'valkey-krm-controller', expect.stringMatching(/^GET k: NOPERM/)]);
    c.close();
    await expect(c.call(['PING'])).rejects.toBeInstanceOf(NodeUnavailableError);
  });

  it('a refused connection and a silent server are unavailable nodes, the latter within the timeout', async () => {
    const closed = await freePort();
    await expect(connectResp({ host: '127.0.0.1', port: closed, connectTimeoutMs: 1000, commandTimeoutMs: 1000 })).rejects.toThrow(
      /ECONNREFUSED/,
    );
    const c = await connectResp({ host: '127.0.0.1', port: silentPort, connectTimeoutMs: 1000, commandTimeoutMs: 300 });
    const t0 = Date.now();
    await expect(c.call(['INFO', 'server'])).rejects.toThrow(`127.0.0.1:${silentPort}: no reply to INFO server within 300 ms`);
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('TLS: verifies the node against the CA and the pod DNS name, presenting the client certificate', async () => {
    const tls = { ca: pki.ca, cert: pki.cert, key: pki.key, servername: 'tlsc-0-0.tlsc.shop.svc.cluster.local' };
    const s = await open({ host: '127.0.0.1', port: tlsPort, busPort: 0 }, tls);
    expect(await s.infoServer()).toContain(`tcp_port:`);
    s.close();
  });

  it('TLS: refuses a node whose certificate does not cover the pod name, or chains to another CA', async () => {
    const wrongName = { ca: pki.ca, cert: pki.cert, key: pki.key, servername: 'tlsc-0-0.other.shop.svc.cluster.local' };
    await expect(open({ host: '127.0.0.1', port: tlsPort, busPort: 0 }, wrongName)).rejects.toThrow(/altnames|Hostname\/IP does not match/);
    const other = makePki(['*.tlsc.shop.svc.cluster.local']);
    try {
      const wrongCa = { ca: other.ca, cert: pki.cert, key: pki.key, servername: 'tlsc-0-0.tlsc.shop.svc.cluster.local' };
      await expect(open({ host: '127.0.0.1', port: tlsPort, busPort: 0 }, wrongCa)).rejects.toThrow(
        /self[- ]signed|unable to verify|certificate/i,
      );
    } finally {
      other.remove();
    }
  });
  it('TLS: a node serving an expired certificate of the CA, under the pod name, is let through (so it can be told to reload) and said to be expired; expired and wrong otherwise is refused', async () => {
    const name = 'tlsc-0-0.tlsc.shop.svc.cluster.local';
    const serve = async (ca: string, pair: { cert: string; key: string }) => {
      const files = await mkdtemp(join(tmpdir(), 'valkey-krm-expired-'));
      await writeFile(join(files, 'ca.crt'), ca);
      await writeFile(join(files, 'tls.crt'), pair.cert);
      await writeFile(join(files, 'tls.key'), pair.key);
      const port = await freePort();
      const server = await startValkey({
        build: SUPPORTED_BUILD,
        args: [
          ...['--aclfile', join(dir, 'users.acl'), '--tls-port', String(port), '--tls-auth-clients', 'yes'],
          ...[
            '--tls-cert-file',
            join(files, 'tls.crt'),
            '--tls-key-file',
            join(files, 'tls.key'),
            '--tls-ca-cert-file',
            join(files, 'ca.crt'),
          ],
        ],
      });
      return {
        port,
        stop: async () => {
          await server.stop();
          await rm(files, { recursive: true, force: true });
        },
      };
    };
    const expired = pki.issue(['*.tlsc.shop.svc.cluster.local'], { days: 0 });
    await new Promise((r) => setTimeout(r, 1_500));
    const node = await serve(pki.ca, expired);
    const other = makePki(['*.tlsc.shop.svc.cluster.local']);
    const foreign = other.issue(['*.tlsc.shop.svc.cluster.local'], { days: 0 });
    await new Promise((r) => setTimeout(r, 1_500));
    const impostor = await serve(pki.ca, foreign);
    const connect = (port: number, servername: string) =>
      connectResp({
        host: '127.0.0.1',
        port,
        tls: { ca: pki.ca, cert: pki.cert, key: pki.key, servername },
        connectTimeoutMs: 2000,
        commandTimeoutMs: 2000,
      });
    try {
      const c = await connect(node.port, name);
      expect(c.peerCertificateExpired()).toBe(true);
      expect(await c.call(['PING'])).toBe('PONG');
      c.close();
      await expect(connect(node.port, 'tlsc-0-0.other.shop.svc.cluster.local')).rejects.toThrow(/altnames|does not match/);
      // Expired too, and issued by another CA: not the node's, refused.
      await expect(connect(impostor.port, name)).rejects.toThrow(NodeUnavailableError);
      // A valid one is not marked.
      const v = await connect(tlsPort, name);
      expect(v.peerCertificateExpired()).toBe(false);
      v.close();
    } finally {
      await node.stop();
      await impostor.stop();
      other.remove();
    }
  });
});
