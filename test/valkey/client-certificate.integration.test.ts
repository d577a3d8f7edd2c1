// Client certificates of a TLS cluster (issue 33, docs/connecting.md), on real Valkey 9.1.2 with
// the rendered users.acl and Valkey's default tls-auth-clients (yes: valkey-krm never sets it, and
// refuses it in a config), with real valkey-cli as the application: a certificate issued as the
// docs say (client auth only, CN the ACL user, from the cluster's CA) plus the user's password
// connects; no certificate, a certificate of another CA, or the right certificate with a wrong
// password gets nothing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_USERNAMES } from '../../src/api/index.js';
import { renderClusterObjects } from '../support/controller/day2-world.js';
import { run } from '../support/exec.js';
import { tempDirs } from '../support/files.js';
import { sha256 } from '../support/hash.js';
import { cluster, role } from '../support/objects.js';
import { freePort } from '../support/process.js';
import type { RunningServer } from '../support/servers.js';
import { issueClientCertificate, makePki, type TestPki } from '../support/tls.js';
import { startValkey, valkeyCliPath } from '../support/valkey.js';

const USER = 'orders-api';
const PASSWORD = 'orders-api-password';
const CONTROLLER_PASSWORD = 'controller-password';
const tmp = tempDirs('client-certificate');

describe('a TLS cluster and its applications: a client certificate from the cluster CA, then the ACL user', () => {
  let pki: TestPki;
  let other: TestPki;
  let server: RunningServer;
  let tlsPort: number;

  beforeAll(async () => {
    pki = makePki(['localhost']);
    other = makePki(['localhost']);
    const objects = renderClusterObjects<{ kind: string; metadata: { name: string }; data?: Record<string, string> }>(
      { replication: 'replication-password', controller: CONTROLLER_PASSWORD },
      [
        role('rw', {
          categories: [
            { name: 'read', access: 'allow' },
            { name: 'write', access: 'allow' },
            { name: 'connection', access: 'allow' },
          ],
        }),
        cluster(
          'orders',
          {
            shards: 1,
            replicasPerShard: 0,
            tls: { secretRef: 'orders-tls' },
            acl: [
              {
                username: USER,
                passwordHashes: [sha256(PASSWORD)],
                permissions: [{ roleRef: 'rw', keys: [{ pattern: 'orders:*', access: 'readwrite' }] }],
              },
            ],
          },
          'shop',
        ),
      ],
    );
    const conf = objects.find((o) => o.metadata.name === 'orders-config')?.data as Record<string, string>;
    // The rendered configuration never sets tls-auth-clients: Valkey's default (yes) is what runs.
    expect(conf['valkey.conf']).not.toMatch(/^tls-auth-clients/m);
    const dir = tmp.make('server');
    writeFileSync(join(dir, 'users.acl'), conf['users.acl'] as string);
    tlsPort = await freePort();
    server = await startValkey({
      build: '9.1.2',
      username: SYSTEM_USERNAMES.controller,
      password: CONTROLLER_PASSWORD,
      args: [
        '--aclfile',
        join(dir, 'users.acl'),
        '--tls-port',
        String(tlsPort),
        '--tls-cert-file',
        pki.certPath,
        '--tls-key-file',
        pki.keyPath,
        '--tls-ca-cert-file',
        pki.caPath,
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    pki?.remove();
    other?.remove();
    tmp.cleanup();
  });

  const cli = (certificate: { cert: string; key: string } | undefined, password: string, ...command: string[]) =>
    run(valkeyCliPath('9.1.2'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(tlsPort),
      '--tls',
      '--cacert',
      pki.caPath,
      ...(certificate ? ['--cert', certificate.cert, '--key', certificate.key] : []),
      '--user',
      USER,
      '--pass',
      password,
      '--no-auth-warning',
      ...command,
    ]);
  const said = (r: { stdout: string; stderr: string }) => `${r.stdout}${r.stderr}`.trim();

  it('with a certificate issued as documented and the user password: connects, writes and reads its keys', async () => {
    const issued = issueClientCertificate(pki.dir, USER, tmp.make('issued'));
    expect(said(await cli(issued, PASSWORD, 'SET', 'orders:1', 'paid'))).toBe('OK');
    expect(said(await cli(issued, PASSWORD, 'GET', 'orders:1'))).toBe('paid');
    // Its ACL still applies: not its keys.
    expect(said(await cli(issued, PASSWORD, 'GET', 'invoices:1'))).toMatch(/NOPERM/);
  });

  it('without a certificate: refused at the handshake', async () => {
    const r = await cli(undefined, PASSWORD, 'GET', 'orders:1');
    process.stdout.write(`[client-certificate] without a certificate valkey-cli says: ${JSON.stringify(said(r))}\n`);
    expect(said(r)).not.toContain('paid');
    expect(said(r)).toMatch(/SSL|TLS|certificate|handshake|reset|closed|I\/O error/i);
  });

  it('with a certificate of another CA: refused', async () => {
    const foreign = issueClientCertificate(other.dir, USER, tmp.make('foreign'));
    const r = await cli(foreign, PASSWORD, 'GET', 'orders:1');
    process.stdout.write(`[client-certificate] another CA's certificate: ${JSON.stringify(said(r))}\n`);
    expect(said(r)).not.toContain('paid');
  });

  it('with the certificate but a wrong password: no login (a certificate is not a login)', async () => {
    const issued = issueClientCertificate(pki.dir, USER, tmp.make('wrong'));
    const r = await cli(issued, 'not-the-password', 'GET', 'orders:1');
    expect(said(r)).not.toContain('paid');
    expect(said(r)).toMatch(/WRONGPASS|NOAUTH|AUTH failed/);
  });
});
