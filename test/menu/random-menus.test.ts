// Whole random menus, thrown at the function: dangling and cyclic references at every level
// (configRef, baseRef, imageRef, roleRef in cluster and config bindings), empty and huge lists,
// fields absent, wrong-typed or hostile. Whatever comes in, the function answers with results:
// it never throws (the CLI would print "internal error"), render and validate agree, and what it
// renders it accepts again as its own earlier output.
//
// The generator is a seeded PRNG (mulberry32 from random-resource-list.ts) rather than fast-check:
// the menu shape is project-specific either way, a failing seed reproduces with one number, and
// no dependency is added for it.
import { describe, expect, it } from 'vitest';
import { runFunction, type InputItem } from '../../src/krm/run-function.js';
import { API, binding, cluster, guideMenu, HASH_A, renderConfigObject } from '../support/objects.js';
import { mulberry32 } from '../support/random-resource-list.js';

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
/** How hostile this menu is: 1 for most seeds, near 0 for some, so that many menus also render. */
let hostility = 1;
const chance = (r: Rand, p: number) => r() < p;
const bad = (r: Rand, p: number) => r() < p * hostility;

const GOOD_NAMES = ['a', 'b', 'std'];
const NAMES = [...GOOD_NAMES, 'missing', 'Bad Name', '', 'x'.repeat(300)];
const name = (r: Rand) => (bad(r, 0.5) ? pick(r, NAMES) : pick(r, GOOD_NAMES));
/** A value of the wrong type, or a hostile one, for any field. */
const WRONG = [null, 7, -1, 1.5, true, 'str', [], {}, [null], { spec: 1 }, '\u0000', 'a\nb', '__proto__'];

function maybe<T>(r: Rand, value: () => T): T | unknown {
  if (bad(r, 0.08)) return undefined;
  if (bad(r, 0.06)) return pick(r, WRONG);
  return value();
}

function list<T>(r: Rand, item: () => T, max = 3): T[] | unknown {
  if (bad(r, 0.05)) return pick(r, WRONG);
  const n = bad(r, 0.03) ? 300 : bad(r, 0.15) ? 0 : 1 + Math.floor(r() * max);
  return Array.from({ length: n }, item);
}

const randomBinding = (r: Rand) => ({
  username: maybe(r, () =>
    bad(r, 0.3) ? pick(r, ['default', 'valkey-krm-controller', 'bad user', 'a\u0000']) : pick(r, ['app', 'reader']),
  ),
  passwordHashes: list(r, () => (bad(r, 0.1) ? 'nothex' : HASH_A)),
  permissions: list(r, () => ({
    roleRef: maybe(r, () => name(r)),
    keys: list(r, () => ({
      pattern: maybe(r, () => (bad(r, 0.3) ? pick(r, ['a)', 'a\u0000b', 'x\u001b[2J']) : pick(r, ['k:*', '*']))),
      access: maybe(r, () => 'readwrite'),
    })),
    ...(chance(r, 0.3) ? { channels: list(r, () => (bad(r, 0.3) ? pick(r, ['x y', 'c\u0000']) : 'ch:*')) } : {}),
  })),
});

function menu(r: Rand): unknown[] {
  const out: unknown[] = [];
  const meta = (namespaced: boolean, i: number) =>
    maybe(r, () => ({ name: bad(r, 0.5) ? name(r) : (GOOD_NAMES[i - 1] as string), ...(namespaced ? { namespace: 'team-a' } : {}) }));
  for (let i = Math.floor(r() * 3); i > 0; i--)
    out.push({
      apiVersion: API,
      kind: 'ValkeyImage',
      metadata: meta(false, i),
      spec: maybe(r, () => ({
        repository: maybe(r, () => 'valkey/valkey'),
        tag: maybe(r, () => pick(r, ['9.0.1', '9.1.2'])),
        version: maybe(r, () => (bad(r, 0.3) ? pick(r, ['8.0.1', 'x']) : pick(r, ['9.0.1', '9.1.2']))),
      })),
    });
  for (let i = Math.floor(r() * 4); i > 0; i--)
    out.push({
      apiVersion: API,
      kind: 'ValkeyConfig',
      metadata: meta(false, i),
      spec: maybe(r, () => ({
        ...(chance(r, 0.5) ? { baseRef: bad(r, 0.5) ? name(r) : pick(r, GOOD_NAMES.slice(i)) } : {}),
        ...(chance(r, 0.7) ? { imageRef: name(r) } : {}),
        ...(chance(r, 0.4) ? { acl: list(r, () => randomBinding(r)) } : {}),
        ...(chance(r, 0.4) ? { valkey: maybe(r, () => ({ maxmemory: bad(r, 0.3) ? pick(r, ['', 'x\u0000', 'a\u0007b']) : '1gb' })) } : {}),
        ...(chance(r, 0.3)
          ? { resources: maybe(r, () => ({ cpu: bad(r, 0.3) ? pick(r, ['x', 0]) : '1', memory: pick(r, ['1Gi', '1']) })) }
          : {}),
      })),
    });
  for (let i = Math.floor(r() * 3); i > 0; i--)
    out.push({
      apiVersion: API,
      kind: 'ValkeyRole',
      metadata: meta(false, i),
      spec: maybe(r, () => ({
        categories: list(r, () => ({
          name: bad(r, 0.2) ? 'nope' : pick(r, ['read', 'write']),
          access: maybe(r, () => pick(r, ['allow', 'deny'])),
        })),
      })),
    });
  for (let i = Math.floor(r() * 4); i > 0; i--)
    out.push({
      apiVersion: API,
      kind: 'ValkeyCluster',
      metadata: meta(true, i),
      spec: maybe(r, () => ({
        configRef: maybe(r, () => name(r)),
        shards: maybe(r, () => (bad(r, 0.2) ? pick(r, [0, 1001]) : pick(r, [1, 2, 3]))),
        replicasPerShard: maybe(r, () => (bad(r, 0.2) ? 11 : pick(r, [0, 1, 2]))),
        ...(chance(r, 0.4) ? { acl: list(r, () => randomBinding(r)) } : {}),
        ...(chance(r, 0.2) ? { podAnnotations: maybe(r, () => ({ 'example.com/x': bad(r, 0.3) ? 'y'.repeat(300_000) : '1' })) } : {}),
      })),
    });
  return out;
}

const asItems = (values: readonly unknown[]): InputItem[] => values.map((value) => ({ text: '', value }));

describe('random whole menus', () => {
  it('never throw, render and validate agree, and a render is accepted again as earlier output', () => {
    let rendered = 0;
    for (let seed = 1; seed <= 600; seed++) {
      const r = mulberry32(seed);
      hostility = seed % 3 === 0 ? 0.02 : 1;
      const values = menu(r);
      if (hostility < 1 || chance(r, 0.8)) values.push(renderConfigObject());
      const run = (validateOnly: boolean, items = asItems(values)) => {
        try {
          return runFunction(items, undefined, { validateOnly, dropLocalConfig: true });
        } catch (e) {
          throw new Error(`seed ${seed}: the function threw ${(e as Error).stack}\n${JSON.stringify(values).slice(0, 2000)}`);
        }
      };
      const render = run(false);
      const validate = run(true);
      const errors = (o: typeof render) => o.problems.filter((p) => p.severity === 'error').map((p) => p.message);
      expect(errors(validate), `seed ${seed}`).toEqual(errors(render));
      for (const p of render.problems) expect(p.message, `seed ${seed}`).not.toMatch(/internal error|undefined|\[object Object\]/);
      if (!render.ok) continue;
      rendered++;
      // Rendered output fed back in (as kpt does on the next run) is replaced, not refused.
      const again = run(false, [...asItems(values), ...render.generated.map((g) => ({ text: '', value: g.object }))]);
      expect(errors(again), `seed ${seed}`).toEqual([]);
      expect(again.generated.map((g) => g.object)).toEqual(render.generated.map((g) => g.object));
    }
    // The generator must reach the renderer too, or the agreement above says little.
    expect(rendered).toBeGreaterThan(20);
  });
});

describe('dangling references at the config level', () => {
  it('a ValkeyConfig binding naming a missing ValkeyRole is an error on the config and on its clusters, with a render config', () => {
    const menu = guideMenu();
    (menu[1] as { spec: Record<string, unknown> }).spec.acl = [binding('app', 'missing')];
    const out = runFunction(asItems([...menu, renderConfigObject(), cluster('c1'), cluster('c2', { configRef: 'large' })]), undefined, {
      validateOnly: false,
      dropLocalConfig: true,
    });
    expect(out.ok).toBe(false);
    expect(out.problems.map((p) => p.message)).toEqual([
      'ValkeyConfig standard: spec.acl[0].permissions[0].roleRef: ValkeyRole "missing" does not exist; create it or use an existing role (no ValkeyRole exists yet)',
      'ValkeyCluster team-a/c1: spec.configRef: cannot be rendered, caused by the ACL bindings of ValkeyConfig standard (spec.acl), which are invalid; fix the errors reported on standard first',
      'ValkeyCluster team-a/c2: spec.configRef: cannot be rendered, caused by the ACL bindings of ValkeyConfig standard (spec.acl), which are invalid; fix the errors reported on standard first',
    ]);
  });
});
