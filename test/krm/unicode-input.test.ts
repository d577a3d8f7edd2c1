// Text that is no text: an escape of a UTF-16 surrogate (`"\ud800"`), which go-yaml refuses and
// which alone is no character, and bytes that are not UTF-8. Both are refused where the files are
// read, for render and plan alike, with the file, line and column; and the JSON plan is always
// UTF-8 that strict JSON readers (jq) take. test/krm/yaml-oracle.integration.test.ts holds the
// escapes against go-yaml itself.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wellFormedJson } from '../../src/api/canonical-json.js';
import { runCli } from '../../src/krm/cli/run-cli.js';
import { runPlanCommand } from '../../src/krm/plan-command.js';
import { parseDocuments, parseResourceList } from '../../src/krm/read-input.js';
import { formatPlanJson, type Plan } from '../../src/plan/index.js';
import { tempDirs } from '../support/files.js';

const tmp = tempDirs('unicode-input');
afterAll(() => tmp.cleanup());

/** A JSON escape of a surrogate (not an escaped backslash before "ud800"), and a lone surrogate: what jq refuses. */
const SURROGATE_ESCAPE = /(^|[^\\])(\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MESSAGE = 'a \\u escape of a UTF-16 surrogate (D800-DFFF)';

/** A package (tshirt-sizes) whose cluster file gets `line` appended under its podAnnotations. */
function packageWith(extra: string | Buffer): string {
  const dir = tmp.make();
  cpSync('kptfile-examples/tshirt-sizes', dir, { recursive: true });
  const file = join(dir, 'notes.yaml');
  writeFileSync(file, extra);
  return dir;
}

const render = (dir: string) => runCli('render-valkey', [dir], { readStdin: async () => '', stdinIsTTY: true });

describe('surrogate escapes', () => {
  it.each([
    ['a lone high surrogate', 'a: "x\\ud800"\n', 'line 1, column 6'],
    ['a lone low surrogate', 'a:\n  b: "\\udfff"\n', 'line 2, column 7'],
    ['an escaped pair, which go-yaml refuses as well', 'a: "\\ud83d\\ude00"\n', 'line 1, column 5'],
    ['an 8-digit escape of a surrogate', 'a: "\\U0000D800"\n', 'line 1, column 5'],
    ['one in a key', '"k\\ud800": v\n', 'line 1, column 3'],
    ['one in the second document', 'a: 1\n---\nb: "ok \\\\ \\ud800"\n', 'line 3, column 11'],
    ['one in a JSON file', '{"a": ["ok", "\\ud800"]}\n', 'line 1, column 15'],
  ])('%s: refused with the line and column', (_name, text, where) => {
    expect(parseDocuments(text, 'notes.yaml').errors).toEqual([
      { message: expect.stringMatching(new RegExp(`^notes\\.yaml: invalid YAML at ${where}: a \\\\u escape of a UTF-16 surrogate`)) },
    ]);
  });

  it.each([
    ['the character itself', 'a: "😀"\n', '😀'],
    ['an 8-digit escape of a character beyond the BMP', 'a: "\\U0001F600"\n', '😀'],
    ['an escaped backslash before "ud800"', 'a: "\\\\ud800"\n', '\\ud800'],
    ['a single-quoted scalar, where \\u is no escape', "a: '\\ud800'\n", '\\ud800'],
    ['a plain scalar, where \\u is no escape', 'a: \\ud800\n', '\\ud800'],
    ['a BMP escape', 'a: "\\u00e9"\n', 'é'],
  ])('%s is read', (_name, text, value) => {
    expect(parseDocuments(text, 'notes.yaml')).toEqual({ docs: [{ text, value: { a: value }, at: expect.any(Function) }], errors: [] });
  });

  it('in a JSON ResourceList (kpt mode): refused the same way', () => {
    const list = parseResourceList('{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"a": "\\ud800"}]}');
    expect(list.errors).toEqual([{ message: expect.stringMatching(/^input: invalid YAML at line 1, column 84: a \\u escape/) }]);
  });

  it('render refuses the package, naming the file, and renders nothing', async () => {
    const dir = packageWith('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  a: "\\ud800"\n');
    const out = await render(dir);
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`${join(dir, 'notes.yaml')}: invalid YAML at line 6, column 7: ${MESSAGE}`);
  });

  it('plan refuses it on either side, and its JSON output stays readable', () => {
    const dir = packageWith('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  a: "\\udc00"\n');
    const plan = runPlanCommand(['--base', dir, '--format', 'json', dir], { cwd: dir });
    expect(plan.exitCode).toBe(1);
    expect(`${plan.stdout}${plan.stderr}`).toContain('notes.yaml: invalid YAML at line 6, column 7');
    expect(`${plan.stdout}${plan.stderr}`).not.toMatch(SURROGATE_ESCAPE);
    if (plan.stdout) JSON.parse(plan.stdout);
  });
});

describe('bytes that are not UTF-8', () => {
  it.each([
    [
      'an encoded surrogate (CESU-8)',
      Buffer.from([...Buffer.from('a: 1\nb: "x'), 0xed, 0xa0, 0x80, ...Buffer.from('"\n')]),
      'line 2, column 6',
    ],
    ['a stray byte after a character', Buffer.from([...Buffer.from('a: é'), 0xff, 0x0a]), 'line 1, column 5'],
    ['a cut-off sequence at the end', Buffer.from([...Buffer.from('a: b\n'), 0xe2, 0x82]), 'line 2, column 1'],
  ])('%s: the file is refused with the position, not read as U+FFFD', async (_name, bytes, where) => {
    const dir = packageWith(bytes);
    const out = await render(dir);
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`cannot read ${join(dir, 'notes.yaml')}: is not UTF-8 text: invalid bytes at ${where}`);
    const plan = runPlanCommand(['--base', dir, dir], { cwd: dir });
    expect(plan.exitCode).toBe(1);
    expect(`${plan.stdout}${plan.stderr}`).toContain(`is not UTF-8 text: invalid bytes at ${where}`);
  });
});

describe('the JSON plan', () => {
  it('writes a lone surrogate as U+FFFD and keeps every other escape: strict readers take it', () => {
    const value = { a: 'x\ud800y', b: '\\ud800', c: '😀', d: ['\udfff', '\\\ud83d'], e: '\n\u0000' };
    const json = wellFormedJson(value);
    expect(json).not.toMatch(SURROGATE_ESCAPE);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(json))).toBe(json);
    expect(JSON.parse(json)).toEqual({ a: 'x\ufffdy', b: '\\ud800', c: '😀', d: ['\ufffd', '\\\ufffd'], e: '\n\u0000' });
    for (const s of Object.values(JSON.parse(json) as Record<string, unknown>).flat()) expect(String(s)).not.toMatch(LONE_SURROGATE);
  });

  it('formatPlanJson and plan --format json go through it', () => {
    expect(formatPlanJson({ note: '\ud800' } as unknown as Plan)).toBe('{\n  "note": "\ufffd"\n}\n');
    const cases = join(import.meta.dirname, '..', 'plan', 'cases', 'shards-up');
    const plan = runPlanCommand(['--base', 'base.yaml', '--format', 'json', 'change.yaml'], { cwd: cases });
    expect(plan.stdout).toBe(readFileSync(join(cases, '_expected.json'), 'utf8'));
  });
});
