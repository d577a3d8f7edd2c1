// render-valkey under the real kustomize: the KRM exec function form with standalone kustomize
// (built from its Go module by scripts/build-tools.sh, cached outside the repo), and the legacy
// exec plugin form with plain `kubectl kustomize` (kubectl's built-in kustomize).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTools } from '../support/apiserver.js';
import { run } from '../support/exec.js';
import { binDir, copyTree, lowerImageVersion, tempDirs } from '../support/files.js';
import { countKinds, idOf, isGenerated, type KubeObject } from '../support/objects.js';
import { repoPath } from '../support/paths.js';
import { renderPlain } from '../support/render.js';
import { parseObjects } from '../support/yaml-docs.js';

const KUSTOMIZE_DIR = repoPath('integrations/kustomize');
const PLUGIN = join(KUSTOMIZE_DIR, 'plugin/valkey.gomomento.com/v1alpha1/valkeyrenderconfig/ValkeyRenderConfig');

const tmp = tempDirs('kustomize');
let env: NodeJS.ProcessEnv;
let kustomize: string;

beforeAll(async () => {
  env = binDir(tmp.make('bin')).env;
  // The first run on a machine builds kustomize (and the API server tools) from source.
  kustomize = process.env.KUSTOMIZE ?? (await ensureTools()).kustomize;
}, 60 * 60_000);
afterAll(() => tmp.cleanup());

const standalone = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => run(kustomize, args, { env: { ...env, ...extraEnv } });
const kubectl = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => run('kubectl', args, { env: { ...env, ...extraEnv } });
const pluginEnv = (home = join(KUSTOMIZE_DIR, 'plugin')) => ({ KUSTOMIZE_PLUGIN_HOME: home });

/** What render-valkey's plain-files mode makes of the same inputs: the reference output. */
async function renderReference(): Promise<KubeObject[]> {
  const r = await renderPlain([
    '--config',
    join(KUSTOMIZE_DIR, 'legacy-exec/render-config.yaml'),
    join(KUSTOMIZE_DIR, 'base/menu.yaml'),
    join(KUSTOMIZE_DIR, 'base/clusters.yaml'),
  ]);
  expect(r.code, r.stderr).toBe(0);
  return parseObjects(r.stdout);
}

/** The reference output, rendered once for every test that compares against it. */
let referenceOnce: Promise<KubeObject[]> | undefined;
const reference = (): Promise<KubeObject[]> => (referenceOnce ??= renderReference());

const byId = (objects: readonly KubeObject[]) => new Map(objects.map((o) => [idOf(o), o]));

/** The build output: the menu and clusters as they were, plus everything the function generates. */
async function expectRendered(stdout: string): Promise<KubeObject[]> {
  const objects = parseObjects(stdout);
  const expected = await reference();
  expect(countKinds(objects)).toEqual(countKinds(expected));
  const got = byId(objects);
  for (const want of expected.filter(isGenerated)) expect(got.get(idOf(want)), idOf(want)).toEqual(want);
  // No local config, and none of kpt's or kustomize's bookkeeping annotations.
  expect(objects.map((o) => o.kind)).not.toContain('ValkeyRenderConfig');
  expect(stdout).not.toMatch(
    /config\.kubernetes\.io\/(path|index|function|local-config)|internal\.config\.kubernetes\.io|kustomize\.config\.k8s\.io\/id/,
  );
  return objects;
}

describe('KRM exec function: kustomize build --enable-alpha-plugins --enable-exec', () => {
  it('renders the resources of the kustomization as a transformer', async () => {
    const r = await standalone(['build', '--enable-alpha-plugins', '--enable-exec', join(KUSTOMIZE_DIR, 'krm-exec')]);
    expect(r.code, r.stderr).toBe(0);
    const objects = await expectRendered(r.stdout);
    expect(countKinds(objects)).toMatchObject({
      ValkeyCluster: 2,
      StatefulSet: 3,
      PodDisruptionBudget: 3,
      Service: 2,
      ConfigMap: 4,
      NetworkPolicy: 2,
    });
  });

  it("an overlay's labels and annotations reach the generated objects", async () => {
    const r = await standalone(['build', '--enable-alpha-plugins', '--enable-exec', join(KUSTOMIZE_DIR, 'krm-exec-overlay')]);
    expect(r.code, r.stderr).toBe(0);
    const generated = parseObjects(r.stdout).filter(isGenerated);
    expect(generated.length).toBe(14);
    for (const o of generated) {
      expect(o.metadata.labels?.['example.com/owner'], idOf(o)).toBe('platform');
      expect(o.metadata.annotations?.['example.com/rendered-by'], idOf(o)).toBe('kustomize');
    }
  });

  it('an error fails the build with the function report, and prints no objects', async () => {
    const dir = brokenCopy();
    const r = await standalone(['build', '--enable-alpha-plugins', '--enable-exec', join(dir, 'krm-exec')]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('ValkeyImage valkey-9-0: spec.version: must be at least 9.0.1');
  });

  it('LIMIT: without --enable-exec (and always under kubectl kustomize) the function is skipped silently', async () => {
    for (const r of [
      await standalone(['build', '--enable-alpha-plugins', join(KUSTOMIZE_DIR, 'krm-exec')]),
      await kubectl(['kustomize', '--enable-alpha-plugins', join(KUSTOMIZE_DIR, 'krm-exec')]),
    ]) {
      expect(r.code, r.stderr).toBe(0);
      const objects = parseObjects(r.stdout);
      expect(objects.filter(isGenerated)).toEqual([]);
      expect(countKinds(objects)).toEqual({ ValkeyImage: 1, ValkeyConfig: 2, ValkeyRole: 1, ValkeyCluster: 2 });
    }
  });

  it('LIMIT: as a generator it never sees `resources:` (kustomize#5502), so it renders nothing', async () => {
    const dir = copyTree(KUSTOMIZE_DIR, join(tmp.make('generator'), 'kustomize'));
    writeFileSync(
      join(dir, 'krm-exec/kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base\ngenerators:\n  - render-valkey.yaml\n',
    );
    const r = await standalone(['build', '--enable-alpha-plugins', '--enable-exec', join(dir, 'krm-exec')]);
    expect(r.code, r.stderr).toBe(0);
    expect(parseObjects(r.stdout).filter(isGenerated)).toEqual([]);
  });
});

describe('legacy exec plugin: KUSTOMIZE_PLUGIN_HOME/valkey.gomomento.com/v1alpha1/valkeyrenderconfig/ValkeyRenderConfig', () => {
  it('the plugin is executable in the repository (kustomize refuses it otherwise)', () => {
    expect(statSync(PLUGIN).mode & 0o111).toBe(0o111);
  });

  it('kubectl kustomize --enable-alpha-plugins renders, byte-identical to the KRM exec form', async () => {
    const legacy = await kubectl(['kustomize', '--enable-alpha-plugins', join(KUSTOMIZE_DIR, 'legacy-exec')], pluginEnv());
    expect(legacy.code, legacy.stderr).toBe(0);
    await expectRendered(legacy.stdout);
    const krm = await standalone(['build', '--enable-alpha-plugins', '--enable-exec', join(KUSTOMIZE_DIR, 'krm-exec')]);
    expect(legacy.stdout).toBe(krm.stdout);
  });

  it('standalone kustomize runs the same plugin', async () => {
    const r = await standalone(['build', '--enable-alpha-plugins', join(KUSTOMIZE_DIR, 'legacy-exec')], pluginEnv());
    expect(r.code, r.stderr).toBe(0);
    await expectRendered(r.stdout);
  });

  it('an error fails the build with the function report, and prints no objects', async () => {
    const dir = brokenCopy();
    const r = await kubectl(['kustomize', '--enable-alpha-plugins', join(dir, 'legacy-exec')], pluginEnv(join(dir, 'plugin')));
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('ValkeyImage valkey-9-0: spec.version: must be at least 9.0.1');
    expect(r.stderr).toContain('nothing was rendered');
  });

  it("an error names the object, not a document of kustomize's stream, and the file with originAnnotations", async () => {
    const dir = brokenCopy();
    const plain = await kubectl(['kustomize', '--enable-alpha-plugins', join(dir, 'legacy-exec')], pluginEnv(join(dir, 'plugin')));
    expect(plain.stderr).not.toContain('<stdin>');
    expect(plain.stderr).toContain('  object: ValkeyImage valkey-9-0 (document 1 on stdin)');
    // The cause first: the image below the floor, then the clusters it breaks.
    const errors = plain.stderr.split('\n').filter((l) => /^\s*error: /.test(l));
    expect(errors[0]).toContain('ValkeyImage valkey-9-0: spec.version: must be at least 9.0.1');
    expect(errors.slice(1).every((l) => l.includes('caused by'))).toBe(true);

    for (const form of ['legacy-exec', 'krm-exec']) {
      writeFileSync(
        join(dir, form, 'kustomization.yaml'),
        `${readFileSync(join(dir, form, 'kustomization.yaml'), 'utf8')}buildMetadata: [originAnnotations]\n`,
      );
    }
    const legacy = await kubectl(['kustomize', '--enable-alpha-plugins', join(dir, 'legacy-exec')], pluginEnv(join(dir, 'plugin')));
    const krm = await standalone(['build', '--enable-alpha-plugins', '--enable-exec', join(dir, 'krm-exec')]);
    for (const r of [legacy, krm]) {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/error: ValkeyImage valkey-9-0: spec\.version: [^\n]*\n\s*in \.\.\/base\/menu\.yaml\n/);
    }
  });

  it('without --enable-alpha-plugins kustomize refuses the plugin instead of skipping it', async () => {
    const r = await kubectl(['kustomize', join(KUSTOMIZE_DIR, 'legacy-exec')], pluginEnv());
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('external plugins disabled');
  });
});

/** A copy of integrations/kustomize whose image is below the version floor. */
function brokenCopy(): string {
  const dir = copyTree(KUSTOMIZE_DIR, join(tmp.make('broken'), 'kustomize'));
  lowerImageVersion(join(dir, 'base/menu.yaml'));
  return dir;
}
