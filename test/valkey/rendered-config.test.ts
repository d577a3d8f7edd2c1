// Loads the rendered users.acl and valkey.conf, unmodified, into the supported Valkey (9.1.2).
// The last test shows the builds that predate 9.0 refusing the same users.acl (`+cluster|syncslots`).
// What this test leaves out:
//  - the per-pod arguments (announce settings, masterauth), which are not in valkey.conf, and the
//    TLS settings (tested without TLS);
//  - paths: /data and /etc/valkey/conf are rewritten to a temp dir.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/process.js';
import type { RunningServer } from '../support/servers.js';
import { PRE9_BUILDS, SUPPORTED_BUILD, VALKEY_BUILDS, aclForPre9Builds, startValkey, valkeyCliPath } from '../support/valkey.js';
import { ANNOTATIONS } from '../../src/api/index.js';
import { renderAll } from '../../src/render/render-all.js';
import { LIVE_SECTION_HEADER } from '../../src/render/settings.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { run } from '../support/exec.js';
import { cluster, config, guideMenu, renderConfigObject, role } from '../support/objects.js';
import { tempDirs } from '../support/files.js';
import { sha256 } from '../support/hash.js';

const pw = () => randomBytes(12).toString('hex');
const passwords = { replication: pw(), controller: pw(), app: pw(), monitor: pw() };
/** The controller's system user: it administers the cluster. */
const ctl: [string, string] = ['valkey-krm-controller', passwords.controller];

const render = validateRenderConfig(
  renderConfigObject({
    systemUsers: {
      replication: { passwordHash: sha256(passwords.replication) },
      controller: { passwordHash: sha256(passwords.controller) },
    },
  }),
).config!;

const menu = [
  ...guideMenu(),
  role('read-only', { categories: [{ name: 'read', access: 'allow' }], commands: [{ name: 'keys', access: 'deny' }] }),
  role('app', {
    categories: [
      { name: 'read', access: 'allow' },
      { name: 'write', access: 'allow' },
      { name: 'pubsub', access: 'allow' },
      { name: 'dangerous', access: 'deny' },
    ],
  }),
  config('secure', {
    baseRef: 'standard',
    acl: [
      {
        username: 'monitoring',
        passwordHashes: [sha256(passwords.monitor)],
        permissions: [{ roleRef: 'read-only', keys: [{ pattern: '*', access: 'read' }] }],
      },
    ],
  }),
  cluster('carts', {
    configRef: 'secure',
    acl: [
      {
        username: 'cart-service',
        passwordHashes: [sha256('old-password'), sha256(passwords.app)],
        permissions: [
          {
            roleRef: 'app',
            keys: [
              { pattern: 'cart:*', access: 'readwrite' },
              { pattern: 'price:*', access: 'read' },
              { pattern: 'audit:*', access: 'write' },
            ],
            channels: ['cart-events:*'],
          },
        ],
      },
    ],
  }),
];

const out = renderAll(menu, render);
const configMap = out.clusters[0]!.objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
const renderedAcl = configMap.data['users.acl']!;
// Loaded exactly as rendered: 9.1.2 has `cluster|syncslots`.
const usersAcl = renderedAcl;
const valkeyConf = configMap.data['valkey.conf']!;
const statefulSet = out.clusters[0]!.objects.find((o) => o.kind === 'StatefulSet')!;
const aclRevision = statefulSet.metadata.annotations?.[ANNOTATIONS.aclRevision] as string;
/** The directive lines of the live section: what the controller applies with CONFIG SET. */
const liveLines = valkeyConf
  .split(LIVE_SECTION_HEADER)[1]!
  .split('\n\n')[0]!
  .split('\n')
  .filter((l) => l !== '');

let primary: RunningServer;
const dirs = tempDirs('valkey');

function confFor(dir: string, overrides: Record<string, string> = {}, acl = usersAcl): string {
  writeFileSync(join(dir, 'users.acl'), acl);
  let text = valkeyConf.replaceAll('/etc/valkey/conf', dir).replaceAll('/data', dir);
  for (const [k, v] of Object.entries(overrides)) text = text.replace(new RegExp(`^${k} .*$`, 'm'), `${k} ${v}`);
  return text;
}

const cli = async (port: number, auth: [string, string] | undefined, ...command: string[]) => {
  const args = ['-h', '127.0.0.1', '-p', String(port), '--no-auth-warning'];
  if (auth) args.push('--user', auth[0], '--pass', auth[1]);
  const r = await run(valkeyCliPath(), [...args, ...command]);
  return (r.stdout + r.stderr).trim();
};

describe(`rendered valkey.conf and users.acl on a real Valkey (${SUPPORTED_BUILD})`, () => {
  beforeAll(async () => {
    // The harness passes --port and --dir after the file; everything else is the rendered conf.
    primary = await startValkey({ build: SUPPORTED_BUILD, confText: confFor(dirs.make('acl')) });
    // One node owning every slot: the controller user is enough to make the cluster serve.
    expect(await cli(primary.port, ctl, 'CLUSTER', 'ADDSLOTSRANGE', '0', '16383')).toBe('OK');
    await waitFor('cluster_state:ok', async () => (await cli(primary.port, ctl, 'CLUSTER', 'INFO')).includes('cluster_state:ok'), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
  }, 60_000);
  afterAll(async () => {
    await primary?.stop();
    dirs.cleanup();
  });

  it('starts with the rendered config in cluster mode', async () => {
    expect(await cli(primary.port, undefined, 'PING')).toBe('PONG');
    expect(await cli(primary.port, ctl, 'CLUSTER', 'INFO')).toContain('cluster_state:ok');
  });

  it('the default user may only PING', async () => {
    expect(await cli(primary.port, undefined, 'PING')).toBe('PONG');
    for (const cmd of [
      ['GET', 'x'],
      ['SET', 'x', '1'],
      ['INFO'],
      ['CONFIG', 'GET', 'port'],
      ['CLUSTER', 'INFO'],
      ['ACL', 'WHOAMI'],
      ['KEYS', '*'],
    ]) {
      expect(await cli(primary.port, undefined, ...cmd), cmd.join(' ')).toMatch(/NOPERM/);
    }
  });

  it('the team user gets exactly its selectors: keys by access, channels, denied categories', async () => {
    const app: [string, string] = ['cart-service', passwords.app];
    expect(await cli(primary.port, app, 'SET', 'cart:1', 'a')).toBe('OK');
    expect(await cli(primary.port, app, 'GET', 'cart:1')).toBe('a');
    expect(await cli(primary.port, app, 'SET', 'audit:1', 'x')).toBe('OK');
    expect(await cli(primary.port, app, 'GET', 'audit:1')).toMatch(/NOPERM/);
    expect(await cli(primary.port, app, 'GET', 'price:1')).toBe('');
    expect(await cli(primary.port, app, 'SET', 'price:1', 'x')).toMatch(/NOPERM/);
    expect(await cli(primary.port, app, 'GET', 'other:1')).toMatch(/NOPERM/);
    expect(await cli(primary.port, app, 'PUBLISH', 'cart-events:new', 'x')).toBe('0');
    expect(await cli(primary.port, app, 'PUBLISH', 'other', 'x')).toMatch(/NOPERM/);
    expect(await cli(primary.port, app, 'FLUSHALL')).toMatch(/NOPERM/);
    // Both hashes are live (password rotation); a wrong password is refused.
    expect(await cli(primary.port, ['cart-service', 'old-password'], 'GET', 'cart:1')).toBe('a');
    expect(await cli(primary.port, ['cart-service', 'wrong'], 'GET', 'cart:1')).toMatch(/WRONGPASS|invalid/);
    // The role has no @connection, but every user has the client baseline (CLIENT_BASELINE_RULES):
    // PING and the topology a cluster client reads, and nothing else outside the role.
    expect(await cli(primary.port, app, 'PING')).toBe('PONG');
    expect(await cli(primary.port, app, 'CLUSTER', 'MYID')).toMatch(/^[0-9a-f]{40}$/);
    expect(await cli(primary.port, app, 'INFO')).toMatch(/NOPERM/);
  });

  it("the platform's monitoring user reads everything and runs nothing its role denies", async () => {
    const mon: [string, string] = ['monitoring', passwords.monitor];
    expect(await cli(primary.port, mon, 'GET', 'cart:1')).toBe('a');
    expect(await cli(primary.port, mon, 'SET', 'cart:1', 'b')).toMatch(/NOPERM/);
    expect(await cli(primary.port, mon, 'KEYS', '*')).toMatch(/NOPERM/);
  });

  it('the controller user administers the cluster but cannot touch keys', async () => {
    const info = await cli(primary.port, ctl, 'INFO', 'server');
    expect(info).toContain('redis_version:');
    expect(info).toContain('valkey_version:9.1.2');
    expect(await cli(primary.port, ctl, 'CLUSTER', 'MYID')).toMatch(/^[0-9a-f]{40}$/);
    expect(await cli(primary.port, ctl, 'ACL', 'LOAD')).toBe('OK');
    expect(await cli(primary.port, ctl, 'GET', 'cart:1')).toMatch(/NOPERM/);
  });

  it('the revision marker user names the ACL revision, and cannot log in', async () => {
    expect(aclRevision).toMatch(/^[0-9a-f]{64}$/);
    const user = await cli(primary.port, ctl, 'ACL', 'GETUSER', 'valkey-krm-revision');
    expect(user).toMatch(/^flags\noff\n/m);
    expect(user).toMatch(new RegExp(`^passwords\\n${aclRevision}$`, 'm'));
    expect(await cli(primary.port, ['valkey-krm-revision', 'anything'], 'PING')).toMatch(/WRONGPASS|invalid/);
  });

  it('CONFIG SET takes every line of the live section as rendered (what the controller sends)', async () => {
    expect(liveLines).toEqual(['maxmemory 1500mb', 'maxmemory-policy allkeys-lru', 'shutdown-on-sigterm failover']);
    for (const line of liveLines) {
      const [key, ...value] = line.split(' ');
      expect(await cli(primary.port, ctl, 'CONFIG', 'SET', key!, value.join(' ')), line).toBe('OK');
    }
    expect(await cli(primary.port, ctl, 'CONFIG', 'GET', 'maxmemory')).toBe(`maxmemory\n${1500 * 1024 * 1024}`);
    expect(await cli(primary.port, ctl, 'CONFIG', 'GET', 'shutdown-on-sigterm')).toBe('shutdown-on-sigterm\nfailover');
  });

  it('a replica syncs through the replication user alone', async () => {
    // Replication is checked outside cluster mode (REPLICAOF is refused in cluster mode; the
    // controller uses CLUSTER REPLICATE there), with the same ACL file on the primary.
    const plainPrimary = await startValkey({
      build: SUPPORTED_BUILD,
      confText: confFor(dirs.make('acl-plain'), { 'cluster-enabled': 'no' }),
    });
    const replica = await startValkey({
      build: SUPPORTED_BUILD,
      args: [
        '--replicaof',
        '127.0.0.1',
        String(plainPrimary.port),
        '--masteruser',
        'valkey-krm-replication',
        '--masterauth',
        passwords.replication,
      ],
    });
    try {
      let info = '';
      await waitFor(
        'the replica links to the primary',
        async () => {
          info = await cli(replica.port, undefined, 'INFO', 'replication');
          return info.includes('master_link_status:up');
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      );
      expect(info).toContain('master_link_status:up');
      expect(await cli(plainPrimary.port, ctl, 'INFO', 'replication')).toContain('connected_slaves:1');
    } finally {
      await replica.stop();
      await plainPrimary.stop();
    }
  }, 60_000);
});

/** What a build before 9.0 needs changed in the rendered valkey.conf to start at all: 9.0's `shutdown-on-sigterm failover`. */
const PRE9_CONF = { 'shutdown-on-sigterm': 'default' };

// The marker line is plain ACL syntax that every build loads; GETUSER reads the revision back.
// The builds that predate 9.0 get the file without `+cluster|syncslots`, which they lack, and
// valkey.conf without 9.0's `shutdown-on-sigterm failover`.
describe('the ACL revision marker on every build', () => {
  it.each(VALKEY_BUILDS)(
    '%s loads it and reports its hash',
    async (build) => {
      const pre9 = (PRE9_BUILDS as readonly string[]).includes(build);
      const acl = pre9 ? aclForPre9Builds(renderedAcl) : renderedAcl;
      const server = await startValkey({ build, confText: confFor(dirs.make(`acl-marker-${build}`), pre9 ? PRE9_CONF : {}, acl) });
      try {
        const user = await cli(server.port, ctl, 'ACL', 'GETUSER', 'valkey-krm-revision');
        expect(user).toMatch(/^flags\noff\n/m);
        expect(user).toMatch(new RegExp(`^passwords\\n${aclRevision}$`, 'm'));
      } finally {
        await server.stop();
      }
    },
    30_000,
  );
});

// What the day-2 work relies on: a pre-9.0 server does not start on the files as rendered, so such
// a server can never be rolled onto a 9.x ConfigMap. It stops at valkey.conf's 9.0 line first
// (its FATAL CONFIG FILE ERROR names its version, which the controller reads); given a
// valkey.conf without that line, at users.acl's `+cluster|syncslots`.
describe('the unmodified rendered files on the pre-9.0 builds', () => {
  it.each(PRE9_BUILDS)('%s refuses valkey.conf at start-up, at its shutdown-on-sigterm failover line', async (build) => {
    expect(valkeyConf).toMatch(/^shutdown-on-sigterm failover$/m);
    const confText = confFor(dirs.make(`conf-as-rendered-${build}`), {}, renderedAcl);
    await expect(startValkey({ build, confText, quietFailure: true })).rejects.toThrow(
      /\*\*\* FATAL CONFIG FILE ERROR \(Version [^)]+\) \*\*\*[\s\S]*'shutdown-on-sigterm failover'/,
    );
  });

  it.each(PRE9_BUILDS)('%s refuses users.acl at start-up, naming +cluster|syncslots', async (build) => {
    expect(renderedAcl).toContain(' +cluster|syncslots');
    const confText = confFor(dirs.make(`acl-as-rendered-${build}`), PRE9_CONF, renderedAcl);
    await expect(startValkey({ build, confText, quietFailure: true })).rejects.toThrow(
      /Aborting Valkey startup because of ACL errors: .*users\.acl:2: Error in applying operation '\+cluster\|syncslots': Unknown command or category name in ACL/,
    );
  });
});
