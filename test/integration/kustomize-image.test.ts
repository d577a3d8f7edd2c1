// kustomize's KRM container form: integrations/kustomize/krm-exec with the function annotation's
// `exec: {path: render-valkey}` turned into `container: {image: <the image built with podman>}`,
// under the real standalone kustomize. kustomize runs the container with the `docker` on PATH
// (`docker run --rm -i -a STDIN -a STDOUT -a STDERR --network none --user nobody
// --security-opt=no-new-privileges -e LOG_TO_STDERR=true -e STRUCTURED_RESULTS=true IMAGE`);
// a `docker` shim that execs podman, first on PATH, runs it with podman (this machine's own
// /usr/local/bin/docker is a CLI without a daemon). Compared with the exec form, byte for byte.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTools } from '../support/apiserver.js';
import { BUILD_TIMEOUT_MS, buildImage, type BuiltImage } from '../support/podman.js';
import { run } from '../support/exec.js';
import { binDir, copyTree, lowerImageVersion, tempDirs } from '../support/files.js';
import { isGenerated } from '../support/objects.js';
import { repoPath } from '../support/paths.js';
import { parseObjects } from '../support/yaml-docs.js';

const tmp = tempDirs('kustomize-image');
let built: BuiltImage;
let kustomize: string;
let env: NodeJS.ProcessEnv;
let dockerLog: string;

beforeAll(async () => {
  [built, kustomize] = await Promise.all([buildImage(), process.env.KUSTOMIZE ?? ensureTools().then((t) => t.kustomize)]);
  const bin = binDir(tmp.make('bin'));
  dockerLog = join(bin.dir, 'docker.log');
  writeFileSync(join(bin.dir, 'docker'), `#!/bin/sh\necho "docker $*" >> '${dockerLog}'\nexec podman "$@"\n`);
  chmodSync(join(bin.dir, 'docker'), 0o755);
  env = { ...bin.env, CONTAINERS_CONF: built.env.CONTAINERS_CONF };
}, BUILD_TIMEOUT_MS);
afterAll(() => tmp.cleanup());

/** A copy of integrations/kustomize with krm-exec as it is and krm-container running the image. */
function copies(): { exec: string; container: string } {
  const root = copyTree(repoPath('integrations/kustomize'), join(tmp.make('kustomize'), 'kustomize'));
  const container = copyTree(join(root, 'krm-exec'), join(root, 'krm-container'));
  const config = join(container, 'render-valkey.yaml');
  const text = readFileSync(config, 'utf8');
  const exec = '      exec:\n        path: render-valkey\n';
  expect(text).toContain(exec);
  writeFileSync(config, text.replace(exec, `      container:\n        image: ${built.image}\n`));
  return { exec: join(root, 'krm-exec'), container };
}

const build = (dir: string, ...flags: string[]) => run(kustomize, ['build', '--enable-alpha-plugins', ...flags, dir], { env });

describe('kustomize build --enable-alpha-plugins with the image as a container function (docker shim to podman)', () => {
  it('renders byte-identical output to the exec form, through docker run --network none --user nobody', async () => {
    const dirs = copies();
    const byContainer = await build(dirs.container);
    const byExec = await build(dirs.exec, '--enable-exec');
    expect(byContainer.code, byContainer.stderr).toBe(0);
    expect(byExec.code, byExec.stderr).toBe(0);
    expect(byContainer.stdout).toBe(byExec.stdout);
    expect(parseObjects(byContainer.stdout).filter(isGenerated).length).toBeGreaterThan(0);
    expect(readFileSync(dockerLog, 'utf8')).toMatch(new RegExp(`^docker run .*--network none --user nobody .*${built.image}$`, 'm'));
  });

  it('an invalid menu fails the build: non-zero, nothing on stdout, the reason on stderr', async () => {
    const dirs = copies();
    lowerImageVersion(join(dirs.container, '../base/menu.yaml'));
    const r = await build(dirs.container);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('must be at least 9.0.1');
  });
});
