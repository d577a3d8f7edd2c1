// Where things are, from this file rather than the cwd (vitest may run from anywhere).
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const repoPath = (...parts: string[]): string => join(REPO_ROOT, ...parts);

/** The built bundles, relative to the repository root (test/setup/build-dist.ts builds them). */
export const RENDER = 'dist/render-valkey.cjs';
export const VALIDATE = 'dist/validate-valkey.cjs';

export const CRD_DIR = repoPath('crds');
export const EXAMPLES_DIR = repoPath('kptfile-examples');
export const GOLDEN_DIR = repoPath('test/golden/cases');
/** The real Valkey builds next to the repository (../shared/valkey/README.md). */
export const VALKEY_BUILDS_DIR = resolve(REPO_ROOT, '../shared/valkey');

/** The example packages: every directory under kptfile-examples/ that has a Kptfile (more get added over time). */
export function examplePackages(): string[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((name) => existsSync(join(EXAMPLES_DIR, name, 'Kptfile')))
    .sort();
}
