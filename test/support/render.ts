// render-valkey as the integration and contract tests run it: the built bundle in plain-files
// mode, on the example packages and on the golden cases.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { type Ran, run } from './exec.js';
import { isGenerated, type KubeObject, withoutKptAnnotations } from './objects.js';
import { EXAMPLES_DIR, GOLDEN_DIR, RENDER, REPO_ROOT, repoPath } from './paths.js';
import { parseSourceDocs, resourceList, type SourceDoc } from './yaml-docs.js';

/** render-valkey in plain-files mode (`args`: options and paths), run from the repository root. */
export const renderPlain = (args: readonly string[]): Promise<Ran> =>
  run(process.execPath, [repoPath(RENDER), ...args], { cwd: REPO_ROOT });

/** Every document render-valkey prints for `args`; throws when it fails. */
export async function renderFiles(args: string[], what: string): Promise<SourceDoc[]> {
  const r = await renderPlain(args);
  if (r.code !== 0) throw new Error(`render-valkey ${what} exited ${r.code}:\n${r.stderr}`);
  return parseSourceDocs(r.stdout, `render-valkey ${what}`);
}

/** `render-valkey kptfile-examples/<name>` in plain-files mode: every document it prints, byte for byte. */
export const renderPackage = (name: string): Promise<SourceDoc[]> => renderFiles([join(EXAMPLES_DIR, name)], `kptfile-examples/${name}`);

export const goldenCases = (): string[] =>
  readdirSync(GOLDEN_DIR)
    .filter((n) => statSync(join(GOLDEN_DIR, n)).isDirectory())
    .sort();

/** A golden case's resources and function config as the ResourceList kpt would send. */
export function goldenResourceList(name: string): string {
  const dir = join(GOLDEN_DIR, name);
  let text = readFileSync(join(dir, 'resources.yaml'), 'utf8');
  text = text.startsWith('---') ? text : `---\n${text}`;
  const docs = text.split(/^---[^\n]*\n/m).filter((d) => d.trim() !== '');
  const fnconfig = join(dir, '_fnconfig.yaml');
  return resourceList(docs, existsSync(fnconfig) ? readFileSync(fnconfig, 'utf8') : undefined);
}

export const goldenInputDocs = (name: string): SourceDoc[] =>
  parseSourceDocs(readFileSync(join(GOLDEN_DIR, name, 'resources.yaml'), 'utf8'), `test/golden/cases/${name}/resources.yaml`);

/** The objects render-valkey generated in a golden case's expected ResourceList, as kpt would apply them. */
export function goldenGenerated(name: string): KubeObject[] {
  const list = parse(readFileSync(join(GOLDEN_DIR, name, '_expected.yaml'), 'utf8')) as { items?: KubeObject[] };
  return (list.items ?? []).filter(isGenerated).map(withoutKptAnnotations);
}

/** A golden case's inputs through plain-files mode (the bytes Argo CD would apply), with its function config. */
export function renderGoldenCase(name: string): Promise<SourceDoc[]> {
  const dir = join(GOLDEN_DIR, name);
  const fnconfig = join(dir, '_fnconfig.yaml');
  const args = existsSync(fnconfig) ? ['--config', fnconfig] : [];
  return renderFiles([...args, join(dir, 'resources.yaml')], `test/golden/cases/${name}`);
}
