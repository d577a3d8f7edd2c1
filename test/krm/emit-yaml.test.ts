import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { emitObjectItemTo, emitSequenceItemTo, emitYaml } from '../../src/krm/yaml/emitter.js';
import { fileAnnotations, withFileAnnotations } from '../../src/krm/annotations.js';
import type { KubeObject } from '../../src/render/object.js';
import { ByteSink } from '../../src/krm/yaml/byte-sink.js';

/** A mapping as an item of a block sequence whose `-` is at column `col`. */
function emitSequenceItem(value: Record<string, unknown>, col: number): string {
  const out = new ByteSink(4096);
  emitSequenceItemTo(value, col, out);
  return out.toString();
}
import { readFileSync, readdirSync } from 'node:fs';
import { GO_YAML_HOSTILE, TRICKY } from '../support/yaml-strings.js';

describe('the YAML emitter', () => {
  it.each(TRICKY.map((s) => [s]))('round-trips the string %j as value and key', (s) => {
    const doc = { [s === '' ? 'empty' : s]: s, list: [s, { k: s }], nested: { deeper: [[s]] } };
    expect(parse(emitYaml(doc), { version: '1.2' })).toEqual(doc);
    expect(parse(emitYaml(doc), { version: '1.1' })).toEqual(doc);
  });

  it('round-trips numbers, booleans, null and empty collections', () => {
    const doc = { i: 0, n: -3, f: 1.5, big: 1e21, t: true, f2: false, z: null, e: {}, a: [], mixed: [1, 'a', null, [], {}, [1, [2]]] };
    expect(parse(emitYaml(doc))).toEqual(doc);
  });

  it('round-trips every rendered object of the golden cases', () => {
    const root = 'test/golden/cases';
    for (const c of readdirSync(root)) {
      const expected = parse(readFileSync(`${root}/${c}/_expected.yaml`, 'utf8')) as { items: Record<string, unknown>[] };
      for (const item of expected.items) {
        expect(parse(emitYaml(item))).toEqual(item);
        expect(parse(`items:\n${emitSequenceItem(item, 0)}`)).toEqual({ items: [item] });
        expect(parse(`items:\n${emitSequenceItem(item, 4)}`)).toEqual({ items: [item] });
      }
    }
  });

  it('writes an object with its file annotations byte for byte as it writes the copy that has them', () => {
    const root = 'test/golden/cases';
    const objects: Record<string, unknown>[] = [
      { apiVersion: 'v1', kind: 'X', metadata: { name: 'a', annotations: {} } },
      { apiVersion: 'v1', kind: 'X', metadata: { annotations: { '1': 'digit key first', b: 'c' }, name: 'a' }, data: { k: 'v\n' } },
      { kind: 'X', metadata: Object.freeze({ name: 'frozen', annotations: Object.freeze({ x: 'y' }) }), spec: [1, { a: [] }] },
      { kind: 'X', metadata: { name: 'b', annotations: { 'config.kubernetes.io/index': '9', z: 'already has one' } } },
      { kind: 'X', metadata: { name: 'no annotations' } },
      { kind: 'X', metadata: {} },
    ];
    for (const c of readdirSync(root)) {
      const expected = parse(readFileSync(`${root}/${c}/_expected.yaml`, 'utf8')) as { items: Record<string, unknown>[] };
      // Expected items carry their file annotations already: take them off, to be added again.
      for (const item of expected.items) {
        const annotations = (item.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
        for (const [key] of fileAnnotations('', 0)) if (annotations) delete annotations[key];
        objects.push(item);
      }
    }
    let fast = 0;
    for (const object of objects)
      for (const col of [0, 2]) {
        const direct = new ByteSink(4096);
        const copy = new ByteSink(4096);
        if (emitObjectItemTo(object, col, direct, fileAnnotations('rendered/ns/c.yaml', 3))) fast++;
        else emitSequenceItemTo(withFileAnnotations(object as unknown as KubeObject, 'rendered/ns/c.yaml', 3), col, direct);
        emitSequenceItemTo(withFileAnnotations(object as unknown as KubeObject, 'rendered/ns/c.yaml', 3), col, copy);
        expect(direct.toString()).toBe(copy.toString());
      }
    expect(fast).toBeGreaterThan(objects.length); // most objects take the direct way
  });

  it('writes multi-line text as a literal block, and kubectl-style compact lists', () => {
    expect(emitYaml({ data: { 'valkey.conf': 'a 1\n\nb 2\n' }, args: ['x', 'z'] })).toBe(
      'data:\n  valkey.conf: |\n    a 1\n\n    b 2\nargs:\n- x\n- z\n',
    );
  });
});

/** What go-yaml rejects or folds in the emitted text (the integration test runs go-yaml itself). */
function goYamlTrouble(text: string): string | undefined {
  const raw = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/.exec(text);
  if (raw) return `raw U+${(raw[0].codePointAt(0) as number).toString(16).padStart(4, '0')}`;
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++)
    if (/(?:^|[:-] )\|-?$/.test(lines[i] as string) && /^ *\t/.test(lines[i + 1] as string))
      return `a literal block whose first line starts with a tab: ${JSON.stringify(lines[i + 1])}`;
  return undefined;
}

describe('the YAML emitter, on characters Go YAML readers fold or reject', () => {
  it.each(GO_YAML_HOSTILE.map(([name, s]) => [name, s]))('%s: escaped, and read back exactly', (_name, s) => {
    const doc = { [s]: s, list: [s, { [s]: s }], nested: { deeper: [[s]] } };
    for (const text of [emitYaml(doc), `items:\n${emitSequenceItem({ [s]: s, k: [s] }, 2)}`]) {
      expect(goYamlTrouble(text), text).toBeUndefined();
      expect(parse(text, { version: '1.2' })).toEqual(text.startsWith('items:') ? { items: [{ [s]: s, k: [s] }] } : doc);
      expect(parse(text, { version: '1.1' })).toEqual(text.startsWith('items:') ? { items: [{ [s]: s, k: [s] }] } : doc);
    }
  });

  it('writes a lone surrogate, which has no UTF-8 form, as U+FFFD', () => {
    expect(emitYaml({ a: 'x\ud800y', b: 'ok \ud83d\ude00' })).toBe('a: "x\ufffdy"\nb: "ok \ud83d\ude00"\n');
    expect(emitYaml({ a: 'x\udc00\ny\n' })).toBe('a: "x\ufffd\\ny\\n"\n');
  });
});

describe('the YAML emitter, on numbers', () => {
  it('writes NaN, the infinities and -0 as YAML reads them back', () => {
    const doc = { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, ninf: Number.NEGATIVE_INFINITY, nzero: -0 };
    expect(emitYaml(doc)).toBe('nan: .nan\ninf: .inf\nninf: -.inf\nnzero: -0.0\n');
    expect(parse(emitYaml(doc), { version: '1.1' })).toEqual(doc);
  });
});
