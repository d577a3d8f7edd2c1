// Golden rendering tests: test/golden/cases/<case>/{resources.yaml, _fnconfig.yaml, _expected.yaml}.
// UPDATE_GOLDEN=1 rewrites _expected.yaml from the current output and still fails, so a rewrite
// is always looked at before it is committed.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runResourceList } from '../../src/krm/resource-list.js';
import { documentTexts, functionConfigBlock, resourceList, shuffled } from '../helpers/resource-list.js';

const root = join(import.meta.dirname, 'cases');
const cases = readdirSync(root).sort();
const update = process.env.UPDATE_GOLDEN === '1';

describe.each(cases)('golden %s', (name) => {
  const dir = join(root, name);
  const docs = documentTexts(readFileSync(join(dir, 'resources.yaml'), 'utf8'));
  const fnconfigPath = join(dir, '_fnconfig.yaml');
  const fnconfig = existsSync(fnconfigPath) ? readFileSync(fnconfigPath, 'utf8') : undefined;
  const input = resourceList(docs, fnconfig);
  const out = runResourceList(input, 'render-valkey');
  const expectedPath = join(dir, '_expected.yaml');

  it('renders the expected ResourceList', () => {
    if (update) {
      writeFileSync(expectedPath, out.stdout);
      expect.fail(`rewrote ${expectedPath}; review the diff and run again without UPDATE_GOLDEN`);
    }
    expect(out.stdout).toBe(readFileSync(expectedPath, 'utf8'));
  });

  it('exits 1 exactly when there is an error result', () => {
    const results = (parse(out.stdout) as { results?: { severity: string }[] }).results ?? [];
    expect(out.exitCode).toBe(results.some((r) => r.severity === 'error') ? 1 : 0);
  });

  it('gives the same bytes for the input in any order', () => {
    for (const seed of [1, 2, 3]) expect(runResourceList(resourceList(shuffled(docs, seed), fnconfig), 'render-valkey').stdout).toBe(out.stdout);
  });

  it('is idempotent: rendering its own output again changes nothing', () => {
    if (out.exitCode !== 0) return;
    const again = parse(out.stdout) as { items: unknown[] };
    const withConfig = fnconfig === undefined ? out.stdout : out.stdout.replace(/^results:[\s\S]*$/m, '') + functionConfigBlock(fnconfig);
    const second = runResourceList(withConfig, 'render-valkey');
    expect(second.exitCode).toBe(0);
    expect(parse(second.stdout).items).toEqual(again.items);
    expect(second.stdout.replace(/\nresults:[\s\S]*$/, '')).toBe(out.stdout.replace(/\nresults:[\s\S]*$/, ''));
  });
});
