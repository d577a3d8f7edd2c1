// Input built to crash the readers or make them crawl: deep nesting, one mapping with many keys,
// keys named like Object.prototype's members, aliases across items. Each ends in a result.
import { describe, expect, it } from 'vitest';
import { parseDocuments, parseResourceList } from '../../src/krm/read-input.js';
import { fastParse } from '../../src/krm/yaml/fast-reader.js';
import { MAX_NESTING, TOO_DEEP } from '../../src/krm/yaml/nesting.js';
import { HEADER } from '../support/yaml-docs.js';

const JSON_HEAD = '{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [';

/** Both paths give the same result (the fast one may hand over). */
function read(text: string) {
  const full = parseResourceList(text, { fast: false });
  expect(parseResourceList(text)).toEqual(full);
  return full;
}

function blockMappings(depth: number): string {
  let s = `${HEADER}- kind: X\n  v:\n`;
  for (let i = 0; i < depth; i++) s += `${' '.repeat(i + 4)}k:\n`;
  return s;
}

function blockSequences(depth: number): string {
  let s = `${HEADER}- kind: X\n  v:\n`;
  for (let i = 0; i < depth; i++) s += `${' '.repeat(i + 4)}-\n`;
  return s;
}

describe('deep nesting', () => {
  it.each([
    ['block mappings', blockMappings(MAX_NESTING + 10)],
    ['block sequences', blockSequences(MAX_NESTING + 10)],
    ['block sequences, far deeper', blockSequences(5000)],
    ['flow sequences', `${HEADER}- kind: X\n  v: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`],
    ['flow mappings', `${HEADER}- kind: X\n  v: ${'{a: '.repeat(20_000)}1${'}'.repeat(20_000)}\n`],
    ['JSON', `${JSON_HEAD}{"kind": "X", "v": ${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`],
  ])('%s: one clean error, no stack overflow', (_name, text) => {
    expect(() => fastParse(text)).not.toThrow();
    expect(read(text)).toEqual({ errors: [{ message: `input: ${TOO_DEEP}` }] });
  });

  it('reads nesting well within the limit on both paths', () => {
    const text = blockMappings(200);
    expect(fastParse(text)).toBeDefined();
    expect(read(text).errors).toEqual([]);
  });

  it('plain files: one clean error', () => {
    expect(parseDocuments(`v: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`, 'a.yaml')).toEqual({
      docs: [],
      errors: [{ message: `a.yaml: ${TOO_DEEP}` }],
    });
    let deep = 'v:\n';
    for (let i = 0; i < MAX_NESTING + 10; i++) deep += `${' '.repeat(i + 2)}-\n`;
    expect(parseDocuments(deep, 'a.yaml').errors).toEqual([{ message: `a.yaml: ${TOO_DEEP}` }]);
  });
});

describe('one mapping with many keys (the full parser: JSON and CRLF input)', () => {
  const n = 40_000;
  const json = `${JSON_HEAD}{"kind": "X", "data": {${Array.from({ length: n }, (_, i) => `"k${i}": "v"`).join(', ')}}}]}`;
  const crlf = `${HEADER}- kind: X\r\n  data:\r\n${Array.from({ length: n }, (_, i) => `    k${i}: v\r\n`).join('')}`;

  // Quadratic before (21 s for JSON, 34 s for CRLF on 40,000 keys); about a second now.
  it.each([
    ['JSON', json],
    ['CRLF', crlf],
  ])('%s: read in linear time', (_name, text) => {
    const start = performance.now();
    const out = parseResourceList(text);
    expect(performance.now() - start).toBeLessThan(8000);
    const item = out.list?.items[0]?.value as { data: object } | undefined;
    expect(Object.keys(item?.data ?? {})).toHaveLength(n);
  });

  it('still reports every repeated key, with its place', () => {
    expect(read(`${HEADER}- kind: X\n  a: 1\n  b: 2\n  a: 3\n  c: {x: 1, x: 2}\n  "a": 4\n`).errors).toEqual([
      { message: 'input: invalid YAML at line 7, column 3: Map keys must be unique' },
      { message: 'input: invalid YAML at line 8, column 13: Map keys must be unique' },
      { message: 'input: invalid YAML at line 9, column 3: Map keys must be unique' },
    ]);
    expect(read(`${JSON_HEAD}{"kind": "X", "kind": "Y"}]}`).errors).toEqual([
      { message: 'input: invalid YAML at line 1, column 91: Map keys must be unique' },
    ]);
    expect(read(`${HEADER}- kind: X\n  1: a\n  01: b\n  .nan: c\n  .NaN: d\n`).errors).toEqual([
      { message: 'input: invalid YAML at line 6, column 3: Map keys must be unique' },
    ]);
  });
});

describe('keys named like members of Object.prototype', () => {
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
  const spellings = (k: string) => [k, `"${k}"`, `'${k}'`];

  it.each(names.flatMap((k) => spellings(k).map((s) => [s])))('%s is a plain key, in YAML, CRLF and JSON', (spelled) => {
    const key = spelled.replace(/^["']|["']$/g, '');
    const yaml = `${HEADER}- kind: X\n  ${spelled}:\n    polluted: 1\n  data:\n    ${spelled}: 2\n    list:\n    - ${spelled}: 3\n`;
    const json = `${JSON_HEAD}{"kind": "X", "${key}": {"polluted": 1}, "data": {"${key}": 2, "list": [{"${key}": 3}]}}]}`;
    for (const text of [yaml, yaml.replace(/\n/g, '\r\n'), json]) {
      const out = read(text);
      expect(out.errors).toEqual([]);
      const item = out.list?.items[0]?.value as Record<string, Record<string, unknown>>;
      for (const object of [item, item.data, (item.data as { list: object[] }).list[0]])
        expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
      expect(Object.keys(item)).toEqual(['kind', key, 'data']);
      expect(Object.getOwnPropertyDescriptor(item, key)?.value).toEqual({ polluted: 1 });
      expect(Object.getOwnPropertyDescriptor(item.data, key)?.value).toBe(2);
      expect(JSON.parse(JSON.stringify(item))).toEqual(
        JSON.parse(`{"kind": "X", "${key}": {"polluted": 1}, "data": {"${key}": 2, "list": [{"${key}": 3}]}}`),
      );
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  it('the fast path reads constructor and toString itself, and hands __proto__ to the full parser', () => {
    expect(fastParse(`${HEADER}- kind: X\n  constructor: 1\n  toString: 2\n`)).toBeDefined();
    expect(fastParse(`${HEADER}- kind: X\n  "__proto__": 1\n`)).toBeUndefined();
    expect(fastParse(`${HEADER}- kind: X\n  '__proto__': 1\n`)).toBeUndefined();
  });
});

describe('YAML aliases across items', () => {
  it('are refused with the place to fix: each item is passed on as text of its own', () => {
    const text = `${HEADER}- kind: X\n  labels: &shared\n    a: b\n- kind: Y\n  labels: *shared\n`;
    expect(read(text).errors).toEqual([
      {
        message:
          'input: items[1] uses the YAML alias *shared, whose anchor &shared is outside this item; each item is passed on as text of its own, so an alias must point into its own item: repeat the value, or move the anchor into this item',
      },
    ]);
    const fromHeader = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nx: &h 1\nitems:\n- kind: X\n  v: *h\n`;
    expect(read(fromHeader).errors[0]?.message).toMatch(/^input: items\[0\] uses the YAML alias \*h,/);
    // Redefined in the item after its use: the alias still points at the earlier item.
    const redefined = `${HEADER}- kind: X\n  a: &s 1\n- kind: Y\n  b: *s\n  c: &s 2\n`;
    expect(read(redefined).errors[0]?.message).toMatch(/^input: items\[1\] uses the YAML alias \*s,/);
  });

  it('are read within one item', () => {
    const text = `${HEADER}- kind: X\n  labels: &shared\n    a: b\n  selector: *shared\n- kind: Z\n  v: &s 1\n  w: *s\n`;
    const out = read(text);
    expect(out.errors).toEqual([]);
    expect(out.list?.items.map((i) => i.value)).toEqual([
      { kind: 'X', labels: { a: 'b' }, selector: { a: 'b' } },
      { kind: 'Z', v: 1, w: 1 },
    ]);
  });
});
