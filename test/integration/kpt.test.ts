// The example packages under the real `kpt` (v1.0.0-beta.56 on this machine): `kpt fn render`
// with the Kptfile's `exec:` pipeline, and `kpt fn eval --exec`, always on temp copies.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../support/exec.js';
import { binDir, changedFiles, copyTree, lowerImageVersion, snapshot, tempDirs } from '../support/files.js';
import { namespacePassword } from '../../src/controller/valkey/controller-credentials.js';
import { sha256 } from '../support/hash.js';
import { countKinds, expectedKinds, isGenerated, type KubeObject } from '../support/objects.js';
import { examplePackages, repoPath } from '../support/paths.js';
import { renderPlain } from '../support/render.js';
import { packageObjects, parseObjects } from '../support/yaml-docs.js';

const tmp = tempDirs('kpt');
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  env = binDir(tmp.make('bin')).env;
});
afterAll(() => tmp.cleanup());

const kpt = (args: string[], cwd?: string) => run('kpt', args, { env, cwd });
/** `kpt fn eval <dir> --exec <fn> <rest...>`: one of this repository's functions on a package. */
const fnEvalExec = (dir: string, fn: 'render-valkey' | 'validate-valkey', ...rest: string[]) =>
  kpt(['fn', 'eval', dir, '--exec', fn, ...rest]);

interface PackageFacts {
  outputDir: string;
  clusters: { name: string; namespace: string; shards: number; clientCertificates: number; file: string }[];
  imagesFile: string;
}

function factsOf(dir: string): PackageFacts {
  const objects = packageObjects(dir);
  const renderConfig = objects.find((o) => o.object.kind === 'ValkeyRenderConfig');
  const image = objects.find((o) => o.object.kind === 'ValkeyImage');
  if (!renderConfig || !image) throw new Error(`${dir}: no render config or no image`);
  const spec = renderConfig.object.spec as { outputDir?: string };
  return {
    outputDir: spec.outputDir ?? 'rendered',
    clusters: objects
      .filter((o) => o.object.kind === 'ValkeyCluster')
      .map(({ file, object }) => ({
        name: object.metadata.name,
        namespace: object.metadata.namespace ?? 'default',
        shards: (object.spec as { shards: number }).shards,
        clientCertificates:
          (object.spec as { tls?: { clientCertificates?: { users: string[] } } }).tls?.clientCertificates?.users.length ?? 0,
        file,
      })),
    imagesFile: image.file,
  };
}

function copyPackage(name: string): string {
  return copyTree(repoPath('kptfile-examples', name), join(tmp.make(name), name));
}

/** A fresh `--results-dir` for kpt, and the FunctionResultList kpt writes there. */
function resultsDir(): { dir: string; read(): FunctionResultList } {
  const dir = join(tmp.make('results'), 'out');
  return { dir, read: () => parse(readFileSync(join(dir, 'results.yaml'), 'utf8')) as FunctionResultList };
}

/** Removes the YAML document that defines `kind` `name` from a multi-document file. */
function removeDocument(file: string, kind: string, name: string): void {
  const docs = readFileSync(file, 'utf8').split(/^---\n/m);
  const kept = docs.filter((d) => !(new RegExp(`^kind: ${kind}$`, 'm').test(d) && new RegExp(`^  name: ${name}$`, 'm').test(d)));
  expect(kept.length, `${file} holds ${kind} ${name}`).toBe(docs.length - 1);
  writeFileSync(file, kept.join('---\n'));
}

/** Renders a package whose image is below the version floor: kpt must fail and change nothing. */
async function expectFailedRender(dir: string, facts: PackageFacts): Promise<void> {
  const before = snapshot(dir);
  const results = resultsDir();

  const r = await kpt(['fn', 'render', '--allow-exec', '--truncate-output=false', '--results-dir', results.dir, dir]);
  expect(r.code).not.toBe(0);
  expect(changedFiles(before, snapshot(dir))).toEqual({ added: [], removed: [], changed: [] });
  expect(r.stderr).toContain('[FAIL] "render-valkey"');
  expect(r.stderr).toMatch(/\[error\] valkey\.gomomento\.com\/v1alpha1\/ValkeyImage\/valkey-9-0 spec\.version: .*must be at least 9\.0\.1/);

  const list = results.read();
  expect(list).toMatchObject({ apiVersion: 'kpt.dev/v1', kind: 'FunctionResultList', exitCode: 1 });
  expect(list.items).toHaveLength(1);
  expect(list.items[0]).toMatchObject({ exec: 'render-valkey', exitCode: 1 });
  expect(list.items[0]?.results).toContainEqual(
    expect.objectContaining({
      severity: 'error',
      resourceRef: { apiVersion: 'valkey.gomomento.com/v1alpha1', kind: 'ValkeyImage', name: 'valkey-9-0' },
      field: { path: 'spec.version' },
      file: { path: facts.imagesFile },
    }),
  );
}

describe.each(examplePackages())('kpt fn render --allow-exec on a copy of kptfile-examples/%s', (name) => {
  let dir: string;
  let facts: PackageFacts;
  let original: Map<string, string>;

  beforeAll(() => {
    dir = copyPackage(name);
    facts = factsOf(dir);
    original = snapshot(dir);
  });

  it('writes one file per cluster under the output directory and leaves every other file byte-identical', async () => {
    const r = await kpt(['fn', 'render', '--allow-exec', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('[PASS] "render-valkey"');

    const after = snapshot(dir);
    const diff = changedFiles(original, after);
    expect(diff.removed).toEqual([]);
    expect(diff.changed).toEqual([]);
    expect(diff.added).toEqual(facts.clusters.map((c) => `${facts.outputDir}/${c.namespace}/${c.name}.yaml`).sort());

    for (const c of facts.clusters) {
      const text = after.get(`${facts.outputDir}/${c.namespace}/${c.name}.yaml`) as string;
      // The file says it is generated, at its top, where people open it.
      expect(
        text.startsWith(`# GENERATED by render-valkey from ValkeyCluster ${c.namespace}/${c.name}: do not edit.`),
        text.slice(0, 120),
      ).toBe(true);
      expect(text.match(/# GENERATED by render-valkey/g)).toHaveLength(1);
      const objects = parseObjects(text);
      expect(countKinds(objects)).toEqual(expectedKinds(c.shards, c.clientCertificates));
      for (const o of objects) {
        expect(isGenerated(o)).toBe(true);
        expect(o.metadata.labels?.['app.kubernetes.io/instance']).toBe(c.name);
        expect(o.metadata.namespace).toBe(c.namespace);
      }
      // kpt consumes the path/index annotations; none of kpt's bookkeeping reaches git.
      expect(text).not.toMatch(/config\.kubernetes\.io\/(path|index)|internal\.config\.kubernetes\.io|config\.k8s\.io\/id/);
    }
  });

  it('a second render changes nothing', async () => {
    const before = snapshot(dir);
    const r = await kpt(['fn', 'render', '--allow-exec', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(changedFiles(before, snapshot(dir))).toEqual({ added: [], removed: [], changed: [] });
  });

  it("an invalid menu fails the render, leaves every file untouched and shows the function's results", async () => {
    const imagesFile = join(dir, facts.imagesFile);
    const good = lowerImageVersion(imagesFile);
    try {
      await expectFailedRender(dir, facts);
    } finally {
      writeFileSync(imagesFile, good);
    }
  });

  it('removing a cluster and rendering deletes its file and nothing else', async () => {
    const gone = facts.clusters[facts.clusters.length - 1]!;
    const kept = facts.clusters.filter((c) => c !== gone);
    removeDocument(join(dir, gone.file), 'ValkeyCluster', gone.name);
    const before = snapshot(dir);

    const r = await kpt(['fn', 'render', '--allow-exec', dir]);
    expect(r.code, r.stderr).toBe(0);
    const diff = changedFiles(before, snapshot(dir));
    expect(diff).toEqual({ added: [], removed: [`${facts.outputDir}/${gone.namespace}/${gone.name}.yaml`], changed: [] });
    expect(kept.length).toBeGreaterThan(0);
  });
});

interface FunctionResultList {
  apiVersion: string;
  kind: string;
  exitCode: number;
  items: { exec?: string; image?: string; exitCode: number; stderr?: string; results?: Record<string, unknown>[] }[];
}

describe('kpt pass-through is byte-exact', () => {
  // Formatting a hand-written file may carry; render-valkey must hand all of it back as is.
  const TRICKY = [
    '# Head comment of the file.',
    '',
    '# Head comment of the first object.',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    "  name: 'quoted-name'",
    '  namespace: "checkout"',
    '  annotations: {owner: team-checkout, "tier": gold}',
    'data:',
    '  zip: "01234"',
    '  octal: "012"',
    '  date: "2021-01-01"',
    '  yes: "yes"',
    '  version: "9.0.1"',
    '  list: "[a, b]"',
    '  block: |',
    '    line one',
    '      indented line',
    '  folded: >-',
    '    folded',
    '    text',
    '  spaced: x   # three spaces before this comment',
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata: {name: second, namespace: checkout}',
    'data:',
    '  # a comment inside a map',
    '  b: "2"',
    '  a: "1"   # keys stay in this order',
    '',
  ].join('\n');

  it("render-valkey hands back every file exactly as an identity function does; only kpt's own reader normalises a little", async () => {
    const withFn = copyPackage('tshirt-sizes');
    const withCat = copyPackage('tshirt-sizes');
    for (const dir of [withFn, withCat]) writeFileSync(join(dir, 'tricky.yaml'), TRICKY);
    const kptfile = join(withCat, 'Kptfile');
    writeFileSync(kptfile, readFileSync(kptfile, 'utf8').replace('- exec: render-valkey', '- exec: cat'));

    const a = await kpt(['fn', 'render', '--allow-exec', withFn]);
    const b = await kpt(['fn', 'render', '--allow-exec', withCat]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);

    const fn = snapshot(withFn);
    const cat = snapshot(withCat);
    for (const [file, text] of cat) {
      if (file === 'Kptfile') continue;
      expect(fn.get(file), file).toBe(text);
    }
    // What kpt's own reader changes, whatever the function (measured with kpt 1.0.0-beta.56):
    // blank lines between head comments, folded scalars, the spaces before a line comment.
    // Everything else (quotes, flow style, key order, comments) survives. Documented in
    // functions/render-valkey/README.md (Limits); update both if kpt changes.
    const tricky = fn.get('tricky.yaml') as string;
    expect(tricky).toBe(
      TRICKY.replace('file.\n\n# Head', 'file.\n# Head')
        .replace('  folded: >-\n    folded\n    text\n', '  folded: "folded text"\n')
        .replace('x   # three', 'x # three')
        .replace('"1"   # keys', '"1" # keys'),
    );
    expect(fn.get('Kptfile')).toBe(readFileSync(repoPath('kptfile-examples/tshirt-sizes/Kptfile'), 'latin1'));
  });
});

describe('kpt fn eval --exec', () => {
  it('renders with --fn-config and writes a FunctionResultList to --results-dir', async () => {
    const dir = copyPackage('tshirt-sizes');
    const before = snapshot(dir);
    const results = resultsDir();
    const r = await fnEvalExec(dir, 'render-valkey', '--fn-config', join(dir, 'render-config.yaml'), '--results-dir', results.dir);
    expect(r.code, r.stderr).toBe(0);
    const diff = changedFiles(before, snapshot(dir));
    expect(diff).toEqual({ added: ['rendered/checkout/sessions.yaml', 'rendered/search/catalog.yaml'], removed: [], changed: [] });
    expect(results.read()).toMatchObject({
      apiVersion: 'kpt.dev/v1',
      kind: 'FunctionResultList',
      exitCode: 0,
      items: [{ exec: 'render-valkey', exitCode: 0 }],
    });
  });

  it('takes the render config as key=value pairs (the ConfigMap form)', async () => {
    const dir = copyPackage('tshirt-sizes');
    rmSync(join(dir, 'render-config.yaml'));
    const config = parse(readFileSync(repoPath('kptfile-examples/tshirt-sizes/render-config.yaml'), 'utf8')) as {
      spec: { systemUsers: { replication: { passwordHash: string }; controller: { namespaces: Record<string, string[]> } } };
    };
    const namespaces = Object.entries(config.spec.systemUsers.controller.namespaces);
    const r = await fnEvalExec(
      dir,
      'render-valkey',
      '--',
      'outputDir=manifests',
      `systemUsers.replication.passwordHash=${config.spec.systemUsers.replication.passwordHash}`,
      ...namespaces.map(([ns, hashes]) => `systemUsers.controller.namespaces.${ns}=${hashes.join(',')}`),
    );
    expect(r.code, r.stderr).toBe(0);
    expect([...snapshot(dir).keys()].filter((f) => f.startsWith('manifests/'))).toEqual([
      'manifests/checkout/sessions.yaml',
      'manifests/search/catalog.yaml',
    ]);
  });

  it('validate-valkey reports through kpt and never writes a file', async () => {
    const dir = copyPackage('team-clusters');
    const ok = await fnEvalExec(dir, 'validate-valkey', '--fn-config', join(dir, 'render-config.yaml'));
    expect(ok.code, ok.stderr).toBe(0);
    const teams = join(dir, 'teams/search.yaml');
    writeFileSync(teams, readFileSync(teams, 'utf8').replace('shards: 2', 'shards: 0'));
    const before = snapshot(dir);
    const results = resultsDir();
    const bad = await fnEvalExec(dir, 'validate-valkey', '--fn-config', join(dir, 'render-config.yaml'), '--results-dir', results.dir);
    expect(bad.code).not.toBe(0);
    expect(changedFiles(before, snapshot(dir))).toEqual({ added: [], removed: [], changed: [] });
    expect(results.read().items[0]?.results).toContainEqual(
      expect.objectContaining({ severity: 'error', field: { path: 'spec.shards' }, file: { path: 'teams/search.yaml' } }),
    );
  });

  // kpt sends `ConfigMap function-input` with `data: {}` when no function config is given; the
  // function then uses the package's one ValkeyRenderConfig, as when no function config arrives.
  it('without --fn-config, uses the one ValkeyRenderConfig of the package', async () => {
    const dir = copyPackage('tshirt-sizes');
    const r = await fnEvalExec(dir, 'render-valkey');
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('the example packages themselves', () => {
  it.each(examplePackages())(
    '%s: a README, an exec pipeline with the image form documented, local render config, images >= 9.0.1',
    (name) => {
      const dir = repoPath('kptfile-examples', name);
      const objects = packageObjects(dir);
      const kptfileText = readFileSync(join(dir, 'Kptfile'), 'utf8');
      const kptfile = parse(kptfileText) as {
        metadata: { name: string };
        pipeline: { mutators: { exec?: string; configPath?: string }[] };
      };
      expect(kptfile.metadata.name).toBe(name);
      expect(kptfile.pipeline.mutators).toEqual([{ exec: 'render-valkey', configPath: 'render-config.yaml' }]);
      expect(kptfileText).toMatch(/#\s+- image: \S+valkey-krm:\S+\n\s*#\s+configPath: render-config\.yaml/);
      expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/image:/);

      const renderConfig = parse(readFileSync(join(dir, 'render-config.yaml'), 'utf8')) as KubeObject;
      expect(renderConfig.kind).toBe('ValkeyRenderConfig');
      expect(renderConfig.metadata.annotations?.['config.kubernetes.io/local-config']).toBe('true');

      const images = objects.filter((o) => o.object.kind === 'ValkeyImage');
      expect(images.length).toBeGreaterThan(0);
      for (const { object } of images) {
        const version = (object.spec as { version: string }).version.split('.').map(Number) as [number, number, number];
        expect(version[0] * 1e6 + version[1] * 1e3 + version[2], object.metadata.name).toBeGreaterThanOrEqual(9_000_001);
      }
    },
  );

  it.each(examplePackages())('%s: every password hash is the SHA-256 of an example password its README lists', (name) => {
    const dir = repoPath('kptfile-examples', name);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const text = [...snapshot(dir).entries()]
      .filter(([f]) => /\.ya?ml$/.test(f))
      .map(([, t]) => t)
      .join('\n');
    // An example key (the controller's) stands for the password it derives for each namespace of the package.
    const namespaces = [...new Set([...text.matchAll(/^\s+namespace: ([a-z0-9-]+)$/gm)].map((m) => m[1] as string))];
    const passwords = [...readme.matchAll(/`(example-[a-z0-9-]+)`/g)]
      .map((m) => m[1] as string)
      .flatMap((p) => (p.endsWith('-key') ? namespaces.map((ns) => namespacePassword(p, ns)) : [p]));
    const known = new Map(passwords.map((p) => [sha256(p), p]));
    const hashes = [...text.matchAll(/\b[0-9a-f]{64}\b/g)].map((m) => m[0]);
    expect(hashes.length).toBeGreaterThan(0);
    for (const h of hashes) expect(known.has(h), `${h} in ${name} is not the hash of an example password listed in its README`).toBe(true);
  });

  it.each(examplePackages())('%s renders cleanly in plain-files mode: no errors, no warnings', async (name) => {
    const r = await renderPlain([repoPath('kptfile-examples', name)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^render-valkey: 0 errors, 0 warnings, 0 infos; rendered \d+ clusters into \d+ objects\n$/);
    const objects = parseObjects(r.stdout);
    expect(objects.filter(isGenerated).length).toBeGreaterThan(0);
    expect(objects.map((o) => o.kind)).not.toContain('Kptfile');
    expect(objects.map((o) => o.kind)).not.toContain('ValkeyRenderConfig');
  });
});
