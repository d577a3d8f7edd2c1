// The kubelet stand-in's pure parts: Kubernetes' $(VAR) expansion, the atomic volume writer and
// the container-to-host path translation.
import { mkdtemp, readFile, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { containerCommand, hostPathOf } from './kubelet/container-command.js';
import { expand } from './kubelet/container-env.js';
import { ProjectedVolume } from './kubelet/projected-volume.js';

const dirs: string[] = [];
const tempDir = async (): Promise<string> => {
  const d = await mkdtemp(join(tmpdir(), 'valkey-krm-kubelet-parts-'));
  dirs.push(d);
  return d;
};
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('expand: Kubernetes $(VAR) rules', () => {
  const vars = new Map([
    ['POD_IP', '127.1.2.3'],
    ['POD_NAME', 'sessions-0-1'],
  ]);
  it.each([
    ['$(POD_IP)', '127.1.2.3'],
    ['$(POD_NAME).sessions.team-a.svc', 'sessions-0-1.sessions.team-a.svc'],
    ['$(UNDEFINED)', '$(UNDEFINED)'],
    ['$$(POD_IP)', '$(POD_IP)'],
    ['a$$b', 'a$b'],
    ['cost $5', 'cost $5'],
    ['$(POD_IP', '$(POD_IP'],
    ['trailing $', 'trailing $'],
  ])('%s -> %s', (input, output) => {
    expect(expand(input, vars)).toBe(output);
  });
});

describe('ProjectedVolume', () => {
  it('swaps ..data atomically, keeps the visible names as links into it and drops the old projection', async () => {
    const dir = await tempDir();
    const volume = new ProjectedVolume(dir, 0o644);
    expect(
      await volume.project(
        new Map([
          ['a.conf', Buffer.from('one')],
          ['gone.acl', Buffer.from('x')],
        ]),
      ),
    ).toBe(true);
    const first = await readlink(join(dir, '..data'));
    expect(await readlink(join(dir, 'a.conf'))).toBe(join('..data', 'a.conf'));
    expect(
      await volume.project(
        new Map([
          ['a.conf', Buffer.from('one')],
          ['gone.acl', Buffer.from('x')],
        ]),
      ),
    ).toBe(false);
    expect(await volume.project(new Map([['a.conf', Buffer.from('two')]]))).toBe(true);
    expect(await readFile(join(dir, 'a.conf'), 'utf8')).toBe('two');
    expect(await readlink(join(dir, '..data'))).not.toBe(first);
    expect((await readdir(dir)).sort()).toEqual(['..data', await readlink(join(dir, '..data')), 'a.conf'].sort());
  });
});

describe('container command on the host', () => {
  const mounts = [
    { mountPath: '/data', hostDir: '/pods/u1/volumes/data' },
    { mountPath: '/etc/valkey/conf', hostDir: '/pods/u1/volumes/config' },
    { mountPath: '/etc/valkey/conf/extra', hostDir: '/pods/u1/volumes/extra' },
  ];

  it('maps a container path to the longest mount', () => {
    expect(hostPathOf(mounts, '/data')).toBe('/pods/u1/volumes/data');
    expect(hostPathOf(mounts, '/data/nodes.conf')).toBe('/pods/u1/volumes/data/nodes.conf');
    expect(hostPathOf(mounts, '/etc/valkey/conf/extra/x')).toBe('/pods/u1/volumes/extra/x');
    expect(hostPathOf(mounts, '/database')).toBeUndefined();
  });

  it('reads the config from a translated copy and binds the pod IP', async () => {
    const dir = await tempDir();
    const volume = new ProjectedVolume(join(dir, 'config'), 0o644);
    const conf = 'port 6379\ndir /data\naclfile /etc/valkey/conf/users.acl\nbind * -::*\n';
    await volume.project(new Map([['valkey.conf', Buffer.from(conf)]]));
    const cmd = await containerCommand({
      command: ['valkey-server'],
      args: ['/etc/valkey/conf/valkey.conf', '--cluster-announce-ip', '127.9.9.9'],
      binDir: '/opt/valkey',
      mounts: [
        { mountPath: '/data', hostDir: join(dir, 'data') },
        { mountPath: '/etc/valkey/conf', hostDir: join(dir, 'config') },
      ],
      scratchDir: join(dir, 'host-config'),
      podIp: '127.9.9.9',
      port: 6379,
    });
    expect(cmd.binary).toBe('/opt/valkey/valkey-server');
    expect(cmd.args).toEqual([join(dir, 'host-config', 'valkey.conf'), '--cluster-announce-ip', '127.9.9.9', '--bind', '127.9.9.9']);
    expect(await readFile(join(dir, 'host-config', 'valkey.conf'), 'utf8')).toBe(
      `port 6379\ndir ${join(dir, 'data')}\naclfile ${join(dir, 'config', 'users.acl')}\nbind * -::*\n`,
    );
    expect(await readFile(join(dir, 'config', 'valkey.conf'), 'utf8')).toBe(conf);
    expect(cmd.ping).toEqual({ host: '127.9.9.9', port: 6379 });
  });

  it('probes a TLS-only port with the certificate files the config names', async () => {
    const dir = await tempDir();
    const volume = new ProjectedVolume(join(dir, 'config'), 0o644);
    await volume.project(
      new Map([
        [
          'valkey.conf',
          Buffer.from('port 0\ntls-port 6379\ntls-cert-file /tls/tls.crt\ntls-key-file /tls/tls.key\ntls-ca-cert-file /tls/ca.crt\n'),
        ],
      ]),
    );
    const cmd = await containerCommand({
      command: ['valkey-server'],
      args: ['/conf/valkey.conf'],
      binDir: '/opt/valkey',
      mounts: [
        { mountPath: '/conf', hostDir: join(dir, 'config') },
        { mountPath: '/tls', hostDir: join(dir, 'tls') },
      ],
      scratchDir: join(dir, 'host-config'),
      podIp: '127.9.9.9',
      port: 6379,
    });
    expect(cmd.ping.tls).toEqual({ cert: join(dir, 'tls', 'tls.crt'), key: join(dir, 'tls', 'tls.key'), ca: join(dir, 'tls', 'ca.crt') });
  });
});
