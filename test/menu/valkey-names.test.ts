import { describe, expect, it } from 'vitest';
import { renderAll } from '../../src/render/render-all.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { cluster, config, guideMenu, image, role } from '../support/objects.js';
import { CLIENT_BASELINE_RULES, CONTROLLER_RULES, DEFAULT_USER_LINE, REPLICATION_RULES } from '../../src/render/acl.js';
import { lookupCommand, lookupSetting } from '../../src/api/valkey-table.js';
import { forcedSettings, isManagedKey } from '../../src/render/settings.js';

const render = validateRenderConfig(renderConfigObject()).config!;
function renderConfigObject() {
  return {
    apiVersion: 'valkey.gomomento.com/v1alpha1',
    kind: 'ValkeyRenderConfig',
    metadata: { name: 'render' },
    spec: { systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } } },
  };
}

/** A menu whose one config sets `valkey`, with a cluster on it. */
const withSettings = (valkey: Record<string, string>) => [
  image('img'),
  config('tuned', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' }, valkey: { maxmemory: '1gb', ...valkey } }),
  // A replica per shard, so the only warnings are about the settings (no data-loss warning).
  cluster('c', { configRef: 'tuned', replicasPerShard: 1 }),
];
const withRole = (spec: Record<string, unknown>) => [...guideMenu(), role('r', spec)];
const findings = (objects: unknown[], severity: 'error' | 'warning' | 'info') =>
  renderAll(objects, render)
    .problems.filter((p) => p.severity === severity)
    .map((p) => ({ field: p.field, message: p.message }));
const valkeyConf = (objects: unknown[]) => {
  const out = renderAll(objects, render);
  expect(out.problems.filter((p) => p.severity === 'error')).toEqual([]);
  const configMap = out.clusters[0]!.objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
  return configMap.data['valkey.conf'] as string;
};

describe('setting names and values are checked against the Valkey tables', () => {
  it.each([
    ['maxmemory-polcy', 'allkeys-lru', 'did you mean "maxmemory-policy"?'],
    ['maxmemory-policy', 'allkeys-lur', 'did you mean "allkeys-lru"? Use one of: volatile-lru'],
    ['appendonly', 'yse', 'did you mean "yes"? Use one of: yes, no'],
    ['shutdown-on-sigterm', 'nosave nowe', '"nowe" is not a value Valkey accepts for shutdown-on-sigterm'],
    ['loglevel', 'loud', 'use one of: debug, verbose, notice, warning, nothing'],
    ['tcp-keepalve', '60', 'did you mean "tcp-keepalive"?'],
  ])('%s: %s is an error that names the fix', (key, value, fix) => {
    const errors = findings(withSettings({ [key]: value }), 'error');
    expect(errors).toEqual([{ field: `spec.valkey.${key}`, message: expect.stringContaining(fix) }]);
    expect(errors[0]!.message).toMatch(/^ValkeyConfig tuned: spec\.valkey\./);
  });

  it('an unknown name far from every known one is a warning (a module or a newer release)', () => {
    const objects = withSettings({ 'my-module-frobnicate': 'on' });
    expect(findings(objects, 'error')).toEqual([]);
    expect(findings(objects, 'warning')).toEqual([
      { field: 'spec.valkey.my-module-frobnicate', message: expect.stringContaining('if a module or a newer release provides it') },
    ]);
  });

  it('a setting the 8.0.1 release had and later builds refuse is a warning', () => {
    expect(findings(withSettings({ 'io-threads-do-reads': 'yes' }), 'warning').map((f) => f.field)).toEqual([
      'spec.valkey.io-threads-do-reads',
    ]);
  });

  it.each([
    ['MAXMEMORY-POLICY', 'ALLKEYS-LRU'],
    ['shutdown-on-sigterm', 'nosave now'],
    ['cluster-slot-migration-log-max-len', '100'],
    ['commandlog-execution-slower-than', '5000'],
    ['hash-max-ziplist-entries', '256'],
    ['notify-keyspace-events', 'Ex'],
  ])('%s: %s passes (case, multi-value enums, hand-recorded 9.0 settings, aliases)', (key, value) => {
    const objects = withSettings({ [key]: value });
    expect(findings(objects, 'error')).toEqual([]);
    expect(findings(objects, 'warning').filter((w) => w.field?.startsWith('spec.valkey.') && !w.field.endsWith('maxmemory'))).toEqual([]);
  });

  it.each([
    [{ MAXMEMORY: '2gb' }, 'Valkey reads setting names case-insensitively'],
    [{ 'slave-priority': '10', 'replica-priority': '20' }, 'Valkey reads both as replica-priority'],
  ])('one setting spelled twice in one config is an error: %j', (valkey, why) => {
    const errors = findings(withSettings(valkey), 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(why);
  });
});

describe('setting names are case-insensitive through the chain', () => {
  const chain = (child: Record<string, string>) => [
    image('img'),
    config('base', { imageRef: 'img', resources: { cpu: '1', memory: '4Gi' }, valkey: { maxmemory: '1gb', 'slave-priority': '50' } }),
    config('child', { baseRef: 'base', valkey: child }),
    cluster('c', { configRef: 'child' }),
  ];

  it("a child's MAXMEMORY overrides its base's maxmemory, and valkey.conf has one lowercase line", () => {
    const conf = valkeyConf(chain({ MAXMEMORY: '2gb' }));
    expect(conf).toMatch(/^maxmemory 2gb$/m);
    expect(conf).not.toContain('1gb');
    expect(conf).not.toContain('MAXMEMORY');
  });

  it("a child's replica-priority overrides its base's alias slave-priority; the file uses the canonical name", () => {
    const conf = valkeyConf(chain({ 'replica-priority': '10' }));
    expect(conf).toMatch(/^replica-priority 10$/m);
    expect(conf).not.toMatch(/priority 50/);
    expect(conf).not.toContain('slave-priority');
  });

  it('aliases and mixed case are written in one canonical spelling', () => {
    const conf = valkeyConf(withSettings({ 'Maxmemory-Policy': 'allkeys-lru', 'hash-max-ziplist-entries': '256' }));
    expect(conf).toMatch(/^maxmemory-policy allkeys-lru$/m);
    expect(conf).toMatch(/^hash-max-listpack-entries 256$/m);
  });
});

describe('per-pod, path and identity settings are forced (dropped from a shared config)', () => {
  it.each([
    'PORT',
    'SlaveOf',
    'cluster-announce-client-ipv4',
    'cluster-announce-client-ipv6',
    'Cluster-Announce-IP',
    'replica-announce-ip',
    'slave-announce-port',
    'bind-source-addr',
    'logfile',
    'pidfile',
    'unixsocket',
    'unixsocketperm',
    'dbfilename',
    'appenddirname',
    'appendfilename',
    'availability-zone',
  ])('%s is dropped with an info result and never reaches valkey.conf', (key) => {
    const objects = withSettings({ [key]: '1' });
    expect(findings(objects, 'info')).toEqual([
      { field: `spec.valkey.${key}`, message: expect.stringContaining('dropped, because valkey-krm sets') },
    ]);
    const conf = valkeyConf(objects);
    expect(conf.split('# Forced by valkey-krm')[0]).not.toMatch(new RegExp(`^${key} `, 'im'));
  });

  it('settings that are neither per pod nor paths pass through', () => {
    const objects = withSettings({ 'replica-announced': 'yes', 'lazyfree-lazy-eviction': 'yes' });
    expect(findings(objects, 'info')).toEqual([]);
    expect(valkeyConf(objects)).toMatch(/^replica-announced yes$/m);
  });
});

describe('settings that change who can connect, or how, are errors (never dropped)', () => {
  it.each([
    ['requirepass', 'hunter2', "the default user's password"],
    ['masterauth', 'secret', 'replication system user'],
    ['primaryauth', 'secret', 'replication system user'],
    ['MasterUser', 'repl', 'replication system user'],
    ['primaryuser', 'repl', 'replication system user'],
    ['aclfile', '/etc/users.acl', 'ACL bindings (spec.acl)'],
    ['user', 'app on >pw ~* +@all', 'ACL bindings (spec.acl)'],
    ['include', '/etc/extra.conf', 'an included file'],
    ['rename-command', 'FLUSHALL ""', 'renamed commands'],
    ['tls-auth-clients', 'optional', 'spec.tls.secretRef'],
    ['tls-protocols', 'TLSv1.2', 'spec.tls.secretRef'],
    ['tls-port', '6380', 'spec.tls.secretRef'],
    ['tls-cert-file', '/tmp/x.crt', 'spec.tls.secretRef'],
    ['tls-key-file-pass', 'x', 'spec.tls.secretRef'],
    ['tls-ciphersuites', 'TLS_AES_256_GCM_SHA384', 'spec.tls.secretRef'],
    ['tls-some-later-setting', 'x', 'spec.tls.secretRef'],
  ])('%s is an error naming the field and the fix, and no cluster is rendered', (key, value, why) => {
    const objects = withSettings({ [key]: value });
    const out = renderAll(objects, render);
    const errors = out.problems.filter((p) => p.severity === 'error').map((p) => ({ field: p.field, message: p.message }));
    expect(errors).toEqual([
      {
        field: `spec.valkey.${key}`,
        message: expect.stringMatching(new RegExp(`^ValkeyConfig tuned: spec\\.valkey\\.${key}: refused: .*changes who can connect`)),
      },
    ]);
    expect(errors[0]!.message).toContain(why);
    expect(errors[0]!.message).toContain('remove it from the config');
    // Not also reported as dropped.
    expect(out.problems.filter((p) => p.severity === 'info')).toEqual([]);
    expect(out.clusters.flatMap((c) => c.objects)).toEqual([]);
  });
});

describe('ValkeyRole commands and categories are closed sets', () => {
  it.each([
    [{ commands: [{ name: 'flushal', access: 'deny' }] }, 'spec.commands[0].name', 'did you mean "flushall"?'],
    [{ categories: [{ name: 'connections', access: 'allow' }] }, 'spec.categories[0].name', 'did you mean "connection"?'],
    [{ commands: [{ name: 'config|gett', access: 'allow' }] }, 'spec.commands[0].name', 'did you mean "config|get"?'],
    [
      { commands: [{ name: 'config|everything', access: 'allow' }] },
      'spec.commands[0].name',
      'config has no subcommand "everything" (it has: get, help, resetstat, rewrite, set)',
    ],
    [{ commands: [{ name: 'get|secret', access: 'deny' }] }, 'spec.commands[0].name', 'cannot deny get for one first argument'],
  ])('%j is an error at %s: %s', (spec, field, fix) => {
    const errors = findings(withRole(spec), 'error');
    expect(errors).toEqual([{ field, message: expect.stringContaining(fix) }]);
    expect(errors[0]!.message).toMatch(/^ValkeyRole r: spec\./);
    expect(errors[0]!.message).toContain('rejects the whole ACL file');
  });

  it.each([
    {
      commands: [
        { name: 'cluster|syncslots', access: 'allow' },
        { name: 'CLUSTER|MIGRATESLOTS', access: 'allow' },
        { name: 'cluster|getslotmigrations', access: 'allow' },
      ],
    },
    {
      commands: [
        { name: 'FLUSHALL', access: 'deny' },
        { name: 'get|secret', access: 'allow' },
        { name: 'hgetex', access: 'allow' },
      ],
    },
    {
      categories: [
        { name: 'all', access: 'deny' },
        { name: 'connection', access: 'allow' },
      ],
    },
  ])('%j passes (9.0 commands, any case, first-argument allow, @all)', (spec) => {
    const objects = withRole(spec);
    expect(findings(objects, 'error')).toEqual([]);
    expect(findings(objects, 'warning').filter((w) => w.field?.startsWith('spec.c'))).toEqual([]);
  });

  it.each([
    [{ commands: [{ name: 'ft.search', access: 'allow' }] }, 'spec.commands[0].name'],
    [{ categories: [{ name: 'search', access: 'allow' }] }, 'spec.categories[0].name'],
  ])('%j, far from every known name, is a warning (a module or a newer release)', (spec, field) => {
    const objects = withRole(spec);
    expect(findings(objects, 'error')).toEqual([]);
    expect(findings(objects, 'warning')).toEqual([{ field, message: expect.stringContaining('module or a release newer than 9.0') }]);
  });
});

describe("the renderer's own ACL rules name only commands Valkey 9.0 has", () => {
  it.each([
    ['default', DEFAULT_USER_LINE],
    ['replication', REPLICATION_RULES],
    ['controller', CONTROLLER_RULES],
    ['every binding (client baseline)', CLIENT_BASELINE_RULES],
  ])('%s user', (_user, rules) => {
    const commands = rules
      .split(' ')
      .filter((t) => /^[+-][a-z]/.test(t))
      .map((t) => t.slice(1));
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.filter((c) => !lookupCommand(c))).toEqual([]);
  });
});

describe('the forced settings', () => {
  it.each([false, true])('are known settings and all managed, so a config can never set one twice (tls: %s)', (tls) => {
    const names = forcedSettings({ tls }).map(([name]) => name);
    expect(names.filter((n) => !lookupSetting(n))).toEqual([]);
    expect(names.filter((n) => !isManagedKey(n))).toEqual([]);
  });
});
