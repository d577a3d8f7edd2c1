// The emitter's caches (lines, literal blocks, the bytes of frozen parts) must never change a
// byte: every rendered object of the golden cases, the example packages and a generated fleet,
// and generated documents of tricky scalars, written by src/krm/yaml/emitter.ts and by the plain
// reference emitter (test/support/reference-emitter.ts) must be the same text, at any column,
// frozen or not, on the first write and on the cached ones.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fileAnnotations, withFileAnnotations } from '../../src/krm/annotations.js';
import { parseResourceList } from '../../src/krm/read-input.js';
import { runFunction, type GeneratedObject } from '../../src/krm/run-function.js';
import { ByteSink } from '../../src/krm/yaml/byte-sink.js';
import { emitObjectItemTo, emitSequenceItemTo, emitYaml } from '../../src/krm/yaml/emitter.js';
import { deepFreeze } from '../../src/render/frozen.js';
import type { KubeObject } from '../../src/render/object.js';
import { clusterObjects, menuObjects, resourceListText } from '../../bench/generate.js';
import { examplePackages } from '../support/paths.js';
import { goldenResourceList } from '../support/render.js';
import { mulberry32 } from '../support/random-resource-list.js';
import { referenceSequenceItem, referenceYaml } from '../support/reference-emitter.js';
import { GO_YAML_HOSTILE, TRICKY } from '../support/yaml-strings.js';
import { packageDocs, resourceList } from '../support/yaml-docs.js';

const GOLDEN = 'test/golden/cases';

/** What render-valkey generates for a ResourceList, as the objects the emitter is handed. */
function generated(input: string): GeneratedObject[] {
  const { list } = parseResourceList(input);
  if (!list) throw new Error('unreadable input');
  const out: GeneratedObject[] = [];
  runFunction(list.items, list.functionConfig, { validateOnly: false, dropLocalConfig: false, emit: (g) => out.push(g) });
  return out;
}

const sources: [string, () => GeneratedObject[]][] = [
  ...readdirSync(GOLDEN)
    .sort()
    .map((name): [string, () => GeneratedObject[]] => [`golden ${name}`, () => generated(goldenResourceList(name))]),
  ...examplePackages().map((name): [string, () => GeneratedObject[]] => [
    `kptfile-examples/${name}`,
    () => generated(resourceList(packageDocs(name).map((d) => d.text))),
  ]),
  ['a generated fleet of 30 clusters', () => generated(resourceListText([...menuObjects(), ...clusterObjects(30)]))],
];

function direct(g: GeneratedObject, col: number): string {
  const sink = new ByteSink(4096);
  if (!emitObjectItemTo(g.object, col, sink, fileAnnotations(g.path, g.index)))
    emitSequenceItemTo(withFileAnnotations(g.object, g.path, g.index), col, sink);
  return sink.toString();
}

describe('the emitter writes the reference text', () => {
  it.each(sources)('for every object rendered from %s, at any column, written once or again', (name, make) => {
    const objects = make();
    // A golden case that renders nothing is one whose expected output holds an error.
    if (name.startsWith('golden ')) {
      if (objects.length === 0) expect(readFileSync(join(GOLDEN, name.slice(7), '_expected.yaml'), 'utf8')).toMatch(/severity: error/);
    } else expect(objects.length).toBeGreaterThan(0);
    for (const g of objects)
      for (const col of [0, 2, 4]) {
        const expected = referenceSequenceItem(withFileAnnotations(g.object, g.path, g.index), col);
        // Twice: the second time from the caches the first one filled.
        expect(direct(g, col)).toBe(expected);
        expect(direct(g, col)).toBe(expected);
      }
  });

  it('for every rendered object as a whole document, and frozen', () => {
    let n = 0;
    for (const [, make] of sources)
      for (const g of make()) {
        n++;
        const object = withFileAnnotations(g.object, g.path, g.index);
        expect(emitYaml(object)).toBe(referenceYaml(object));
        const frozen = deepFreeze(structuredClone(object));
        for (const col of [2, 0, 2]) {
          const sink = new ByteSink(4096);
          emitSequenceItemTo({ x: frozen, y: [frozen] }, col, sink);
          expect(sink.toString()).toBe(referenceSequenceItem({ x: frozen, y: [frozen] }, col));
        }
      }
    expect(n).toBeGreaterThan(500);
  });
});

// Pieces that decide how a scalar is written: things a reader takes for numbers, booleans or null;
// indicators; spaces where they matter; line breaks (literal blocks, chomping, empty lines);
// characters go-yaml rejects; non-ASCII; lone surrogates; keys past the implicit-key limit.
const PIECES = [
  ...TRICKY,
  ...GO_YAML_HOSTILE.map(([, s]) => s),
  '',
  ' ',
  '  ',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  ':',
  ': ',
  ' #',
  '#',
  '"',
  "'",
  '\\',
  '-',
  '- ',
  '? ',
  '|',
  '>',
  '---',
  '...',
  'a',
  'name',
  'cache-0',
  '$(POD_NAME)',
  '0',
  '1.5',
  '0o7',
  '1_000',
  'é',
  '日本',
  '😀',
  '\u2028',
  '\ufeff',
  '\u0085',
  '\ud800',
  '\udc00',
  'x'.repeat(500),
  'word '.repeat(30),
];

function scalarFrom(next: () => number): string {
  let s = '';
  const n = Math.floor(next() * 4);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(next() * PIECES.length)];
  return s;
}

function valueFrom(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 3 || r < 0.45) {
    const k = next();
    if (k < 0.75) return scalarFrom(next);
    if (k < 0.8) return [0, -0, 1.5, -3, 1e21, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53][Math.floor(next() * 8)];
    if (k < 0.9) return next() < 0.5;
    return null;
  }
  let v: unknown;
  if (r < 0.7) {
    const o: Record<string, unknown> = {};
    const n = Math.floor(next() * 5);
    for (let i = 0; i < n; i++) o[scalarFrom(next)] = valueFrom(next, depth + 1);
    v = o;
  } else v = Array.from({ length: Math.floor(next() * 4) }, () => valueFrom(next, depth + 1));
  return next() < 0.2 ? deepFreeze(v) : v;
}

/** Printable ASCII and finite numbers (not -0) throughout. */
function readable(v: unknown): boolean {
  if (typeof v === 'string') return /^[\x20-\x7e\n]*$/.test(v);
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (v === null || typeof v === 'boolean') return true;
  if (Array.isArray(v)) return v.every(readable);
  return Object.entries(v as object).every(([k, x]) => readable(k) && readable(x));
}

describe('the emitter writes the reference text for generated documents of tricky scalars', () => {
  it.each(Array.from({ length: 40 }, (_, i) => [i + 1]))('seed %i', (seed) => {
    const next = mulberry32(seed);
    for (let doc = 0; doc < 50; doc++) {
      const value = valueFrom(next, 0);
      const map = { a: value, [scalarFrom(next)]: [value, { b: value }] };
      expect(emitYaml(value)).toBe(referenceYaml(value));
      expect(emitYaml(map)).toBe(referenceYaml(map));
      for (const col of [0, 2, 6]) {
        const sink = new ByteSink(256);
        emitSequenceItemTo(map, col, sink);
        expect(sink.toString()).toBe(referenceSequenceItem(map, col));
      }
      const object = {
        apiVersion: 'v1',
        kind: 'X',
        metadata: { name: scalarFrom(next), annotations: { [scalarFrom(next)]: scalarFrom(next) } },
        spec: value,
      };
      const sink = new ByteSink(256);
      const extra = fileAnnotations(scalarFrom(next), doc);
      if (emitObjectItemTo(object, 2, sink, extra))
        expect(sink.toString()).toBe(referenceSequenceItem(withFileAnnotations(object as KubeObject, extra[0]?.[1] as string, doc), 2));
      // And the `yaml` library reads the value back (checked here for printable ASCII; the other
      // characters' round trips are test/krm/emit-yaml.test.ts's).
      if (readable(map)) expect(parse(emitYaml(map), { version: '1.1', uniqueKeys: false })).toEqual(map);
    }
  });
});
