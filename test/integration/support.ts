// Shared plumbing for the integration tests that drive the real tools (kpt, kustomize,
// kubectl, git, sh): processes with timeouts, temp copies, file-tree snapshots, a bin dir
// that puts the built bundles on PATH under their command names.
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { run as runCommand, type Ran, type RunOptions } from '../helpers/exec.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const repoPath = (...parts: string[]) => join(REPO_ROOT, ...parts);

export const EXAMPLE_PACKAGES = ['tshirt-sizes', 'dev-and-prod', 'team-clusters'] as const;
export type ExamplePackage = (typeof EXAMPLE_PACKAGES)[number];

export type { Ran, RunOptions } from '../helpers/exec.js';

/** `run` of helpers/exec.ts with a 60 s limit unless `timeoutMs` says otherwise: a hung tool fails its test. */
export const run = (cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<Ran> =>
  runCommand(cmd, args, { ...opts, timeoutMs: opts.timeoutMs ?? 60_000 });

/** render-valkey in plain-files mode (`args`: options and paths), run from the repository root. */
export const renderPlain = (args: readonly string[]): Promise<Ran> =>
  run(process.execPath, [repoPath('dist/render-valkey.cjs'), ...args], { cwd: REPO_ROOT });

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

/** Every file under `dir`, by path relative to it, with its exact bytes (as latin1 text, so any byte compares). */
export function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string): void => {
    for (const entry of readdirSync(d).sort()) {
      const full = join(d, entry);
      if (statSync(full).isDirectory()) walk(full);
      else files.set(relative(dir, full), readFileSync(full).toString('latin1'));
    }
  };
  walk(dir);
  return files;
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

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

/** The non-empty documents of a multi-document YAML stream; throws on invalid YAML. */
export function parseObjects(text: string): KubeObject[] {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  for (const d of list) if (d.errors.length) throw new Error(`invalid YAML: ${d.errors[0]?.message}`);
  return list.map((d) => d.toJS() as KubeObject | null).filter((v): v is KubeObject => v !== null);
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

/** Every YAML object of a package directory (skips the rendered output and READMEs). */
export function packageObjects(dir: string, skipDirs: readonly string[] = []): { file: string; object: KubeObject }[] {
  return packageFiles(dir, skipDirs).flatMap(({ file, text }) => parseObjects(text).map((object) => ({ file, object })));
}

export const idOf = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const isGenerated = (o: KubeObject): boolean => o.metadata?.labels?.[MANAGED_BY] === 'valkey-krm';

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

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Objects generated for one cluster, by kind: what render-valkey promises per ValkeyCluster. */
export function expectedKinds(shards: number): Record<string, number> {
  return { ConfigMap: 1, Service: 1, StatefulSet: shards, PodDisruptionBudget: shards };
}

export function countKinds(objects: readonly KubeObject[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of objects) counts[o.kind] = (counts[o.kind] ?? 0) + 1;
  return counts;
}
