// One reader per thing the renderer writes (docs/STYLE: "a second parser of the same text is a
// defect even when it agrees today"). valkey.conf, users.acl, the annotations and the data-loss
// opt-in, pod names, slots, Valkey memory units and "replica in sync" are read and written in
// src/api/contract/ only. This test reads every other module of src/ with the TypeScript parser
// (so comments never count) and fails on the marks of a reader of its own: the old parsers'
// names, annotation keys spelled as literals, the pod-name ordinal pattern, the slot count, a
// sync tolerance. And the renderer, the plan and the controller each use the contract readers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from '../support/files.js';
import { importsOf } from '../support/imports.js';
import { REPO_ROOT } from '../support/paths.js';

const CONTRACT_DIR = 'src/api/contract/';

interface Marks {
  identifiers: string[];
  strings: string[];
  regexes: string[];
  numbers: string[];
}

/** Identifiers, string and template texts, regex literals and numbers of a file, comments left out. */
function marksOf(file: string, text: string): Marks {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const marks: Marks = { identifiers: [], strings: [], regexes: [], numbers: [] };
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) marks.identifiers.push(node.text);
    else if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      marks.strings.push(node.text);
    else if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) marks.regexes.push(node.getText(source));
    else if (ts.isNumericLiteral(node)) marks.numbers.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return marks;
}

/** The names of readers that used to live outside the contracts (and must not come back). */
const OLD_READERS = [
  'parseValkeyConf',
  'parseUsersAcl',
  'parseAclFile',
  'parseAclUsers',
  'memoryBytes',
  'SYNC_TOLERANCE_BYTES',
  'REVISION_LABEL',
  'ALLOW_DATA_LOSS_ANNOTATION',
  'RESTART_HASH_ANNOTATION',
  'SLOTS',
];

function findings(file: string, text: string): string[] {
  const m = marksOf(file, text);
  const out: string[] = [];
  for (const id of new Set(m.identifiers)) if (OLD_READERS.includes(id)) out.push(`${file}: ${id} (use src/api/contract/)`);
  for (const s of m.strings) {
    // A key written out is a second spelling of a constant in api/contract/annotations.ts.
    if (/^valkey\.gomomento\.com\/[a-z-]+$/.test(s) || s === 'controller-revision-hash')
      out.push(`${file}: the key "${s}" spelled as a literal (use LABELS / ANNOTATIONS / STATEFULSET_REVISION_LABEL)`);
  }
  for (const r of m.regexes) if (r.includes('-(\\d+)$')) out.push(`${file}: ${r} reads an ordinal from a pod name (use ordinalOf)`);
  for (const n of m.numbers) if (n === '16384' || n === '16383') out.push(`${file}: ${n} (use TOTAL_SLOTS)`);
  return out;
}

const outsideContracts = () => typeScriptFiles('src').filter((f) => !f.startsWith(CONTRACT_DIR));
const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

describe('one reader per contract', () => {
  it('no module outside src/api/contract/ reads a contract its own way', () => {
    expect(outsideContracts().flatMap((f) => findings(f, read(f)))).toEqual([]);
  });

  it.each([
    ['src/render/', ['valkey-conf', 'users-acl']],
    ['src/plan/', ['valkey-conf', 'users-acl', 'data-loss-opt-in']],
    ['src/controller/', ['valkey-conf', 'users-acl', 'data-loss-opt-in', 'replica-sync', 'slots']],
  ])('%s uses the contract readers %j', (room, contracts) => {
    const used = new Set(
      outsideContracts()
        .filter((f) => f.startsWith(room))
        .flatMap((f) => importsOf(read(f)))
        .map((s) => /api\/contract\/([a-z-]+)\.js$/.exec(s)?.[1])
        .filter((c): c is string => c !== undefined),
    );
    expect(contracts.filter((c) => !used.has(c))).toEqual([]);
  });

  it('finds each mark in code and none in comments', () => {
    const code = [
      '// parseValkeyConf, 16384 and /-(\\d+)$/ in a comment are fine',
      "/** 'valkey.gomomento.com/shard' */",
      'export function parseValkeyConf() {}',
      "const key = 'valkey.gomomento.com/allow-data-loss-roll';",
      'const label = `controller-revision-hash`;',
      'const ordinal = Number(/-(\\d+)$/.exec(name)?.[1]);',
      'const slots = 16384;',
    ].join('\n');
    expect(findings('x.ts', code)).toEqual([
      'x.ts: parseValkeyConf (use src/api/contract/)',
      'x.ts: the key "valkey.gomomento.com/allow-data-loss-roll" spelled as a literal (use LABELS / ANNOTATIONS / STATEFULSET_REVISION_LABEL)',
      'x.ts: the key "controller-revision-hash" spelled as a literal (use LABELS / ANNOTATIONS / STATEFULSET_REVISION_LABEL)',
      'x.ts: /-(\\d+)$/ reads an ordinal from a pod name (use ordinalOf)',
      'x.ts: 16384 (use TOTAL_SLOTS)',
    ]);
  });
});
