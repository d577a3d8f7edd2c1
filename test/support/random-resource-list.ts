// Random ResourceLists in block YAML, valid and broken alike, for differential tests: the fast
// reader against the full parser (fast-yaml.test.ts), and both against go-yaml (yaml-oracle.integration.test.ts).
import { HEADER } from './yaml-docs.js';

export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Scalars chosen for what a YAML 1.1 reader does with them: mostly valid, some that are not or
// that only the full parser handles.
export const SCALARS = [
  'a',
  'hello world',
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'N',
  'true',
  'False',
  '~',
  'null',
  'NULL',
  '0755',
  '0o17',
  '0x1F',
  '0b101',
  '1_000',
  '12',
  '-3',
  '+4',
  '1e3',
  '1.5',
  '.5',
  '1.',
  '.inf',
  '-.Inf',
  '.nan',
  '12:30',
  '12:30:45',
  '2024-01-01',
  '2024-01-01T10:00:00Z',
  "'single'",
  "'it''s'",
  "''",
  '""',
  '"double"',
  '"esc \\" q"',
  '"tab\\tx"',
  '"nl\\nx"',
  '"back\\\\slash"',
  'a #comment',
  'a#b',
  'http://x:80/y',
  '-x',
  '--x',
  '{}',
  '[]',
  'é',
  '日本語',
  'a  b',
  'x   ',
  '10Gi',
  '500m',
  '"0755"',
  'true # c',
  '=',
  'a,b',
  '---',
  '1__0',
  '0x',
  '+.5',
  '-0',
  '0',
  '00',
  '08',
  '0.0',
  '1e+3',
  'x:y',
  '[a, b]',
  '["x", 1, yes]',
  "[ 'q', 0755 ]",
  '[ ]',
  '[server auth, client auth]',
  '[a#b, c]',
  // Block scalars: the writer puts each line after the first on its own line, indented.
  '|\nline one\n\n  indented\nlast',
  '|-\na\nb',
  '|\n# not a comment\nx: y',
  '|\n\nleading blank',
  '| # header comment\nz',
];
export const ODD_SCALARS = [
  '"\\u00e9"',
  '"\\x41"',
  'a: b',
  'a:',
  '- x',
  '-',
  '{a: 1}',
  '[1, 2]',
  '[a',
  '{ }',
  '&a x',
  '*a',
  '!!str 1',
  '|',
  '|-',
  '>',
  '@x',
  '`x',
  '%x',
  '?x',
  '? x',
  ':x',
  ': x',
  '"a',
  "'a",
  '<<',
  '}',
  '#',
  '"a" b',
  "'a'#c",
  '"a"#c',
  '...',
  'a\tb',
  'x:',
  '"x":',
  '[a, ]',
  '[a,, b]',
  '[a: b]',
  '[[a]]',
  '[a] x',
  '[a, {b: 1}]',
  '|+\na\n',
  '|2\n  a',
  '>\nfolded\ntext',
  '|-\na\n\n',
  '|x\na',
];
const KEYS = ['a', 'b', 'name', 'x y', '"q k"', "'s k'", 'a:b', '-k', 'k#c', '"dup"', 'dup', 'a b ', 'é', 'yes', '1', 'spec', 'status'];
const ODD_KEYS = ['<<', '__proto__', 'k #c', '? c', '&x k', '- k', '"open'];

type Tree = string | Tree[] | { [key: string]: Tree };

function tree(r: () => number, depth: number): Tree {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const roll = r();
  if (depth <= 0 || roll < 0.35) return r() < 0.04 ? pick(ODD_SCALARS) : pick(SCALARS);
  if (roll < 0.55) return Array.from({ length: 1 + Math.floor(r() * 3) }, () => tree(r, depth - 1));
  const out: { [key: string]: Tree } = {};
  const n = 1 + Math.floor(r() * 4);
  const keys = [...KEYS].sort(() => r() - 0.5); // distinct, but `dup` and `"dup"` may meet
  for (let i = 0; i < n; i++) out[`${r() < 0.02 ? pick(ODD_KEYS) : keys[i]}\u0000${i}`] = tree(r, depth - 1); // \0 keeps the same key apart
  return out;
}

/** Writes a tree as block YAML with random (sometimes wrong) layout choices. */
function write(r: () => number, t: Tree, col: number, lines: string[], lead: string): void {
  const pad = (n: number) => ' '.repeat(Math.max(0, n));
  const noise = () => {
    const x = r();
    if (x < 0.01) lines.push('');
    else if (x < 0.03) lines.push(`${pad(col + Math.floor(r() * 3) - 1)}# a comment`);
  };
  const jitter = () => (r() < 0.005 ? (r() < 0.5 ? -1 : 1) : 0);
  // A block scalar's later lines go below, two columns in; a blank line sometimes holds spaces.
  const block = (text: string, at: number) =>
    text
      .split('\n')
      .map((l, i) => (i === 0 ? l : l === '' ? (r() < 0.3 ? pad(at + 1) : '') : `${pad(at + 2)}${l}`))
      .join('\n');
  if (typeof t === 'string') {
    lines.push(`${lead}${block(t, col)}`);
    return;
  }
  if (Array.isArray(t)) {
    t.forEach((item, i) => {
      noise();
      const first = i === 0 && lead !== '' ? lead : pad(col + jitter());
      if (typeof item === 'string') lines.push(`${first}- ${block(item, col)}${r() < 0.1 && !item.includes('\n') ? ' # trailing' : ''}`);
      else if (r() < 0.2) {
        lines.push(`${first}-`);
        write(r, item, col + 2, lines, '');
      } else write(r, item, col + 2, lines, `${first}- `);
    });
    return;
  }
  Object.entries(t).forEach(([rawKey, value], i) => {
    noise();
    const key = rawKey.split('\u0000')[0] as string;
    const first = i === 0 && lead !== '' ? lead : pad(col + jitter());
    if (typeof value === 'string')
      lines.push(`${first}${key}: ${block(value, col)}${r() < 0.1 && !value.includes('\n') ? ' # trailing' : ''}`);
    else {
      lines.push(`${first}${key}:${r() < 0.1 ? ' # head' : ''}`);
      const compact = Array.isArray(value) && r() < 0.5;
      write(r, value, compact ? col : col + 2, lines, '');
    }
  });
}

export function randomResourceList(seed: number): string {
  const r = mulberry32(seed);
  const compactItems = r() < 0.6;
  const itemCol = compactItems ? 0 : 2;
  const lines: string[] = [];
  const items = 1 + Math.floor(r() * 4);
  for (let i = 0; i < items; i++) {
    const item: { [key: string]: Tree } = { 'apiVersion\u0000a': 'v1', 'kind\u0000b': 'ConfigMap' };
    const extra = tree(r, 3);
    if (typeof extra === 'object' && !Array.isArray(extra)) Object.assign(item, extra);
    else item['data\u0000c'] = extra;
    // Comment lines between items: at the dash's column (the header render-valkey writes before a
    // rendered file's first object) they belong to the next item; elsewhere the fast reader gives up.
    if (i > 0 && r() < 0.15) lines.push(`${' '.repeat(r() < 0.8 ? itemCol : itemCol + 1)}# GENERATED by a test`);
    if (r() < 0.1) {
      lines.push(`${' '.repeat(itemCol)}- # head comment`);
      write(r, item, itemCol + 2, lines, '');
    } else write(r, item, itemCol + 2, lines, `${' '.repeat(itemCol)}- `);
  }
  const tail = r() < 0.5 ? 'functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: "1"\n' : '';
  return `${HEADER}${lines.join('\n')}\n${tail}`;
}
