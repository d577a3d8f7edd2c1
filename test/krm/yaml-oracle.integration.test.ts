// The YAML this project writes and reads, checked against go-yaml itself (scripts/yaml-oracle):
// v2 is how kubectl reads manifests (sigs.k8s.io/yaml), v3 how kpt and kustomize do (kyaml).
//   - everything the emitter writes reads back exactly through both;
//   - the readers (fast and full) give every plain scalar the value go-yaml v2 gives it, and take
//     the syntax edges go-yaml takes.
import { readFileSync, readdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseDocuments, parseResourceList } from '../../src/krm/read-input.js';
import { ByteSink } from '../../src/krm/yaml/byte-sink.js';
import { emitSequenceItemTo, emitYaml } from '../../src/krm/yaml/emitter.js';
import { fastParse, resolvePlainScalar } from '../../src/krm/yaml/fast-reader.js';
import { mulberry32, randomResourceList } from '../support/random-resource-list.js';
import { HEADER } from '../support/yaml-docs.js';
import { type GoRead, goToJs, readWithGo } from '../support/yaml-oracle.js';
import { GO_YAML_HOSTILE, TRICKY } from '../support/yaml-strings.js';

function emitSequenceItem(value: Record<string, unknown>, col: number): string {
  const out = new ByteSink(4096);
  emitSequenceItemTo(value, col, out);
  return out.toString();
}

/** Emits each value as a document and as an item, and expects go-yaml v2 and v3 to read it back exactly. */
function expectGoReadsBack(values: ReadonlyArray<Record<string, unknown>>): void {
  const docs = values.flatMap((v) => [emitYaml(v), `items:\n${emitSequenceItem(v, 0)}`, `items:\n${emitSequenceItem(v, 4)}`]);
  const reads = readWithGo(docs);
  reads.forEach((read, i) => {
    const value = values[Math.floor(i / 3)] as Record<string, unknown>;
    const expected = i % 3 === 0 ? value : { items: [value] };
    for (const version of ['v2', 'v3'] as const) {
      const r = read[version];
      expect(r.error, `${version} on ${JSON.stringify(docs[i])}`).toBeUndefined();
      expect(goToJs(r.value ?? null), `${version} on ${JSON.stringify(docs[i])}`).toEqual(expected);
    }
  });
}

// Characters for random strings: YAML indicators, spaces, line breaks, controls, and everything
// go-yaml rejects or folds when raw.
const ALPHABET = [
  ...'ab yn0.1-:#\'"|>&*!%@`?,[]{}~\\/',
  '\n',
  '\t',
  '\r',
  '\u0000',
  '\u0007',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u0090',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffe',
  '\uffff',
  'é',
  '中',
  '\ud83d\ude00',
];

function randomString(r: () => number): string {
  return Array.from({ length: Math.floor(r() * 12) }, () => ALPHABET[Math.floor(r() * ALPHABET.length)]).join('');
}

// Thousands of documents through the Go oracle and this reader per test: ~10 s on an idle 2-core
// machine, several times that when the rest of the suite shares it.
const ORACLE_TIMEOUT_MS = 120_000;

describe('the YAML emitter, read back by go-yaml v2 and v3', { timeout: ORACLE_TIMEOUT_MS }, () => {
  it('round-trips the tricky strings and every character class go-yaml folds or rejects, as values and keys', () => {
    const strings = [...TRICKY, ...GO_YAML_HOSTILE.map(([, s]) => s)];
    expectGoReadsBack(strings.map((s) => ({ [s === '' ? 'empty' : s]: s, list: [s, { k: s }], nested: { deeper: [[s]] } })));
  });

  it('round-trips numbers, booleans, null and empty collections', () => {
    expectGoReadsBack([
      { i: 0, n: -3, f: 1.5, big: 1e21, small: 1e-7, t: true, f2: false, z: null, e: {}, a: [], mixed: [1, 'a', null, [], {}, [1, [2]]] },
      { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, ninf: Number.NEGATIVE_INFINITY, nzero: -0 },
    ]);
  });

  it('round-trips 3,000 random strings', () => {
    const r = mulberry32(14);
    const values: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 1000; i++) {
      const [a, b, c] = [randomString(r), randomString(r), randomString(r)];
      values.push({ [`k${a}`]: b, list: [c, { [b || 'x']: a }], [`${c}z`]: { deeper: [[a]] } });
    }
    expectGoReadsBack(values);
  });

  it('round-trips every rendered object of the golden cases', () => {
    const root = 'test/golden/cases';
    const items = readdirSync(root).flatMap(
      (c) => (parse(readFileSync(`${root}/${c}/_expected.yaml`, 'utf8')) as { items: Array<Record<string, unknown>> }).items,
    );
    expect(items.length).toBeGreaterThan(20);
    expectGoReadsBack(items);
  });
});

/** Our value for a ResourceList of one item `v: <scalar>`, on the fast path (when it takes it) and the full one. */
function ourReads(scalar: string): { full: unknown; fast: unknown; fastTook: boolean; error?: string } {
  const text = `${HEADER}- v: ${scalar}\n`;
  const full = parseResourceList(text, { fast: false });
  const either = parseResourceList(text);
  return {
    full: full.list?.items[0]?.value,
    fast: either.list?.items[0]?.value,
    fastTook: fastParse(text) !== undefined,
    error: full.errors[0]?.message,
  };
}

describe('the YAML readers, against go-yaml v2', { timeout: ORACLE_TIMEOUT_MS }, () => {
  it('give every generated plain scalar the value go-yaml v2 gives it', () => {
    const r = mulberry32(1414);
    const alphabet = '0123456789+-._eExXbBoOaAfFnNyYtTlLuUsSiI~';
    const samples = new Set([
      'e1',
      'E5',
      '0o644',
      '0O17',
      '0b101',
      '-0b101',
      '+0x1F',
      '0x_1F',
      '1_000',
      '08',
      '09.5',
      '0777777777777777777777777',
      '0xFFFFFFFFFFFFFFFF',
      '0x1FFFFFFFFFFFFFFFF',
      '9223372036854775807',
      '9223372036854775808',
      '18446744073709551616',
      '-9223372036854775809',
      '1e400',
      '-1e400',
      '1e-400',
      '._5',
      '.5_5',
      '1_.5',
      '-0',
      '-0.0',
      '+0',
      '.inf',
      '+.inf',
      '-.Inf',
      '.NaN',
      '.nAn',
      '0755',
      '12:30',
      '2024-01-01',
      '1.',
      '.',
      '+',
      '-.5e3',
      'yes',
      'On',
      'oFF',
      'y',
      'Y',
      'n',
      '~',
      'null',
      'Null',
      'nULL',
    ]);
    for (let i = 0; i < 20_000; i++)
      samples.add(Array.from({ length: 1 + Math.floor(r() * 7) }, () => alphabet[Math.floor(r() * alphabet.length)]).join(''));
    const list = [...samples];
    const reads = readWithGo(list.map((s) => `v: ${s}\n`));
    let compared = 0;
    const wrong: string[] = [];
    reads.forEach(({ v2 }, i) => {
      const s = list[i] as string;
      if (v2.error !== undefined) return; // not a plain scalar in that position
      compared++;
      const go = (goToJs(v2.value ?? null) as { v: unknown }).v;
      const ours = ourReads(s);
      if (!Object.is(resolvePlainScalar(s), go) && !(Number.isNaN(go) && Number.isNaN(resolvePlainScalar(s)))) {
        wrong.push(`${JSON.stringify(s)}: go-yaml v2 ${String(go)}, resolvePlainScalar ${String(resolvePlainScalar(s))}`);
      }
      try {
        expect(ours.full).toEqual({ v: go });
        expect(ours.fast).toEqual({ v: go });
      } catch {
        wrong.push(`${JSON.stringify(s)}: go-yaml v2 ${String(go)}, full parser ${JSON.stringify(ours.full ?? ours.error)}`);
      }
    });
    expect(wrong.slice(0, 20)).toEqual([]);
    expect(compared).toBeGreaterThan(15_000);
  });

  it('take the syntax edges go-yaml takes, with the same values', () => {
    const docs = [
      'v: "x"#c\n',
      "v: 'x'#c\n",
      'v: "x" #c\n',
      'v: [a, "b"]#c\n',
      'v: []#c\n',
      'v: {}#c\n',
      'v: |#c\n  x\n',
      'v: |-#c\n  x\n',
      'v: x#c\n',
      'v:\n  - "a"#c\n  - b\n',
      'v:\n  k: "x"#c\n  j: 1\n',
    ];
    const reads = readWithGo(docs);
    reads.forEach(({ v2 }, i) => {
      const doc = docs[i] as string;
      const text = `${HEADER}- ${doc.replace(/\n(?=.)/g, '\n  ')}`;
      const full = parseResourceList(text, { fast: false });
      const either = parseResourceList(text);
      expect(v2.error, doc).toBeUndefined();
      expect(full.errors, doc).toEqual([]);
      expect(full.list?.items[0]?.value, doc).toEqual(goToJs(v2.value ?? null));
      expect(either.list?.items[0]?.value, doc).toEqual(goToJs(v2.value ?? null));
    });
  });
});

describe('the YAML readers, against go-yaml on 4,000 generated ResourceLists', { timeout: ORACLE_TIMEOUT_MS }, () => {
  it('read the same values, and differ only where this reader is stricter on purpose or go-yaml cannot build the value', () => {
    const texts = Array.from({ length: 4000 }, (_, i) => randomResourceList(i + 1));
    const reads = readWithGo(texts);
    const tally = new Map<string, number>();
    const wrong: string[] = [];
    texts.forEach((text, i) => {
      const { v2, v3 } = reads[i] as { v2: GoRead; v3: GoRead };
      const ours = parseResourceList(text);
      let outcome: string;
      if (v2.error !== undefined && ours.errors.length > 0) outcome = 'both refuse';
      else if (v2.error !== undefined) {
        // A collection as a mapping key (`? a: b`), or an empty key in a sequence (`- : x`):
        // go-yaml v2 cannot build the value; the `yaml` package can. Nothing kpt writes.
        outcome = /invalid map key|did not find expected key/.test(v2.error) ? 'go-yaml cannot build it' : 'WRONG';
      } else if (ours.errors.length > 0) {
        // Repeated keys: go-yaml v2 keeps the last, v3 (kpt, kustomize) refuses them, as we do.
        outcome =
          ours.errors.every((e) => e.message.endsWith('Map keys must be unique')) && v3.error?.includes('already defined')
            ? 'repeated keys refused'
            : 'WRONG';
      } else {
        const list = ours.list as NonNullable<typeof ours.list>;
        const value = { apiVersion: list.apiVersion, kind: list.kind, items: list.items.map((item) => item.value) };
        const go = goToJs(v2.value ?? null) as Record<string, unknown>;
        delete go.functionConfig;
        // Through JSON, as kubectl sends it (NaN and the infinities have no JSON form); key order aside.
        outcome = isDeepStrictEqual(JSON.parse(JSON.stringify(go)), JSON.parse(JSON.stringify(value))) ? 'same value' : 'WRONG';
      }
      tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
      if (outcome === 'WRONG' && wrong.length < 5)
        wrong.push(`${text}\n--- go-yaml v2: ${JSON.stringify(v2)}\n--- ours: ${JSON.stringify(ours.errors[0] ?? '')}`);
    });
    expect(wrong).toEqual([]);
    expect(tally.get('same value')).toBeGreaterThan(2000);
    expect(tally.get('both refuse')).toBeGreaterThan(1000);
  });
});

describe('escapes of UTF-16 surrogates, against go-yaml v2 and v3', { timeout: ORACLE_TIMEOUT_MS }, () => {
  const SURROGATE_DOCS = [
    'a: "\\ud800"\n',
    'a: "\\udfff"\n',
    'a: "\\ud83d\\ude00"\n',
    'a: "\\U0000D800"\n',
    '"\\udbff": x\n',
    '{"a": "\\ud800"}\n',
    'a: "\\U0001F600"\n',
    'a: "\\ud7ff\\ue000"\n',
    'a: "\\\\ud800"\n',
    "a: '\\ud800'\n",
    'a: \\ud800\n',
  ];

  it('both readers refuse exactly the documents go-yaml refuses, and read the others to the same value', () => {
    const reads = readWithGo(SURROGATE_DOCS);
    const verdicts = SURROGATE_DOCS.map((text, i) => {
      const go = reads[i] as { v2: GoRead; v3: GoRead };
      const ours = parseDocuments(text, 'doc.yaml');
      const list = parseResourceList(
        `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- ${text.trimEnd().replaceAll('\n', '\n  ')}\n`,
      );
      const goRefuses = go.v2.error !== undefined && go.v3.error !== undefined;
      if (!goRefuses) expect(ours.docs.map((d) => d.value)).toEqual([goToJs(go.v2.value ?? null)]);
      return [text, goRefuses, ours.errors.length > 0, list.errors.length > 0];
    });
    expect(verdicts.filter(([, go, doc, item]) => go !== doc || go !== item)).toEqual([]);
    expect(verdicts.filter(([, go]) => go)).toHaveLength(6);
  });
});
