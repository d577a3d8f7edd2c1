// validate-valkey fails when the committed render is not what a fresh render writes: an image bump
// committed without `kpt fn render`, a hand edit of a rendered file, a cluster removed whose file
// stayed. Driven through the real kpt (ResourceList mode) and as a plain command over the files.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../support/exec.js';
import { binDir, copyTree, tempDirs } from '../support/files.js';
import { repoPath } from '../support/paths.js';

const tmp = tempDirs('stale-render');
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  env = binDir(tmp.make('bin')).env;
});
afterAll(() => tmp.cleanup());

/** The tshirt-sizes example, rendered by kpt and "committed" (the rendered/ files written). */
async function renderedPackage(name: string): Promise<string> {
  const pkg = copyTree(repoPath('kptfile-examples/tshirt-sizes'), join(tmp.make(name), 'pkg'));
  const r = await run('kpt', ['fn', 'render', '--allow-exec', pkg], { env });
  expect(r.code, r.stderr).toBe(0);
  return pkg;
}

const validate = (pkg: string) => run('validate-valkey', [pkg], { env });
/** render-valkey plan of the package against a copy of itself as the base. */
const planAgainst = (base: string, pkg: string) => run('render-valkey', ['plan', '--base', base, '--fail-on', 'any', pkg], { env });
const kptValidate = (pkg: string) =>
  run('kpt', ['fn', 'eval', '--exec', 'validate-valkey', '--fn-config', join(pkg, 'render-config.yaml'), pkg], { env });

describe('validate-valkey on committed rendered output', () => {
  it('passes on a package as kpt fn render left it, as a command and under kpt', async () => {
    const pkg = await renderedPackage('fresh');
    const plain = await validate(pkg);
    expect(plain.stderr).toMatch(/0 errors/);
    expect(plain.code).toBe(0);
    const kpt = await kptValidate(pkg);
    expect(kpt.code, kpt.stderr).toBe(0);
    // plan reads the committed output as kpt wrote it (its formatting and annotations) and finds it fresh.
    const same = await planAgainst(copyTree(pkg, join(tmp.make('fresh-base'), 'pkg')), pkg);
    expect(same.code, same.stdout + same.stderr).toBe(0);
  });

  it('fails on an image bump committed without re-rendering, naming each stale object and what differs', async () => {
    const pkg = await renderedPackage('bump');
    const images = join(pkg, 'images.yaml');
    writeFileSync(
      images,
      readFileSync(images, 'utf8').replace('tag: "9.0.1"', 'tag: "9.0.2"').replace('version: "9.0.1"', 'version: "9.0.2"'),
    );
    for (const r of [await validate(pkg), await kptValidate(pkg)]) {
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'StatefulSet checkout/sessions-0: the committed output differs from a fresh render: metadata.annotations.valkey.gomomento.com/image-version: "9.0.1" -> "9.0.2"; spec.template.metadata.annotations.valkey.gomomento.com/restart-hash:',
      );
      expect(r.stderr).toContain('spec.template.spec.containers[0].image: "valkey/valkey:9.0.1" -> "valkey/valkey:9.0.2"');
      expect(r.stderr).toContain('data.valkey.conf line 2:');
      expect(r.stderr).toContain('run kpt fn render (or render-valkey over the package) and commit what it writes');
    }
  });

  it('fails on a hand edit of a rendered file, and on a removed cluster whose file was kept', async () => {
    const pkg = await renderedPackage('edit');
    const file = join(pkg, 'rendered/search/catalog.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('maxUnavailable: 1', 'maxUnavailable: 2'));
    const edited = await validate(pkg);
    expect(edited.code).toBe(1);
    // plan against the package as rendered: the edit is what kubectl apply -R would run, so no "unchanged".
    const base = await renderedPackage('edit-base');
    const planned = await planAgainst(base, pkg);
    expect(planned.code).toBe(1);
    expect(planned.stdout + planned.stderr).toMatch(
      /PodDisruptionBudget search\/catalog-0: the committed output differs from a fresh render/,
    );
    expect(edited.stderr).toMatch(
      /PodDisruptionBudget search\/catalog-0: the committed output differs from a fresh render: spec\.maxUnavailable: 2 -> 1/,
    );

    const again = await renderedPackage('removed');
    const clusters = join(again, 'clusters.yaml');
    const docs = readFileSync(clusters, 'utf8').split(/^---\n/m);
    writeFileSync(clusters, docs.filter((d) => !/name: catalog\b/.test(d)).join('---\n'));
    const removed = await validate(again);
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain('StatefulSet search/catalog-0: committed as rendered output, but a fresh render no longer writes it');
    rmSync(join(again, 'rendered/search'), { recursive: true });
    expect((await validate(again)).code).toBe(0);
  });
});

describe('the pull-request workflow (integrations/github-actions/plan-comment.yaml)', () => {
  const step = (() => {
    const workflow = parse(readFileSync(repoPath('integrations/github-actions/plan-comment.yaml'), 'utf8')) as {
      jobs: { plan: { steps: { name?: string; run?: string }[] } };
    };
    const found = workflow.jobs.plan.steps.find((s) => s.name === 'Committed render is fresh');
    expect(found?.run).toBeDefined();
    return found?.run as string;
  })();

  it('its stale-render step passes on a fresh render and fails on an image bump committed without one', async () => {
    const pkg = await renderedPackage('workflow');
    const runStep = () =>
      run('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', step], {
        cwd: join(pkg, '..'),
        env: { ...env, VALIDATE_VALKEY: 'validate-valkey', PACKAGES: 'pkg' },
      });
    expect((await runStep()).code).toBe(0);
    const images = join(pkg, 'images.yaml');
    writeFileSync(images, readFileSync(images, 'utf8').replace('tag: "9.0.1"', 'tag: "9.0.2"'));
    const stale = await runStep();
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('spec.template.spec.containers[0].image: "valkey/valkey:9.0.1" -> "valkey/valkey:9.0.2"');
  });
});
