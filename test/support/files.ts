// Files for the tests that drive real tools (kpt, kustomize, git, sh): temp dirs, copies of the
// examples, file-tree snapshots, and a bin dir that puts the built bundles on PATH under their
// command names.
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoPath } from './paths.js';

/** A fresh temp dir; `cleanup` removes every dir made so far (call it in afterAll). */
export function tempDirs(prefix: string) {
  const made: string[] = [];
  return {
    make(name = 'x'): string {
      const dir = mkdtempSync(join(tmpdir(), `valkey-krm-${prefix}-${name}-`));
      made.push(dir);
      return dir;
    },
    cleanup(): void {
      if (process.env.VALKEY_KRM_KEEP_TMP === '1') return;
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A directory with `render-valkey` and `validate-valkey` linked to the built bundles, and the
 * environment that puts it first on PATH. kpt and kustomize look exec functions up there.
 */
export function binDir(dir: string): { dir: string; env: NodeJS.ProcessEnv } {
  for (const tool of ['render-valkey', 'validate-valkey']) symlinkSync(repoPath('dist', `${tool}.cjs`), join(dir, tool));
  return { dir, env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}` } };
}

/** Copies a directory tree (never modify the repo's own examples). */
export function copyTree(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  return to;
}

/**
 * Every file under `dir`, by path relative to it, in a stable order (names sorted at each level):
 * the one tree walker of the tests. `skip` leaves out the entries (files, or directories with
 * everything under them) whose name it matches.
 */
export function filesUnder(dir: string, opts: { skip?: (name: string) => boolean } = {}): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel)).sort()) {
      if (opts.skip?.(entry)) continue;
      const path = rel === '' ? entry : `${rel}/${entry}`;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else out.push(path);
    }
  };
  walk('');
  return out;
}

/** The TypeScript files under a directory of the repository, as repository-relative paths (`src/api/group.ts`). */
export const typeScriptFiles = (dir: string): string[] =>
  filesUnder(repoPath(dir))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${dir}/${file}`);

/** Every file under `dir`, by path relative to it, with its exact bytes (as latin1 text, so any byte compares). */
export function snapshot(dir: string): Map<string, string> {
  return new Map(filesUnder(dir).map((file) => [file, readFileSync(join(dir, file)).toString('latin1')]));
}

/** Paths that differ between two snapshots: added, removed or changed. */
export function changedFiles(
  before: Map<string, string>,
  after: Map<string, string>,
): { added: string[]; removed: string[]; changed: string[] } {
  const added = [...after.keys()].filter((k) => !before.has(k)).sort();
  const removed = [...before.keys()].filter((k) => !after.has(k)).sort();
  const changed = [...before.keys()].filter((k) => after.has(k) && after.get(k) !== before.get(k)).sort();
  return { added, removed, changed };
}

/** The YAML files and the Kptfile of a package directory, as UTF-8 text (skips READMEs and everything under `skipDirs`). */
export function packageFiles(dir: string, skipDirs: readonly string[] = []): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const [file, text] of snapshot(dir)) {
    if (!/\.ya?ml$/.test(file) && file !== 'Kptfile') continue;
    if (skipDirs.some((s) => file.startsWith(`${s}/`))) continue;
    out.push({ file, text: Buffer.from(text, 'latin1').toString('utf8') });
  }
  return out;
}

/**
 * Lowers the image version in `file` below the 9.0.1 floor (`version: "9.0.1"` becomes "9.0.0");
 * throws if the file does not hold `version: "9.0.1"`. Returns the text as it was, to restore it.
 */
export function lowerImageVersion(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (!text.includes('version: "9.0.1"')) throw new Error(`${file} holds no \`version: "9.0.1"\` to lower`);
  writeFileSync(file, text.replace('version: "9.0.1"', 'version: "9.0.0"'));
  return text;
}
