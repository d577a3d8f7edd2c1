import { describe, expect, it } from 'vitest';
import { valkeyArgsError } from '../../src/api/valkey-args.js';
import { runFunction, type InputItem } from '../../src/krm/run-function.js';
import { CLIENT_BASELINE_RULES } from '../../src/render/acl.js';
import { binding, cluster, config, guideMenu, image, renderConfigObject, role } from '../support/objects.js';

const item = (value: unknown): InputItem => ({ text: `${JSON.stringify(value)}\n`, value });
const run = (objects: unknown[]) => runFunction(objects.map(item), renderConfigObject(), { validateOnly: false, dropLocalConfig: false });
const errorFields = (objects: unknown[]) =>
  run(objects)
    .problems.filter((p) => p.severity === 'error')
    .map((p) => p.field);
const menuWithImage = (spec: Record<string, unknown>) => [
  image('valkey-9-0', spec),
  config('standard', { imageRef: 'valkey-9-0', resources: { cpu: '1', memory: '2Gi' } }),
  cluster('c'),
];

describe('image references follow the OCI reference grammar', () => {
  it.each(['9.0.1\nport 1', '9.0.1 ', '.9', '-9', '9:1', '9@sha256', 'a'.repeat(129), '9.0.1\u2028x'])('tag %j is refused', (tag) => {
    expect(errorFields(menuWithImage({ tag }))).toContain('spec.tag');
  });
  it.each(['9.0.1', '9.0.1-bookworm', 'latest_2', 'A.b-C'])('tag %j is fine', (tag) => {
    expect(run(menuWithImage({ tag })).ok).toBe(true);
  });
  it.each([
    'valkey/valkey:9.0.1',
    'valkey/valkey\nport 1',
    'Valkey/Valkey',
    'valkey//valkey',
    '/valkey',
    'valkey/',
    'valkey/valkey@sha256:abc',
    'registry example.com/valkey',
    'a'.repeat(256),
    'https://registry/valkey',
  ])('repository %j is refused', (repository) => {
    expect(errorFields(menuWithImage({ repository }))).toContain('spec.repository');
  });
  it.each(['valkey/valkey', 'valkey', 'registry.example.com:5000/team/valkey', 'localhost/a_b/c__d/e--f.g', '[::1]:5000/valkey'])(
    'repository %j is fine',
    (repository) => {
      expect(run(menuWithImage({ repository })).ok).toBe(true);
    },
  );
});

describe('valkey.conf values split as Valkey splits them', () => {
  it.each([
    ['"unbalanced', 'never closed'],
    ["'unbalanced", 'never closed'],
    ['x "y', 'never closed'],
    ['a\u0000b', 'NUL'],
    ["it's", 'never closed'],
  ])('%j is refused: %s', (value, why) => {
    const problems = run([
      ...guideMenu().slice(0, 1),
      config('standard', { imageRef: 'valkey-9-0', valkey: { save: value } }),
      cluster('c'),
    ]).problems;
    expect(problems.filter((p) => p.severity === 'error' && p.object?.kind === 'ValkeyConfig').map((p) => p.message)).toEqual([
      expect.stringContaining(why),
    ]);
  });
  it.each(['', '3600 1 300 100', '"a b"', "'a b'", '"a\\"b"', '"\\x41"', 'a"b"', '"a"b', "'a'b", "'it\\'s'", '  spaced  '])(
    '%j is fine',
    (value) => {
      expect(valkeyArgsError(value)).toBeUndefined();
    },
  );
  it('a valid value is one directive line in the rendered file', () => {
    const r = run([
      ...guideMenu().slice(0, 1),
      config('standard', { imageRef: 'valkey-9-0', valkey: { save: '"3600" 1 300 \'100\'' } }),
      cluster('c'),
    ]);
    expect(r.ok).toBe(true);
    const conf = (r.generated[0]!.object as unknown as { data: Record<string, string> }).data['valkey.conf'] as string;
    expect(conf.split('\n').filter((l) => l.startsWith('save '))).toEqual(['save "3600" 1 300 \'100\'']);
  });
});

describe('users.acl: no user string closes a selector or a rule early', () => {
  const team = (keys: { pattern: string; access: string }[], channels?: string[]) =>
    cluster('c', { acl: [{ ...binding('app'), permissions: [{ roleRef: 'reader', keys, ...(channels ? { channels } : {}) }] }] });
  it.each([
    [[{ pattern: 'a)', access: 'read' }], undefined, 'spec.acl[0].permissions[0].keys[0].pattern'],
    [[{ pattern: 'a) +@all ~*', access: 'read' }], undefined, 'spec.acl[0].permissions[0].keys[0].pattern'],
    [[{ pattern: 'a b', access: 'read' }], undefined, 'spec.acl[0].permissions[0].keys[0].pattern'],
    [[{ pattern: '*', access: 'read' }], ['news)'], 'spec.acl[0].permissions[0].channels[0]'],
    [[{ pattern: '*', access: 'read' }], ['a\nb'], 'spec.acl[0].permissions[0].channels[0]'],
  ])('keys %j channels %j are refused', (keys, channels, field) => {
    expect(errorFields([...guideMenu(), role('reader'), team(keys, channels)])).toContain(field);
  });
  it.each(['app)', 'a b', 'a\nb', '(x', 'on'.padEnd(129, 'x')])('username %j is refused', (username) => {
    expect(errorFields([...guideMenu(), role('reader'), cluster('c', { acl: [binding(username)] })])).toContain('spec.acl[0].username');
  });
  it('each selector is one balanced group in the rendered file', () => {
    const r = run([...guideMenu(), role('reader'), team([{ pattern: 'a(b', access: 'read' }], ['x(y'])]);
    expect(r.ok).toBe(true);
    const acl = (r.generated[0]!.object as unknown as { data: Record<string, string> }).data['users.acl'] as string;
    expect(acl.split('\n').find((l) => l.startsWith('user app '))).toBe(
      `user app on #${binding('app').passwordHashes[0]} resetchannels ${CLIENT_BASELINE_RULES} (+@read %R~a(b &x(y)`,
    );
  });
});
