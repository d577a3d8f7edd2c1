// Golden rendering tests: test/golden/cases/<case>/{resources.yaml, _fnconfig.yaml, _expected.yaml}.
// UPDATE_GOLDEN=1 rewrites _expected.yaml from the current output and still fails, so a rewrite
// is always looked at before it is committed.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runResourceList } from '../../src/krm/resource-list.js';
import { documentTexts, functionConfigBlock, resourceList, shuffled } from '../support/yaml-docs.js';

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

  it('gives the same bytes for the input in any order, on stdout and stderr', () => {
    // Error cases get more orders: their messages list names, and which copy of a name wins must not depend on it.
    const seeds = out.exitCode === 0 ? [1, 2, 3] : Array.from({ length: 24 }, (_, i) => i + 1);
    for (const seed of seeds) {
      const again = runResourceList(resourceList(shuffled(docs, seed), fnconfig), 'render-valkey');
      expect(again.stdout, `seed ${seed}`).toBe(out.stdout);
      expect(again.stderr, `seed ${seed}`).toBe(out.stderr);
      expect(again.exitCode).toBe(out.exitCode);
    }
  });

  // Rendering the output again: the results are dropped, as kpt does, and the function config goes back.
  const rerun = () =>
    runResourceList(
      fnconfig === undefined ? out.stdout : out.stdout.replace(/^results:[\s\S]*$/m, '') + functionConfigBlock(fnconfig),
      'render-valkey',
    );

  if (out.exitCode === 0) {
    it('is idempotent: rendering its own output again changes nothing', () => {
      const again = parse(out.stdout) as { items: unknown[] };
      const second = rerun();
      expect(second.exitCode).toBe(0);
      expect(parse(second.stdout).items).toEqual(again.items);
      // Results may differ: a warning about a change since the previous output (TLS toggled) is
      // not repeated once that output is the input.
      const withoutResults = (list: string) => list.replace(/^results:[\s\S]*$/m, '');
      expect(withoutResults(second.stdout)).toBe(withoutResults(out.stdout));
    });
  } else {
    it('fails without touching anything: every input item back unchanged, and its own output fails the same way', () => {
      expect(itemTexts(input)).toHaveLength(docs.length);
      expect(itemTexts(out.stdout).sort()).toEqual(itemTexts(input).sort());
      const second = rerun();
      expect(second.exitCode).toBe(1);
      expect(second.stdout).toBe(out.stdout);
      expect(second.stderr).toBe(out.stderr);
    });
  }
});

/** The items of a block-style ResourceList with compact `- ` items, each as its exact text. */
function itemTexts(list: string): string[] {
  const items = /^items:\n([\s\S]*?)(?=^(?:results|functionConfig):|(?![\s\S]))/m.exec(list)?.[1] ?? '';
  return items.split(/^(?=- )/m).filter((text) => text !== '');
}
