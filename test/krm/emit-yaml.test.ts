import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { emitSequenceItemTo, emitYaml } from '../../src/krm/yaml/emitter.js';
import { ByteSink } from '../../src/krm/yaml/byte-sink.js';

/** A mapping as an item of a block sequence whose `-` is at column `col`. */
function emitSequenceItem(value: Record<string, unknown>, col: number): string {
  const out = new ByteSink(4096);
  emitSequenceItemTo(value, col, out);
  return out.toString();
}
import { readFileSync, readdirSync } from 'node:fs';

const TRICKY = [
  '',
  ' ',
  'a',
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'null',
  '~',
  'true',
  '1',
  '012',
  '0x1F',
  '1e3',
  '.5',
  '-1',
  '+1',
  '.inf',
  '.nan',
  '2021-01-01',
  '12:30',
  'a: b',
  'a:b',
  'a #b',
  'a#b',
  '#x',
  '*x',
  '&x',
  '!x',
  '%x',
  '@x',
  '`x',
  '|x',
  '>x',
  "'x'",
  '"x"',
  '{a}',
  '[a]',
  '- a',
  '-a',
  '--flag',
  '-.inf',
  '-Inf',
  '-1.5',
  '-',
  '--',
  '? x',
  'x ',
  ' x',
  'a  b',
  'tab\there',
  'line\nbreak',
  'ends\n',
  'two\n\n',
  '\nleading',
  ' lead\nx',
  'trail \nx',
  'cr\r\nlf',
  'uni: é ü 中',
  '\u2028',
  'bell\u0007',
  '$(POD_IP)',
  'Prune=false',
  '* -::*',
  '+@read ~x:*',
  'x:',
  'x::y',
  'a,b',
  'C:\\dir',
];

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

  it('writes multi-line text as a literal block, and kubectl-style compact lists', () => {
    expect(emitYaml({ data: { 'valkey.conf': 'a 1\n\nb 2\n' }, args: ['x', 'z'] })).toBe(
      'data:\n  valkey.conf: |\n    a 1\n\n    b 2\nargs:\n- x\n- z\n',
    );
  });
});
