// The fast ResourceList reader must agree with the full `yaml` parser on every input it accepts
// (values, item texts, sequence indentation), and must give up on every input the full parser
// rejects, so the errors still come from the full parser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResourceList } from '../../src/krm/read-input.js';
import { Document, isScalar } from 'yaml';
import { fastParse, resolvePlainScalar } from '../../src/krm/yaml/fast-reader.js';
import { PARSE_OPTIONS } from '../../src/krm/yaml/yaml-package.js';
import { clusterObjects, menuObjects, resourceListText } from '../../bench/generate.js';
import { filesUnder } from '../support/files.js';
import { HEADER } from '../support/yaml-docs.js';
import { mulberry32, ODD_SCALARS, randomResourceList, SCALARS } from '../support/random-resource-list.js';

/** Parses on both paths; returns whether the fast path took the input. */
function agree(text: string): boolean {
  const full = parseResourceList(text, { fast: false });
  const either = parseResourceList(text);
  expect(either).toEqual(full);
  return fastParse(text) !== undefined && full.list !== undefined;
}

const yamlFiles = (dir: string): string[] =>
  filesUnder(dir, { skip: (name) => name === 'node_modules' })
    .filter((file) => /\.ya?ml$/.test(file))
    .map((file) => join(dir, file));

/** A plain scalar's value the way the full parser finds it: the first default tag whose test matches. */
function fullParserValue(source: string): unknown {
  const doc = new Document(null, PARSE_OPTIONS);
  const tags = (
    doc.schema.tags as unknown as Array<{
      default?: unknown;
      test?: RegExp;
      resolve: (s: string, onError: (m: string) => void, o: unknown) => unknown;
    }>
  ).filter((t) => t.default === true && t.test instanceof RegExp);
  const tag = tags.find((t) => t.test?.test(source));
  if (!tag) return source;
  let value = tag.resolve(
    source,
    (m) => {
      throw new Error(m);
    },
    doc.options,
  );
  if (isScalar(value)) value = value.value;
  return typeof value === 'bigint' ? Number(value) : value;
}

describe('plain scalars', () => {
  it('resolve as on the full parser (YAML 1.1 as go-yaml v2 reads it)', () => {
    const r = mulberry32(7);
    const alphabet = '0123456789+-._:eExXbBoOaAfFnNyYtTlLuUsSiI~ ';
    const samples = [
      ...SCALARS,
      ...ODD_SCALARS,
      '',
      '~',
      'Null',
      'nULL',
      'YES',
      'yEs',
      '0b',
      '0x',
      '0o7',
      '-0',
      '+0',
      '-0.0',
      '0_1',
      '1__2',
      '._',
      '.e1',
      '1e',
      '1e-',
      '-.inf',
      '+.INF',
      '.Nan',
    ];
    for (let i = 0; i < 20_000; i++)
      samples.push(Array.from({ length: 1 + Math.floor(r() * 6) }, () => alphabet[Math.floor(r() * alphabet.length)]).join(''));
    for (const s of samples)
      expect(
        Object.is(resolvePlainScalar(s), fullParserValue(s)) || (Number.isNaN(resolvePlainScalar(s)) && Number.isNaN(fullParserValue(s))),
        JSON.stringify(s),
      ).toBe(true);
    expect([
      resolvePlainScalar('0755'),
      resolvePlainScalar('yes'),
      resolvePlainScalar('-0'),
      resolvePlainScalar('12:30'),
      resolvePlainScalar('2024-01-01'),
    ]).toEqual([493, true, 0, '12:30', '2024-01-01']); // go-yaml v2 reads -0 as the integer 0
  });
});

describe('fast ResourceList reader', () => {
  it('takes the ResourceLists kpt writes, and agrees with the full parser', () => {
    const kptStyle = `${HEADER}- # head comment after the dash, as kpt writes it
  apiVersion: v1 # trailing
  kind: ConfigMap
  metadata:
    name: "notes"
    annotations:
      config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'notes/a.yaml'
  data:
    octal: 0755
    flag: yes
    empty: ''
    ratio: 1e3
    list:
    - a
    -   b
    - - nested
- apiVersion: v1
  kind: ConfigMap
  data: {}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
`;
    // `- - nested` is outside the subset: this one goes to the full parser.
    expect(agree(kptStyle)).toBe(false);
    expect(agree(kptStyle.replace('    - - nested\n', ''))).toBe(true);
    expect(agree(resourceListText([...menuObjects(), ...clusterObjects(20)]))).toBe(true);
    const [head, rest] = resourceListText(menuObjects()).split('items:\n') as [string, string];
    const [items, fnConfig] = rest.split(/^(?=functionConfig:)/m) as [string, string];
    const indented = `${head}items:\n${items.replace(/^(?=.)/gm, '  ')}${fnConfig}`;
    expect(agree(indented)).toBe(true);
    expect(parseResourceList(indented).list?.seqIndent).toBe(2);
  });

  it("ends a plain scalar or key at a comment only where a space comes before its '#', as the full parser", () => {
    // Each value and key on its own, with '#' in every position, so the search for the next
    // comment (which runs ahead of the line being read) is tried at each distance.
    const values = ['a#b', 'a-#b', 'a:#b', '#', 'a #b', 'a  # b', 'a\t#b', '"a #b"', "'#'", 'a# #b', 'url://x/#frag', 'x #', 'a:b #c'];
    const keys = ['k#', 'k-#x', '"k #"', 'k'];
    for (const [i, value] of values.entries())
      for (const key of keys) {
        const text = `${HEADER}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c${i}\n  data:\n    ${key}: ${value}\n    after: x #c\n`;
        agree(text);
        agree(text.replace('    after: x #c\n', ''));
      }
    // Most of them are the fast reader's to read.
    expect(values.filter((v) => agree(`${HEADER}- apiVersion: v1\n  kind: ConfigMap\n  data:\n    k: ${v}\n`)).length).toBeGreaterThan(8);
  });

  it('agrees with the full parser on every YAML file in the repository, as items', () => {
    let taken = 0;
    const files = ['kptfile-examples', 'integrations', 'test/golden/cases', 'deploy', 'crds'].flatMap(yamlFiles);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const docs = readFileSync(file, 'utf8')
        .split(/^---[^\n]*\n/m)
        .filter((d) => d.trim() !== '');
      const items = docs.map((d) => `- ${d.trimEnd().replace(/\n/g, '\n  ')}\n`).join('');
      if (agree(`${HEADER}${items}`)) taken++;
    }
    // Most files are plain block YAML; a file with a block scalar or flow collection is not.
    expect(taken).toBeGreaterThan(files.length / 3);
  });

  it('agrees with the full parser on 4,000 generated ResourceLists, including broken ones', () => {
    let taken = 0;
    let rejected = 0;
    for (let seed = 1; seed <= 4000; seed++) {
      const text = randomResourceList(seed);
      try {
        if (agree(text)) taken++;
        if (parseResourceList(text, { fast: false }).errors.length) rejected++;
      } catch (e) {
        throw new Error(`seed ${seed}: ${(e as Error).message}\n--- input ---\n${text}`);
      }
    }
    // Both paths must have been exercised: the generator makes valid and invalid YAML alike.
    expect(taken).toBeGreaterThan(600);
    expect(rejected).toBeGreaterThan(600);
  }, 120_000); // some 20 s alone; on a busy machine it passed the default 30 s

  it("reads a comment at the dash's column between items (render-valkey's file header) as the next item's, like the full parser", () => {
    const text = `${HEADER}- kind: X\n# GENERATED a\n# GENERATED b\n- kind: Z\n`;
    expect(fastParse(text)?.itemTexts).toEqual(['- kind: X\n', '# GENERATED a\n# GENERATED b\n- kind: Z\n']);
    expect(agree(text)).toBe(true);
  });

  it('gives up on what it does not cover', () => {
    for (const body of [
      '  data: {a: 1}',
      '  data:\n    script: >\n      x',
      '  data:\n    script: |+\n      x',
      '  data:\n    script: |2\n        x',
      '  data: [a, {b: 1}]',
      '  data: [a,\n    b]',
      '  data: |\n    x\n\n  more: 1',
      '  data: &a x',
      '  data: !!str 1',
      '  data: "multi\n    line"',
      '  data: plain\n    continued',
      '  data:\n\ta: 1',
      '  a: 1\n  a: 2',
      '  1: x',
      '  <<: {}',
    ]) {
      expect(fastParse(`${HEADER}- kind: X\n${body}\n`), body).toBeUndefined();
    }
    expect(fastParse(`${HEADER}- kind: X\n  data: ok\n`)).toBeDefined();
    expect(fastParse(`${HEADER}- kind: X\n\n- kind: Y\n`)).toBeUndefined(); // blank line between items
    expect(fastParse(`${HEADER}- kind: X\n  # c\n- kind: Y\n`)).toBeUndefined(); // a comment off the dash's column
    expect(fastParse(`${HEADER}- kind: X\n# c\nfunctionConfig: {}\n`)).toBeUndefined(); // after the last item
    expect(fastParse(`${HEADER}- kind: X\r\n`)).toBeUndefined();
    expect(fastParse(`---\n${HEADER}- kind: X\n`)).toBeUndefined();
  });

  it('full parser: an item ending in an empty value keeps to its own lines', () => {
    const text = `${HEADER}  - kind: X\n    empty:\n  - kind: Y\n`;
    const items = parseResourceList(text, { fast: false }).list?.items.map((i) => i.text);
    expect(items).toEqual(['  - kind: X\n    empty:\n', '  - kind: Y\n']);
  });

  it('full parser: a value that cannot be built is an error, not a crash', () => {
    const out = parseResourceList(`${HEADER}- kind: X\n  <<: true\n`);
    expect(out.list).toBeUndefined();
    expect(out.errors[0]?.message).toMatch(/^input: invalid YAML: Merge sources must be maps/);
  });
});
