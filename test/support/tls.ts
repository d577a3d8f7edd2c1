import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  dir: string;
  caPath: string;
  certPath: string;
  keyPath: string;
  ca: string;
  cert: string;
  key: string;
  /** Server flags (valkey-server and redis-server alike) serving TLS on `port` with this certificate, requiring client certificates from this CA. */
  tlsArgs(port: number): string[];
  /**
   * Another node certificate and key from the same CA (new key, new serial): a rotation that keeps
   * the CA. `days: 0` makes one whose validity ends the second it starts (expired a second later).
   */
  issue(dnsNames: readonly string[], opts?: { days?: number }): { cert: string; key: string };
  remove(): void;
}

/**
 * A throwaway CA and one node certificate (serverAuth + clientAuth, as Valkey node certs must be)
 * for the given DNS names, made with the openssl CLI, both valid for `days` (default 2).
 */
export function makePki(dnsNames: readonly string[], opts: { days?: number } = {}): TestPki {
  const days = opts.days ?? 2;
  const dir = mkdtempSync(join(tmpdir(), 'valkey-krm-pki-'));
  const p = (f: string) => join(dir, f);
  const run = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.crt'),
    '-days',
    String(days),
    '-subj',
    '/CN=valkey-krm test CA',
  );
  const issue = (names: readonly string[], prefix: string, certDays = days): { cert: string; key: string } => {
    writeFileSync(
      p(`${prefix}node.ext`),
      [
        `subjectAltName=${names.map((d) => `DNS:${d}`).join(',')}`,
        'extendedKeyUsage=serverAuth,clientAuth',
        'keyUsage=digitalSignature,keyEncipherment',
      ].join('\n'),
    );
    const keyPath = p(`${prefix}tls.key`);
    const certPath = p(`${prefix}tls.crt`);
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', p(`${prefix}node.csr`), '-subj', '/CN=valkey node');
    run(
      'x509',
      '-req',
      '-in',
      p(`${prefix}node.csr`),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-out',
      certPath,
      '-days',
      String(certDays),
      '-extfile',
      p(`${prefix}node.ext`),
    );
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
  };
  const first = issue(dnsNames, '');
  let issued = 0;
  return {
    dir,
    caPath: p('ca.crt'),
    certPath: p('tls.crt'),
    keyPath: p('tls.key'),
    ca: readFileSync(p('ca.crt'), 'utf8'),
    cert: first.cert,
    key: first.key,
    tlsArgs: (port) => [
      '--tls-port',
      String(port),
      '--tls-cert-file',
      p('tls.crt'),
      '--tls-key-file',
      p('tls.key'),
      '--tls-ca-cert-file',
      p('ca.crt'),
      '--tls-auth-clients',
      'yes',
    ],
    issue: (names, opts) => {
      issued += 1;
      return issue(names, `issued-${issued}-`, opts?.days);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface DatedPair {
  ca: string;
  cert: string;
  key: string;
  /** A key of the same kind that is not the certificate's. */
  otherKey: string;
}

/** `YYYYMMDDHHMMSSZ`, as `openssl ca -startdate/-enddate` takes it. */
const asn1Time = (d: Date): string => `${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;

/**
 * A CA and a node certificate valid exactly from `notBefore` to `notAfter` (past dates included,
 * for expired certificates), of either key kind, made with `openssl ca`.
 */
export function makeDatedPair(o: { keyType: 'rsa' | 'ecdsa'; notBefore: Date; notAfter: Date; dnsNames?: readonly string[] }): DatedPair {
  const dir = mkdtempSync(join(tmpdir(), 'valkey-krm-dated-'));
  const p = (f: string) => join(dir, f);
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const keyArgs = o.keyType === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  try {
    writeFileSync(
      p('ca.cnf'),
      [
        '[ca]',
        'default_ca = d',
        '[d]',
        `dir = ${dir}`,
        `database = ${p('index.txt')}`,
        `new_certs_dir = ${dir}`,
        `serial = ${p('serial')}`,
        'default_md = sha256',
        'policy = p',
        'copy_extensions = copy',
        'unique_subject = no',
        '[p]',
        'commonName = supplied',
        '',
      ].join('\n'),
    );
    writeFileSync(p('index.txt'), '');
    writeFileSync(p('serial'), '01\n');
    run(
      'req',
      '-x509',
      ...keyArgs,
      '-nodes',
      '-keyout',
      p('ca.key'),
      '-out',
      p('ca.crt'),
      '-days',
      '3650',
      '-subj',
      '/CN=valkey-krm dated CA',
    );
    const san = (o.dnsNames ?? ['localhost']).map((d) => `DNS:${d}`).join(',');
    run(
      'req',
      ...keyArgs,
      '-nodes',
      '-keyout',
      p('tls.key'),
      '-out',
      p('node.csr'),
      '-subj',
      '/CN=valkey node',
      '-addext',
      `subjectAltName=${san}`,
    );
    run('req', ...keyArgs, '-nodes', '-keyout', p('other.key'), '-out', p('other.csr'), '-subj', '/CN=other');
    run(
      'ca',
      '-config',
      p('ca.cnf'),
      '-batch',
      '-notext',
      '-cert',
      p('ca.crt'),
      '-keyfile',
      p('ca.key'),
      '-in',
      p('node.csr'),
      '-out',
      p('tls.crt'),
      '-startdate',
      asn1Time(o.notBefore),
      '-enddate',
      asn1Time(o.notAfter),
    );
    const read = (f: string) => readFileSync(p(f), 'utf8');
    return { ca: read('ca.crt'), cert: read('tls.crt'), key: read('tls.key'), otherKey: read('other.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What cert-manager issues for `usages: [client auth]`, `commonName: <user>`, from the CA in `caDir`. */
export function issueClientCertificate(caDir: string, commonName: string, into: string): { cert: string; key: string } {
  const p = (f: string) => join(into, f);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  writeFileSync(p('client.ext'), 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('client.key'), '-out', p('client.csr'), '-subj', `/CN=${commonName}`);
  openssl(
    'x509',
    '-req',
    '-in',
    p('client.csr'),
    '-CA',
    join(caDir, 'ca.crt'),
    '-CAkey',
    join(caDir, 'ca.key'),
    '-CAcreateserial',
    '-out',
    p('client.crt'),
    '-days',
    '2',
    '-extfile',
    p('client.ext'),
  );
  return { cert: p('client.crt'), key: p('client.key') };
}
