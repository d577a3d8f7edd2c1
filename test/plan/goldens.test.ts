// Plan goldens: test/plan/cases/<case>/{base.yaml, change.yaml} planned in every format against
// _expected.txt, _expected.md and _expected.json. UPDATE_GOLDEN=1 rewrites the expected files and
// still fails, so every rewrite is reviewed. They pin what the renderer does today: while the
// config hash covers all of valkey.conf, every setting change rolls.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPlanCommand } from '../../src/krm/plan-command.js';
import { planSchema } from '../../src/plan/index.js';
import { documentTexts, shuffled } from '../support/yaml-docs.js';

const root = join(import.meta.dirname, 'cases');
const cases = readdirSync(root)
  .filter((c) => existsSync(join(root, c, 'base.yaml')))
  .sort();
const update = process.env.UPDATE_GOLDEN === '1';
const FORMATS = { text: '_expected.txt', markdown: '_expected.md', json: '_expected.json' } as const;
const temp = mkdtempSync(join(tmpdir(), 'plan-goldens-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe.each(cases)('plan %s', (name) => {
  const dir = join(root, name);
  const plan = (format: string, change = 'change.yaml') =>
    runPlanCommand(['--base', 'base.yaml', '--format', format, change], { cwd: dir });

  it.each(Object.entries(FORMATS))('prints the expected %s', (format, file) => {
    const out = plan(format);
    const expectedPath = join(dir, file);
    if (update) {
      writeFileSync(expectedPath, out.stdout);
      expect.fail(`rewrote ${expectedPath}; review the diff and run again without UPDATE_GOLDEN`);
    }
    expect(out.stdout).toBe(readFileSync(expectedPath, 'utf8'));
  });

  it('exits 1 exactly when a side is invalid, else 0', () => {
    const out = plan('json');
    const parsed = JSON.parse(out.stdout) as { ok: boolean };
    expect(out.exitCode).toBe(parsed.ok ? 0 : 1);
  });

  it('prints JSON that the plan schema accepts', () => {
    const result = planSchema().safeParse(JSON.parse(plan('json').stdout));
    expect(result.success ? [] : result.error.issues).toEqual([]);
  });

  it('gives the same plan whatever the order of the documents', () => {
    const docs = documentTexts(readFileSync(join(dir, 'change.yaml'), 'utf8'));
    mkdirSync(join(temp, name));
    const path = join(temp, name, 'change.yaml');
    writeFileSync(path, shuffled(docs, 3).join('---\n'));
    // The same but for where each finding is: the lines move with the documents.
    const placeless = (json: string) => json.replace(/,\n\s*"line": \d+,\n\s*"column": \d+/g, '');
    expect(placeless(plan('json', path).stdout.replaceAll(`${join(temp, name)}/`, ''))).toBe(placeless(plan('json').stdout));
  });
});
