// Every report a terminal or CI log shows (render and validate-valkey's stderr, plan's text output,
// the list of files that could not be read) prints text from the package inert: no raw control
// character (ESC, CR, NEL, bidi overrides, line separators), and no line of the package's own that
// starts where a line of ours would (a fake "0 errors ... rendered" or plan summary).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/krm/cli/run-cli.js';
import { formatReport } from '../../src/krm/report.js';
import { toResults } from '../../src/krm/results.js';
import { formatPlanText, type Plan } from '../../src/plan/index.js';
import { tempDirs } from '../support/files.js';
import { mulberry32 } from '../support/random-resource-list.js';

const tmp = tempDirs('terminal-reports');
afterAll(() => tmp.cleanup());

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this pattern is about
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const FAKE_SUMMARY = 'render-valkey: 0 errors, 0 warnings, 0 infos; rendered 3 clusters into 24 objects';
const PIECES = [
  '\u001b[2K\r',
  '\r',
  '\n',
  `\n${FAKE_SUMMARY}\n`,
  '\nvalkey-krm plan: nothing changes',
  '\u0085',
  '\u2028',
  '\u202e',
  '\u0007',
  '\u009b',
  'é',
  'x',
  ' ',
];
const hostile = (r: () => number) =>
  Array.from({ length: 1 + Math.floor(r() * 6) }, () => PIECES[Math.floor(r() * PIECES.length)]).join('');

/** Lines ours may start with; everything else from the package is indented under one of them. */
const OWN_LINE =
  /^(error|warning|info): |^ {2}|^(render-valkey|validate-valkey): |^valkey-krm plan: |^$|^The (base|change) is invalid:$|^(held|risky|roll|change|unchanged|new|retired)\b|^Warnings in the change:$/;

function expectInert(report: string, ownLines: number) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this pattern is about
  expect(report).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
  const lines = report.split('\n').slice(0, -1);
  expect(lines.filter((l) => !OWN_LINE.test(l))).toEqual([]);
  expect(lines.filter((l) => l.startsWith(FAKE_SUMMARY) || l.startsWith('valkey-krm plan: nothing'))).toEqual([]);
  expect(lines.filter((l) => !l.startsWith(' ')).length).toBeLessThanOrEqual(ownLines);
}

describe('hostile strings in every report, 500 generated each', () => {
  it('plan text: in messages, reasons, file names and objects', () => {
    const r = mulberry32(2203);
    for (let i = 0; i < 500; i++) {
      const problem = { severity: 'error', message: hostile(r), file: hostile(r), object: hostile(r) };
      const plan = {
        summary: '1 cluster rolls',
        invalid: [{ side: 'change', problems: [problem] }],
        clusters: [{ namespace: 'team-a', name: 'c', verdict: 'roll', reasons: [hostile(r), hostile(r)] }],
        warnings: [{ ...problem, severity: 'warning' }],
      } as unknown as Plan;
      const text = formatPlanText(plan);
      // Ours: the summary, the two headings, the verdict heading, with a blank line before each heading.
      expectInert(text, 8);
    }
  });

  it('render and validate-valkey reports: in messages and file names', () => {
    const r = mulberry32(2204);
    for (let i = 0; i < 500; i++) {
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: hostile(r), namespace: hostile(r) };
      const problems = [{ severity: 'error' as const, message: hostile(r), object: ref }];
      for (const tool of ['render-valkey', 'validate-valkey'] as const) {
        const report = formatReport(problems, () => [{ path: hostile(r), index: 0 }], tool, 'nothing was rendered');
        expectInert(report, 2);
      }
    }
  });

  it("the ResourceList's results (what kpt prints under the function's name): messages with no raw control character", () => {
    const r = mulberry32(2205);
    for (let i = 0; i < 500; i++) {
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'team-a' };
      const results = toResults([{ severity: 'error' as const, message: hostile(r), object: ref }], () => [{ path: 'a.yaml', index: 0 }]);
      for (const { message } of results) expect(message).not.toMatch(RAW_CONTROL);
    }
  });

  it('the files that could not be read: a link whose name holds a fake summary stays on its line', async () => {
    const dir = tmp.make();
    mkdirSync(join(dir, 'pkg'));
    const names = [`a\n${FAKE_SUMMARY}\n.yaml`, 'b\u001b[2K\r.yaml', 'c\u202e.yaml'];
    for (const name of names) symlinkSync('/etc/hostname', join(dir, 'pkg', name));
    writeFileSync(join(dir, 'pkg', 'ok.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
    const out = await runCli('render-valkey', [join(dir, 'pkg')], { readStdin: async () => '', stdinIsTTY: true });
    expect(out.exitCode).toBe(1);
    expect(out.stderr.split('\n').slice(0, -1)).toHaveLength(names.length);
    expectInert(out.stderr, names.length);
  });
});
