// The Flux recipe (integrations/flux): Flux runs no plugins, so CI renders and commits. The
// sample GitHub Actions workflow's own `run:` steps are executed here with bash, in a real git
// clone with a real (bare) remote; only the image behind RENDER_VALKEY is swapped for the local
// bundle. The committed output is then built the way kustomize-controller builds a path.
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../support/exec.js';
import { binDir, copyTree, lowerImageVersion, tempDirs } from '../support/files.js';
import { countKinds, isGenerated, type KubeObject } from '../support/objects.js';
import { repoPath } from '../support/paths.js';
import { parseObjects } from '../support/yaml-docs.js';

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Workflow {
  env: Record<string, string>;
  jobs: Record<string, { steps: Step[]; permissions?: Record<string, string> }>;
}

const FLUX_DIR = repoPath('integrations/flux');
const workflow = parse(readFileSync(join(FLUX_DIR, 'github-actions-workflow.yaml'), 'utf8')) as Workflow;

const tmp = tempDirs('flux');
let env: NodeJS.ProcessEnv;
let remote: string;
let clone: string;

const git = (args: string[], cwd = clone) => run('git', args, { cwd, env });
const head = async (cwd = clone) => (await git(['rev-parse', 'HEAD'], cwd)).stdout.trim();

beforeAll(async () => {
  env = {
    ...binDir(tmp.make('bin')).env,
    GIT_AUTHOR_NAME: 'test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
  const root = tmp.make('git');
  remote = join(root, 'remote.git');
  clone = join(root, 'platform-config');
  expect((await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', remote], { env })).code).toBe(0);
  expect((await run('git', ['clone', '--quiet', remote, clone], { env })).code).toBe(0);
  // The layout the workflow expects: packages under valkey/, the script under .github/scripts/.
  copyTree(repoPath('kptfile-examples/team-clusters'), join(clone, 'valkey/team-clusters'));
  mkdirSync(join(clone, '.github/scripts'), { recursive: true });
  copyTree(join(FLUX_DIR, 'render-and-commit.sh'), join(clone, '.github/scripts/render-and-commit.sh'));
  chmodSync(join(clone, '.github/scripts/render-and-commit.sh'), 0o755);
  await git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
  await git(['add', '.']);
  expect((await git(['commit', '--quiet', '-m', 'packages'])).code).toBe(0);
  expect((await git(['push', '--quiet', 'origin', 'main'])).code).toBe(0);
});
afterAll(() => tmp.cleanup());

/** Runs one job's `run:` steps as GitHub Actions does (bash -e -o pipefail), skipping `uses:` steps. */
async function runJob(job: string): Promise<{ code: number; stderr: string; outputs: string }> {
  const outputs = join(tmp.make('gh'), 'output');
  writeFileSync(outputs, '');
  const jobEnv: NodeJS.ProcessEnv = { ...env, GITHUB_OUTPUT: outputs, GITHUB_WORKSPACE: clone, RUNNER_TEMP: tmp.make('runner') };
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JavaScript template
  for (const [k, v] of Object.entries(workflow.env)) jobEnv[k] = v.replaceAll('${{ github.workspace }}', clone);
  // The image the workflow runs (docker is not available here) is replaced by the local bundle.
  jobEnv.RENDER_VALKEY = 'render-valkey';
  let stderr = '';
  for (const step of workflow.jobs[job]?.steps ?? []) {
    if (!step.run) continue;
    const r = await run('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', step.run], {
      cwd: clone,
      env: { ...jobEnv, ...step.env },
    });
    stderr += r.stderr;
    if (r.code !== 0) return { code: r.code, stderr, outputs: readFileSync(outputs, 'utf8') };
  }
  return { code: 0, stderr, outputs: readFileSync(outputs, 'utf8') };
}

const output = () => join(clone, workflow.env.OUTPUT as string);
const remoteHead = async () => (await run('git', ['rev-parse', 'main'], { cwd: remote, env })).stdout.trim();

describe('the sample workflow and render-and-commit.sh, on a real git repository', () => {
  it('the script is executable in the repository, and the workflow renders with the image and lets only the render job write', () => {
    expect(statSync(join(FLUX_DIR, 'render-and-commit.sh')).mode & 0o111).toBe(0o111);
    expect(workflow.env.RENDER_VALKEY).toMatch(/^docker run --rm -i -v \$\{\{ github\.workspace \}\}:\/src:ro -w \/src \S+valkey-krm:\S+$/);
    expect(workflow.jobs.render?.permissions).toEqual({ contents: 'write' });
    expect(workflow.jobs.check?.permissions).toBeUndefined();
  });

  it('main: renders, commits and pushes the output; the Flux Kustomization path points at it', async () => {
    const before = await head();
    const r = await runJob('render');
    expect(r.code, r.stderr).toBe(0);
    const after = await head();
    expect(after).not.toBe(before);
    expect(await remoteHead()).toBe(after);
    expect(r.outputs).toBe(`revision=${after}\n`);
    expect((await git(['show', '--name-only', '--format=%s', 'HEAD'])).stdout).toBe(
      `valkey-krm: render ${workflow.env.OUTPUT}\n\n${workflow.env.OUTPUT}\n`,
    );

    const flux = parse(readFileSync(join(FLUX_DIR, 'flux-kustomization.yaml'), 'utf8').split(/^---$/m)[1] as string) as {
      spec: { path: string };
    };
    expect(flux.spec.path).toBe(`./${(workflow.env.OUTPUT as string).replace(/\/[^/]+$/, '')}`);
  });

  it('main again with nothing changed: no commit', async () => {
    const before = await head();
    const r = await runJob('render');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('nothing to commit');
    expect(await head()).toBe(before);
  });

  it('pull request: a package change passes and shows what the merge changes (the render job commits it after the merge)', async () => {
    const ok = await runJob('check');
    expect(ok.code, ok.stderr).toBe(0);
    const committed = readFileSync(output(), 'utf8');

    const search = join(clone, 'valkey/team-clusters/teams/search.yaml');
    writeFileSync(search, readFileSync(search, 'utf8').replace('shards: 2', 'shards: 3'));
    await git(['commit', '--quiet', '-am', 'search: a third shard']);
    const changed = await runJob('check');
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).toContain('+  name: suggest-2');
    expect(readFileSync(output(), 'utf8')).toBe(committed);

    // The script's --check mode remains, for repositories whose authors commit the render themselves.
    const stale = await run(join(clone, '.github/scripts/render-and-commit.sh'), ['--check', output(), 'valkey/team-clusters'], {
      cwd: clone,
      env,
    });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('is stale');

    const r = await runJob('render');
    expect(r.code, r.stderr).toBe(0);
    expect((await runJob('check')).code).toBe(0);
  });

  it('pull request: a package that does not render fails the check', async () => {
    const before = await head();
    lowerImageVersion(join(clone, 'valkey/team-clusters/platform/images.yaml'));
    const r = await runJob('check');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('must be at least 9.0.1');
    await git(['reset', '--quiet', '--hard', before]);
  });

  it('a broken menu fails the job, and neither the output nor the remote changes', async () => {
    const before = { head: await head(), remote: await remoteHead(), output: readFileSync(output(), 'utf8') };
    lowerImageVersion(join(clone, 'valkey/team-clusters/platform/images.yaml'));
    await git(['commit', '--quiet', '-am', 'an image below the floor']);
    const committed = await head();

    const r = await runJob('render');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('must be at least 9.0.1');
    expect(r.stderr).toContain('render failed');
    expect(readFileSync(output(), 'utf8')).toBe(before.output);
    expect(await head()).toBe(committed);
    expect(await remoteHead()).toBe(before.remote);
    await git(['reset', '--quiet', '--hard', before.head]);
  });

  it('the committed output builds as kustomize-controller builds a path: objects only, StatefulSets not prunable', async () => {
    const dir = tmp.make('flux-path');
    copyTree(output(), join(dir, 'valkey.yaml'));
    // kustomize-controller generates this when the path has no kustomization.yaml.
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - valkey.yaml\n',
    );
    const r = await run('kubectl', ['kustomize', dir]);
    expect(r.code, r.stderr).toBe(0);
    const objects = parseObjects(r.stdout);
    expect(objects.map((o) => o.kind)).not.toContain('Kptfile');
    expect(objects.map((o) => o.kind)).not.toContain('ValkeyRenderConfig');
    expect(countKinds(objects.filter(isGenerated))).toEqual({
      ConfigMap: 4,
      Service: 2,
      StatefulSet: 6,
      PodDisruptionBudget: 6,
      NetworkPolicy: 2,
      Certificate: 1,
    });
    for (const s of objects.filter((o: KubeObject) => o.kind === 'StatefulSet')) {
      expect(s.metadata.annotations?.['kustomize.toolkit.fluxcd.io/prune']).toBe('disabled');
    }
  });

  it('the alternative, a kpt-rendered package committed as is, builds without its local config', async () => {
    const dir = copyTree(repoPath('kptfile-examples/team-clusters'), join(tmp.make('kpt-path'), 'pkg'));
    const kpt = await run('kpt', ['fn', 'render', '--allow-exec', dir], { env });
    expect(kpt.code, kpt.stderr).toBe(0);
    // What kustomize-controller generates for a path without kustomization.yaml: every YAML file.
    const files = (await run('find', ['.', '-name', '*.yaml'], { cwd: dir })).stdout.split('\n').filter(Boolean).sort();
    writeFileSync(join(dir, 'kustomization.yaml'), `resources:\n${files.map((f) => `  - ${f}\n`).join('')}`);
    const r = await run('kubectl', ['kustomize', dir]);
    expect(r.code, r.stderr).toBe(0);
    const kinds = parseObjects(r.stdout).map((o) => o.kind);
    expect(kinds).not.toContain('ValkeyRenderConfig');
    expect(kinds.filter((k) => k === 'StatefulSet')).toHaveLength(5);
  });

  it('the script refuses to write its output inside a rendered path', async () => {
    const r = await run(join(clone, '.github/scripts/render-and-commit.sh'), ['valkey/team-clusters/all.yaml', 'valkey/team-clusters'], {
      cwd: clone,
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is inside valkey/team-clusters');
  });
});
