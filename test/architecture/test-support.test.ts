// One home for test helpers (issue 11): tests import helpers from test/support/ only, and helper
// modules live nowhere else. Helpers used to sit in five places, and each place grew its own tree
// walker, process runner and REPO_ROOT; with one place, the next helper is found, not copied.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from '../support/files.js';
import { importsOf } from '../support/imports.js';
import { REPO_ROOT } from '../support/paths.js';

const isTest = (file: string): boolean => /\.test(-d)?\.ts$/.test(file);
const inSupport = (file: string): boolean => file.startsWith('test/support/');

/**
 * Modules outside test/support/ that are not helpers: one test's own data (imported by that test
 * only), and vitest's global setup. Keep this list short: anything shared goes to test/support/.
 */
const OWN_DATA: Record<string, readonly string[]> = {
  'test/apiserver/agreement-rows.ts': ['test/apiserver/rendered.test.ts'],
  'test/setup/build-dist.ts': [],
};

/** The repository-relative .ts module a relative specifier names, if it exists (string literals in tests name none). */
function moduleOf(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(REPO_ROOT, resolve(dirname(join(REPO_ROOT, from)), specifier)).replace(/\.js$/, '.ts');
  return existsSync(join(REPO_ROOT, target)) ? target : undefined;
}

/** Helper modules outside test/support/, and imports of test/ modules that are neither helpers nor the importer's own data. */
function strays(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    if (!isTest(file) && !inSupport(file) && !(file in OWN_DATA)) out.push(`${file}: a helper outside test/support/`);
    for (const specifier of importsOf(text)) {
      const target = moduleOf(file, specifier);
      if (target === undefined || !target.startsWith('test/') || inSupport(target)) continue;
      if (OWN_DATA[target]?.includes(file)) continue;
      out.push(`${file} imports ${specifier} (${target}): helpers come from test/support/`);
    }
  }
  return out.sort();
}

describe('test helpers live in test/support/', () => {
  it('no test imports a helper from anywhere else, and no helper module lives elsewhere', () => {
    const files = new Map(typeScriptFiles('test').map((file) => [file, readFileSync(join(REPO_ROOT, file), 'utf8')]));
    expect(strays(files)).toEqual([]);
  });

  it('catches a helper outside test/support/, an import of one, and an import of data that belongs to another test', () => {
    const files = new Map([
      ['test/krm/helpers.ts', 'export const x = 1;\n'],
      ['test/krm/a.test.ts', "import { x } from './helpers.js';\nimport { y } from '../support/objects.js';\n"],
      ['test/apiserver/crds.test.ts', "import { AGREEMENT_NAMESPACE } from './agreement-rows.js';\n"],
      ['test/apiserver/rendered.test.ts', "import { AGREEMENT_NAMESPACE } from './agreement-rows.js';\n"],
    ]);
    expect(strays(files)).toEqual([
      'test/apiserver/crds.test.ts imports ./agreement-rows.js (test/apiserver/agreement-rows.ts): helpers come from test/support/',
      'test/krm/helpers.ts: a helper outside test/support/',
    ]);
    expect(moduleOf('test/apiserver/crds.test.ts', './agreement-rows.js')).toBe('test/apiserver/agreement-rows.ts');
    expect(moduleOf('test/apiserver/crds.test.ts', './no-such-module.js')).toBeUndefined();
    expect(moduleOf('test/golden/golden.test.ts', '../support/yaml-docs.js')).toBe('test/support/yaml-docs.ts');
  });
});
