// canonicalJson is what the restart hash digests: its text must be exactly JSON.stringify's for a
// copy of the value with every object's keys sorted, or every cluster would roll on an upgrade.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/api/canonical-json.js';
import { compareStrings } from '../../src/api/order.js';
import { deepFreeze } from '../../src/render/frozen.js';
import { mulberry32 } from '../support/random-resource-list.js';

const reference = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => compareStrings(a, b)))
      : v,
  ) ?? 'undefined';

const KEYS = ['a', 'b', 'B', '_', 'name', 'metadata', '1', '10', '2', '01', '1a', '', ' ', 'é', '😀', '"', '\\', '\n', 'z'];
const SCALARS: unknown[] = [
  '',
  'x',
  '"q"',
  '\\',
  '\n\t',
  '\u2028',
  '\ud800',
  '😀',
  0,
  -0,
  1.5,
  1e21,
  Number.NaN,
  Infinity,
  true,
  false,
  null,
  undefined,
];

function valueFrom(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 3 || r < 0.4) return SCALARS[Math.floor(next() * SCALARS.length)];
  let v: unknown;
  if (r < 0.75) {
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 6); i > 0; i--) o[KEYS[Math.floor(next() * KEYS.length)] as string] = valueFrom(next, depth + 1);
    v = o;
  } else v = Array.from({ length: Math.floor(next() * 4) }, () => valueFrom(next, depth + 1));
  return next() < 0.25 ? deepFreeze(v) : v;
}

describe('canonicalJson', () => {
  it.each(Array.from({ length: 20 }, (_, i) => [i + 1]))('writes what JSON.stringify writes for a sorted copy (seed %i)', (seed) => {
    const next = mulberry32(seed);
    for (let i = 0; i < 200; i++) {
      const value = valueFrom(next, 0);
      expect(canonicalJson(value)).toBe(reference(value));
      expect(canonicalJson(value)).toBe(reference(value)); // again, from the frozen parts' texts
    }
  });

  it('keeps array-index keys first, in numeric order, and sorts the rest', () => {
    expect(canonicalJson({ b: 1, 10: 2, a: 3, 2: 4, '01': 5 })).toBe('{"2":4,"10":2,"01":5,"a":3,"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe('{"a":1,"b":2}');
    expect(canonicalJson({ b: undefined, a: [undefined, () => 0] })).toBe('{"a":[null,null]}');
  });
});
