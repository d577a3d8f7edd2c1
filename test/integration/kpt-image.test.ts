// kpt's `image:` form, run for real: the image built with podman (scripts/build-image.sh) as
// the Kptfile's mutator, with KPT_FN_RUNTIME=podman (kpt runs it as `nobody`, with no network).
// Every outcome is compared with the `exec:` form of test/integration/kpt.test.ts on a twin copy:
// the same files byte for byte, the same failure, the same --results-dir.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, buildImage, type BuiltImage } from '../support/podman.js';
import { run } from '../support/exec.js';
import { binDir, changedFiles, copyTree, lowerImageVersion, snapshot, tempDirs } from '../support/files.js';
import { examplePackages, repoPath } from '../support/paths.js';
import { packageObjects } from '../support/yaml-docs.js';

const tmp = tempDirs('kpt-image');
let built: BuiltImage;
let execEnv: NodeJS.ProcessEnv;
let imageEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  built = await buildImage();
  execEnv = binDir(tmp.make('bin')).env;
  imageEnv = { ...built.env, KPT_FN_RUNTIME: 'podman' };
}, BUILD_TIMEOUT_MS);
afterAll(() => tmp.cleanup());

interface Twin {
  exec: string;
  image: string;
}

/** Two copies of a package: the Kptfile's `exec: render-valkey`, and the same mutator as `image:`. */
function twin(name: string): Twin {
  const exec = copyTree(repoPath('kptfile-examples', name), join(tmp.make(`${name}-exec`), name));
  const image = copyTree(repoPath('kptfile-examples', name), join(tmp.make(`${name}-image`), name));
  const kptfile = join(image, 'Kptfile');
  const text = readFileSync(kptfile, 'utf8');
  expect(text).toContain('- exec: render-valkey\n');
  writeFileSync(kptfile, text.replace('- exec: render-valkey\n', `- image: ${built.image}\n`));
  return { exec, image };
}

interface Rendered {
  code: number;
  /** kpt's report with the function's name and the timings taken out. */
  stderr: string;
  files: Map<string, string>;
  /** results.yaml from --results-dir, with the function's name taken out. */
  results: string;
}

async function render(dir: string, form: 'exec' | 'image'): Promise<Rendered> {
  const resultsDir = join(tmp.make('results'), 'out');
  const args = ['fn', 'render', '--truncate-output=false', '--results-dir', resultsDir, dir];
  const r = form === 'exec' ? await run('kpt', [...args, '--allow-exec'], { env: execEnv }) : await run('kpt', args, { env: imageEnv });
  const unname = (text: string) =>
    text
      .replaceAll(resultsDir, '<results>')
      .replaceAll(dir, '<package>')
      .replaceAll(`image: ${built.image}`, '<function>')
      .replaceAll('exec: render-valkey', '<function>')
      .replaceAll(built.image, '<function>')
      .replaceAll('"render-valkey"', '"<function>"')
      .replace(/ in \d+(\.\d+)?m?s$/gm, ' in <time>');
  const files = snapshot(dir);
  files.delete('Kptfile');
  // kpt drops the final newline of a container function's stderr (podman passes it on: the
  // image's render-valkey ends its report with one, as the exec form does). Hence in its report
  // no empty last line (""), and in results.yaml `stderr: |-` where the exec form has `|`.
  const stderr = unname(r.stderr).replace(/^ {4}""\n(?= {2}Exit code)/m, '');
  const results = unname(readFileSync(join(resultsDir, 'results.yaml'), 'utf8')).replace(/^( +stderr: )\|-$/m, '$1|');
  return { code: r.code, stderr, files, results };
}

describe.each(examplePackages())('kpt fn render with the image as the mutator (KPT_FN_RUNTIME=podman): %s', (name) => {
  let pair: Twin;
  beforeAll(() => {
    pair = twin(name);
  });

  it('writes byte-identical files to the exec form, and the same --results-dir', async () => {
    const byExec = await render(pair.exec, 'exec');
    const byImage = await render(pair.image, 'image');
    expect(byExec.code, byExec.stderr).toBe(0);
    expect(byImage.code, byImage.stderr).toBe(0);
    expect(byImage.stderr).toBe(byExec.stderr);
    expect(byImage.results).toBe(byExec.results);
    expect(byImage.files).toEqual(byExec.files);
    // Not vacuous: the render wrote the clusters' files.
    expect(changedFiles(snapshot(repoPath('kptfile-examples', name)), byImage.files).added.length).toBeGreaterThan(0);
  });

  it('an invalid menu fails the same way: same exit code, same report, same results, nothing written', async () => {
    const imagesFile = packageObjects(pair.exec).find((o) => o.object.kind === 'ValkeyImage')?.file as string;
    for (const dir of [pair.exec, pair.image]) lowerImageVersion(join(dir, imagesFile));
    const before = snapshot(pair.image);
    const byExec = await render(pair.exec, 'exec');
    const byImage = await render(pair.image, 'image');
    expect(byExec.code).toBe(1);
    expect(byImage.code).toBe(byExec.code);
    expect(byImage.stderr).toContain('must be at least 9.0.1');
    expect(byImage.stderr).toBe(byExec.stderr);
    expect(byImage.results).toBe(byExec.results);
    expect(changedFiles(before, snapshot(pair.image))).toEqual({ added: [], removed: [], changed: [] });
  });
});

describe('kpt fn eval --image, as --exec', () => {
  it('renders tshirt-sizes with --fn-config to the same files', async () => {
    const pair = twin('tshirt-sizes');
    const evalArgs = (dir: string) => ['fn', 'eval', dir, '--fn-config', join(dir, 'render-config.yaml')];
    const a = await run('kpt', [...evalArgs(pair.exec), '--exec', 'render-valkey'], { env: execEnv });
    const b = await run('kpt', [...evalArgs(pair.image), '--image', built.image], { env: imageEnv });
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const [fromExec, fromImage] = [snapshot(pair.exec), snapshot(pair.image)];
    for (const s of [fromExec, fromImage]) s.delete('Kptfile');
    expect(fromImage).toEqual(fromExec);
    expect([...fromImage.keys()]).toContain('rendered/checkout/sessions.yaml');
  });
});
