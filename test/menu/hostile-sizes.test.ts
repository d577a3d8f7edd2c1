import { describe, expect, it } from 'vitest';
import { parseMenu } from '../../src/menu/parse.js';
import { resolveMenu } from '../../src/menu/resolve-menu.js';
import { mergeAllChains } from '../../src/menu/resolve.js';
import { NameIndex, closestName } from '../../src/menu/suggest.js';
import { cluster, config, image } from '../support/objects.js';

const pad = (i: number) => String(i).padStart(6, '0');
const resolveAll = (objects: unknown[]) => {
  const { menu, problems } = parseMenu(objects);
  return [...problems, ...resolveMenu(menu).problems];
};

describe('inputs that used to crash the menu checks or make them crawl', () => {
  it('a baseRef chain of 100,000 configs fails with a clean result, one short message per failure', () => {
    const n = 100_000;
    const objects = [
      image('img'),
      ...Array.from({ length: n }, (_, i) => config(`c${pad(i)}`, i === n - 1 ? { imageRef: 'img' } : { baseRef: `c${pad(i + 1)}` })),
      cluster('cache', { configRef: `c${pad(0)}` }),
    ];
    const problems = resolveAll(objects);
    const onCluster = problems.find((p) => p.object?.kind === 'ValkeyCluster');
    expect(onCluster?.message).toMatch(
      /^ValkeyCluster team-a\/cache: spec.configRef: ValkeyConfig "c000000" cannot be resolved, caused by ValkeyConfig c\S+ \(spec.baseRef\): its base cannot be resolved: its baseRef chain c\S+ → .* is longer than the 10 configs allowed \(chain walked: c000000 → /,
    );
    expect(onCluster?.message.match(/its base cannot be resolved/g)).toHaveLength(1);
  });

  it('every member of a cycle of M configs holds a bounded copy of it, not all M names', () => {
    const m = 5000;
    const configs = new Map(Array.from({ length: m }, (_, i) => [`c${pad(i)}`, config(`c${pad(i)}`, { baseRef: `c${pad((i + 1) % m)}` })]));
    const chains = mergeAllChains(configs as never);
    let held = 0;
    for (const r of chains.values()) if (!r.ok && r.failure.reason === 'cycle') held += r.failure.cycle.length + r.failure.chain.length;
    expect(held).toBeLessThanOrEqual(m * 30);
    const first = chains.get(`c${pad(1)}`);
    expect(first?.ok === false && first.failure.reason === 'cycle' && first.failure.cycle.slice(0, 3)).toEqual([
      `c${pad(1)}`,
      `c${pad(2)}`,
      `c${pad(3)}`,
    ]);
  });

  it('a short cycle still reads round to its start', () => {
    const configs = new Map([
      ['a', config('a', { baseRef: 'b' })],
      ['b', config('b', { baseRef: 'c' })],
      ['c', config('c', { baseRef: 'a' })],
    ]);
    const b = mergeAllChains(configs as never).get('b');
    expect(b?.ok === false && b.failure.reason === 'cycle' && b.failure.cycle).toEqual(['b', 'c', 'a', 'b']);
  });

  it('a missing image that many configs name: each message lists at most 10 configs and 10 clusters', () => {
    const n = 300;
    const objects = [
      ...Array.from({ length: n }, (_, i) => config(`c${pad(i)}`, { imageRef: 'nope' })),
      ...Array.from({ length: n }, (_, i) => cluster(`k${pad(i)}`, { configRef: `c${pad(i)}` })),
    ];
    const messages = resolveAll(objects)
      .filter((p) => p.message.includes('ValkeyImage "nope" does not exist'))
      .map((p) => p.message);
    expect(messages).toHaveLength(n);
    expect(messages[0]).toContain(`c${pad(9)} and ${n - 10} more;`);
    expect(messages[0]).toContain(`team-a/k${pad(9)} and ${n - 10} more.`);
    for (const m of messages) expect(m.length).toBeLessThan(1000);
  });

  it('thousands of dangling references against thousands of names: each compares a bounded number of names', () => {
    const n = 3000;
    const objects = [
      image('img'),
      ...Array.from({ length: n }, (_, i) => config(`c${pad(i)}`, { imageRef: 'img' })),
      ...Array.from({ length: n }, (_, i) => cluster(`k${pad(i)}`, { configRef: `x${pad(i)}y` })),
    ];
    const problems = resolveAll(objects);
    const dangling = problems.filter((p) => p.message.includes('does not exist'));
    expect(dangling).toHaveLength(n);
    // Unbounded, this is 9 million edit distances (tens of seconds). The bound is visible in the
    // answers: every name has the same length, so only the first MAX_CANDIDATES alphabetically are
    // compared. "x000010y" is two edits from "c000010", inside that window, and gets it; "x000100y" is
    // two edits from "c000100", outside it, and gets the list of names instead (an unbounded search would
    // suggest "c000100"). The time this takes is in the benchmarks, not here.
    const about = (name: string) => dangling.find((p) => p.message.includes(`"${name}"`))?.message ?? '';
    expect(about(`x${pad(10)}y`)).toContain(`did you mean "c${pad(10)}"?`);
    expect(about(`x${pad(100)}y`)).not.toContain('did you mean');
    expect(about(`x${pad(100)}y`)).toContain('available: ');
  });

  it('the index still finds the nearest name, nearest length first, ties alphabetical', () => {
    const index = new NameIndex(['large', 'larger', 'small', 'standard', 'lrage']);
    expect(index.suggest('larg', 'ValkeyConfig')).toBe('did you mean "large"?');
    expect(index.suggest('standrad', 'ValkeyConfig')).toBe('did you mean "standard"?');
    expect(index.suggest('zzzzzzzzzzzzz', 'ValkeyConfig')).toBe('available: "large", "larger", "lrage", "small", "standard"');
    expect(new NameIndex([]).suggest('x', 'ValkeyRole')).toBe('no ValkeyRole exists yet');
    expect(closestName('allkeys-lur', ['allkeys-lru', 'allkeys-lfu'], 1)).toBe('allkeys-lru');
    expect(index.suggest(`${'a'.repeat(70)}`, 'ValkeyConfig')).toMatch(/^available/);
  });
});
