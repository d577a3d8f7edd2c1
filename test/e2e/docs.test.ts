// The commands the docs show, run exactly as written with the built executables on PATH.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../support/exec.js';
import { binDir, copyTree, tempDirs } from '../support/files.js';
import { shBlockAfter } from '../support/markdown.js';
import { repoPath } from '../support/paths.js';

const tmp = tempDirs('docs');
afterAll(() => tmp.cleanup());

/** A scratch copy of the repository's examples and integrations, and an environment with the executables on PATH. */
function workspace(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tmp.make('repo');
  copyTree(repoPath('kptfile-examples'), join(dir, 'kptfile-examples'));
  copyTree(repoPath('integrations'), join(dir, 'integrations'));
  return { dir, env: binDir(tmp.make('bin')).env };
}

describe('functions/render-valkey/README.md, "Plain files"', () => {
  it('every line runs as written; the files and the stdin form print the same documents', async () => {
    const script = shBlockAfter('functions/render-valkey/README.md', '### Plain files');
    const { dir, env } = workspace();
    const r = await run('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', script], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'all.yaml'), 'utf8')).toMatch(/kind: StatefulSet/);
    // Two renders of the same objects, one after the other: each starts with the first document's `---`.
    const documents = r.stdout.split(/^(?=---\n)/m);
    expect(documents.length % 2).toBe(0);
    const files = documents.slice(0, documents.length / 2);
    const stdin = documents.slice(documents.length / 2);
    expect([...stdin].sort()).toEqual([...files].sort());
    expect(files.join('')).toMatch(/kind: StatefulSet/);
    expect(r.stderr.match(/rendered 2 clusters into 14 objects/g)).toHaveLength(2);
  });

  it('files joined without `---` fail with a report that says how to join them', async () => {
    const { dir, env } = workspace();
    const base = join(dir, 'integrations/kustomize/base');
    expect(existsSync(join(base, 'menu.yaml'))).toBe(true);
    const r = await run('sh', ['-c', 'cat menu.yaml clusters.yaml | render-valkey --config ../legacy-exec/render-config.yaml -'], {
      cwd: base,
      env,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('as when files are joined without a `---` line between them');
  });
});

describe('docs/reference.md, "When something is wrong"', () => {
  it('the example report is what render-valkey prints for an image below the floor', async () => {
    const readme = readFileSync(repoPath('docs/reference.md'), 'utf8');
    const example = /^```text\n\$ (render-valkey kptfile-examples\/tshirt-sizes)[^\n]*\n([\s\S]*?)^```$/m.exec(readme);
    expect(example).not.toBeNull();
    const { dir, env } = workspace();
    const images = join(dir, 'kptfile-examples/tshirt-sizes/images.yaml');
    writeFileSync(images, readFileSync(images, 'utf8').replaceAll('"9.0.1"', '"9.0.0"'));
    const r = await run('sh', ['-c', example?.[1] as string], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(example?.[2]);
  });
});

describe('functions/validate-valkey/README.md', () => {
  it('the plain-files example prints what the README shows', async () => {
    const readme = readFileSync(repoPath('functions/validate-valkey/README.md'), 'utf8');
    const example = /^\$ (validate-valkey kptfile-examples\/dev-and-prod)\n([^\n]*\n)/m.exec(readme);
    expect(example).not.toBeNull();
    const { dir, env } = workspace();
    const r = await run('sh', ['-c', example?.[1] as string], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(example?.[2]);
  });
});

describe('README.md, the quickstart', () => {
  it('the package of "2. Write a package" renders and validates with the commands of "3. Render it", as written', async () => {
    const readme = readFileSync(repoPath('README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## 2. Write a package'), readme.indexOf('## 3. Render it'));
    const files = [...section.matchAll(/^```yaml\n# ([a-z-]+\.yaml)\n([\s\S]*?)^```$/gm)];
    expect(files.map((m) => m[1])).toEqual(['menu.yaml', 'clusters.yaml', 'render-config.yaml']);
    const dir = tmp.make('quickstart');
    for (const m of files) writeFileSync(join(dir, m[1] as string), m[2] as string);
    const { env } = workspace();
    const r = await run('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', shBlockAfter('README.md', '## 3. Render it')], {
      cwd: dir,
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('render-valkey: 0 errors, 0 warnings, 0 infos; rendered 1 cluster into 10 objects');
    expect(r.stderr).toContain('validate-valkey: 0 errors, 0 warnings, 0 infos; valid: 1 image, 2 configs, 1 role, 1 cluster');
    expect(r.stdout).toMatch(/^kind: StatefulSet$/m);
  });
});
