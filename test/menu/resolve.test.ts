import { describe, expect, it } from 'vitest';
import { parseMenu } from '../../src/menu/parse.js';
import { resolveMenu } from '../../src/menu/resolve-menu.js';
import { MAX_CHAIN_LENGTH, mergeAllChains } from '../../src/menu/resolve.js';
import { binding, cluster, config, guideMenu, image, role } from '../support/objects.js';

const resolve = (objects: unknown[]) => {
  const { menu, problems } = parseMenu(objects);
  expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
  return resolveMenu(menu);
};
const errors = (objects: unknown[]) =>
  resolve(objects)
    .problems.filter((p) => p.severity === 'error')
    .map((p) => p.message);
const resolved = (objects: unknown[], name: string) => {
  const r = resolve(objects).configs.get(name);
  expect(r, `config ${name} should resolve`).toBeDefined();
  return r!;
};

/** c1 → c2 → … → cN, with the image on the root. */
const chain = (n: number) => [
  image('img'),
  ...Array.from({ length: n }, (_, i) => config(`c${i + 1}`, i + 1 === n ? { imageRef: 'img' } : { baseRef: `c${i + 2}` })),
];

describe('config chain resolution (the guide’s rules)', () => {
  it('the guide example: large inherits image and maxmemory-policy, overrides cpu, memory and maxmemory', () => {
    const large = resolved(guideMenu(), 'large');
    expect(large.chain).toEqual(['large', 'standard']);
    expect(large.image).toBe('valkey/valkey:9.0.1');
    expect(large.imageFrom).toBe('standard');
    expect(large.resources).toEqual({ cpu: '4', memory: '16Gi' });
    expect(large.valkey).toEqual({ maxmemory: '12gb', 'maxmemory-policy': 'allkeys-lru' });
    expect(large.valkeyFrom).toEqual({ maxmemory: 'large', 'maxmemory-policy': 'standard' });
  });

  it.each([
    ['memory only', { memory: '4Gi' }, { cpu: '1', memory: '4Gi' }],
    ['cpu only', { cpu: '2' }, { cpu: '2', memory: '2Gi' }],
    ['neither', undefined, { cpu: '1', memory: '2Gi' }],
  ])('resources are whole-field and independent: %s override', (_label, resources, expected) => {
    const objects = [...guideMenu(), config('variant', { baseRef: 'standard', ...(resources ? { resources } : {}) })];
    expect(resolved(objects, 'variant').resources).toEqual(expected);
  });

  it('imageRef comes from the nearest config that sets it', () => {
    const objects = [
      image('a'),
      image('b', { tag: '9.1.0', version: '9.1.0' }),
      config('root', { imageRef: 'a' }),
      config('mid', { baseRef: 'root', imageRef: 'b' }),
      config('leaf', { baseRef: 'mid' }),
    ];
    const leaf = resolved(objects, 'leaf');
    expect(leaf.imageRef).toBe('b');
    expect(leaf.imageFrom).toBe('mid');
    expect(leaf.image).toBe('valkey/valkey:9.1.0');
    expect(leaf.imageVersion).toBe('9.1.0');
  });

  it('the image string is repository:tag verbatim', () => {
    const objects = [
      image('odd', { repository: 'registry.example.com:5000/team/valkey', tag: '9.0.1-bookworm', version: '9.0.1' }),
      config('c', { imageRef: 'odd' }),
    ];
    expect(resolved(objects, 'c').image).toBe('registry.example.com:5000/team/valkey:9.0.1-bookworm');
  });

  it('valkey merges per key across three levels, child wins', () => {
    const objects = [
      image('i'),
      config('a', { imageRef: 'i', valkey: { x: '1', y: '1', z: '1' } }),
      config('b', { baseRef: 'a', valkey: { y: '2' } }),
      config('c', { baseRef: 'b', valkey: { z: '3' } }),
    ];
    expect(resolved(objects, 'c').valkey).toEqual({ x: '1', y: '2', z: '3' });
  });

  it('acl replaces: the first config that sets it supplies the whole list', () => {
    const objects = [
      image('i'),
      role('reader'),
      config('base', { imageRef: 'i', acl: [binding('platform-a'), binding('platform-b')] }),
      config('inherits', { baseRef: 'base' }),
      config('replaces', { baseRef: 'base', acl: [binding('own')] }),
      config('empties', { baseRef: 'base', acl: [] }),
      config('below-empty', { baseRef: 'empties' }),
    ];
    const r = resolve(objects);
    expect(r.configs.get('inherits')!.acl.map((b) => b.username)).toEqual(['platform-a', 'platform-b']);
    expect(r.configs.get('inherits')!.aclFrom).toBe('base');
    expect(r.configs.get('replaces')!.acl.map((b) => b.username)).toEqual(['own']);
    expect(r.configs.get('empties')!.acl).toEqual([]);
    expect(r.configs.get('empties')!.aclFrom).toBe('empties');
    expect(r.configs.get('below-empty')!.acl).toEqual([]);
  });

  it(`a chain of exactly ${MAX_CHAIN_LENGTH} configs resolves`, () => {
    expect(resolved(chain(MAX_CHAIN_LENGTH), 'c1').chain).toHaveLength(MAX_CHAIN_LENGTH);
  });

  it('the 11th config fails, showing the chain walked; shorter chains inside it still resolve', () => {
    const r = resolve(chain(11));
    expect(r.configs.has('c1')).toBe(false);
    expect(r.configs.has('c2')).toBe(true);
    expect(r.problems.filter((p) => p.severity === 'error').map((p) => p.message)).toEqual([
      'ValkeyConfig c1: spec.baseRef: the chain c1 → c2 → c3 → c4 → c5 → c6 → c7 → c8 → c9 → c10 → c11 is longer than the 10 configs allowed (this config counts as one); flatten the menu so every chain has at most 10 configs',
    ]);
  });

  it('a cluster on a too-long chain says why it cannot be resolved', () => {
    expect(errors([...chain(12), cluster('c', { configRef: 'c1' })])).toContainEqual(
      expect.stringContaining(
        'ValkeyCluster team-a/c: spec.configRef: ValkeyConfig "c1" cannot be resolved, caused by ValkeyConfig c2 (spec.baseRef): its base cannot be resolved: its baseRef chain c2 → c3',
      ),
    );
  });

  it('self-reference is a cycle', () => {
    expect(errors([image('i'), config('me', { imageRef: 'i', baseRef: 'me' })])).toEqual([
      'ValkeyConfig me: spec.baseRef: the chain is a cycle: me → me; one config in it must have no baseRef',
    ]);
  });

  it('a two-config cycle fails both, and whatever derives from it', () => {
    const objects = [
      image('i'),
      config('a', { imageRef: 'i', baseRef: 'b' }),
      config('b', { baseRef: 'a' }),
      config('child', { baseRef: 'a' }),
      cluster('x', { configRef: 'child' }),
    ];
    expect(errors(objects)).toEqual([
      'ValkeyConfig a: spec.baseRef: the chain is a cycle: a → b → a; one config in it must have no baseRef',
      'ValkeyConfig b: spec.baseRef: the chain is a cycle: b → a → b; one config in it must have no baseRef',
      'ValkeyCluster team-a/x: spec.configRef: ValkeyConfig "child" cannot be resolved, caused by ValkeyConfig a (spec.baseRef): its base cannot be resolved: its baseRef chain is a cycle: a → b → a (chain walked: child → a → b → a)',
    ]);
  });

  it('a missing baseRef target fails with the chain and a suggestion', () => {
    expect(errors([...guideMenu(), config('xl', { baseRef: 'larg' })])).toEqual([
      'ValkeyConfig xl: spec.baseRef: ValkeyConfig "larg" does not exist (chain walked: xl → larg); create it or point baseRef at an existing config (did you mean "large"?)',
    ]);
  });

  it('no imageRef anywhere in the chain fails the clusters that use it', () => {
    const objects = [config('base', { valkey: { a: 'b' } }), config('leaf', { baseRef: 'base' }), cluster('x', { configRef: 'leaf' })];
    expect(errors(objects)).toEqual([
      'ValkeyCluster team-a/x: spec.configRef: ValkeyConfig "leaf" cannot be resolved: no config in its chain (leaf → base) sets spec.imageRef; the platform team must set one',
    ]);
  });

  it('a missing ValkeyImage names every config and cluster that depends on it', () => {
    const objects = [
      config('standard', { imageRef: 'valkey-9-1' }),
      config('large', { baseRef: 'standard' }),
      config('xl', { baseRef: 'large' }),
      cluster('a', { configRef: 'large' }),
      cluster('b', { configRef: 'xl' }, 'team-b'),
      image('valkey-9-0'),
    ];
    const messages = errors(objects);
    expect(messages[0]).toBe(
      'ValkeyConfig standard: spec.imageRef: ValkeyImage "valkey-9-1" does not exist, so it is not on the allowlist. ValkeyConfigs that depend on it: large, standard, xl; ValkeyClusters that depend on it: team-a/a, team-b/b. Register the image with a ValkeyImage named "valkey-9-1" or point imageRef at an allowlisted one (did you mean "valkey-9-0"?)',
    );
    expect(messages).toHaveLength(3);
  });

  it('memoizes: every config is merged once, so a wide menu resolves in linear time', () => {
    const configs = new Map<string, ReturnType<typeof config>>();
    configs.set('root', config('root', { imageRef: 'i' }));
    for (let i = 0; i < 2000; i++) configs.set(`c${i}`, config(`c${i}`, { baseRef: i % 9 === 0 ? 'root' : `c${i - 1}` }));
    const merged: string[] = [];
    const results = mergeAllChains(configs as never, (name) => merged.push(name));
    expect(results.size).toBe(2001);
    expect(merged).toHaveLength(2001);
    expect(new Set(merged).size).toBe(2001);
    for (const r of results.values()) expect(r.ok).toBe(true);
  });

  it('is deterministic whatever the input order', () => {
    const objects = [
      ...guideMenu(),
      role('reader'),
      cluster('x', { configRef: 'large', acl: [binding('alice')] }),
      cluster('y', {}, 'b'),
      config('bad', { baseRef: 'nope' }),
    ];
    const a = resolve(objects);
    const b = resolve([...objects].reverse());
    expect(JSON.stringify(b.problems)).toEqual(JSON.stringify(a.problems));
    expect(b.clusters.map((c) => c.cluster.metadata.name)).toEqual(a.clusters.map((c) => c.cluster.metadata.name));
  });
});
