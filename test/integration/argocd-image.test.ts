// The Argo CD Config Management Plugin in the image, as the repo-server's sidecar runs it
// (integrations/argocd/repo-server-patch.yaml): the plugin's discover and generate commands
// (plugin.yaml) in the image built with podman, as user 999 with every capability dropped, the
// unpacked repository mounted, the Application's source directory as working directory,
// ARGOCD_ENV_* set, and no network. Compared with the same commands run on the host with the
// built bundles on PATH (the exec form of test/integration/argocd.test.ts).
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BUILD_TIMEOUT_MS, buildImage, podman, type BuiltImage } from '../support/podman.js';
import { run, type Ran } from '../support/exec.js';
import { binDir, copyTree, lowerImageVersion, tempDirs } from '../support/files.js';
import { isGenerated } from '../support/objects.js';
import { repoPath } from '../support/paths.js';
import { parseObjects } from '../support/yaml-docs.js';

interface Command {
  command: string[];
  args?: string[];
}
const plugin = parse(readFileSync(repoPath('integrations/argocd/plugin.yaml'), 'utf8')) as {
  spec: { discover: { find: Command }; generate: Command };
};
const sidecar = (
  parse(readFileSync(repoPath('integrations/argocd/repo-server-patch.yaml'), 'utf8')) as {
    spec: { template: { spec: { containers: { name: string; securityContext: { runAsUser: number } }[] } } };
  }
).spec.template.spec.containers.find((c) => c.name === 'valkey-krm');
if (!sidecar || !(sidecar.securityContext.runAsUser > 0))
  throw new Error('repo-server-patch.yaml: no valkey-krm sidecar with a non-root runAsUser');
const SIDECAR_USER = sidecar.securityContext.runAsUser;

const tmp = tempDirs('argocd-image');
let built: BuiltImage;
let hostPath: string;

beforeAll(async () => {
  built = await buildImage();
  hostPath = binDir(tmp.make('bin')).env.PATH as string;
}, BUILD_TIMEOUT_MS);
afterAll(() => tmp.cleanup());

/** Where the CMP server unpacks a repository in the sidecar (its own /tmp). */
const REPO_IN_SIDECAR = '/tmp/_cmp_server/0123abcd';

/** The repository as the CMP server unpacks it: files without execute bits, owned by another user than the sidecar's. */
function unpackedRepo(pkg = 'team-clusters'): { root: string; appPath: string } {
  const root = tmp.make('repo');
  const appPath = join(root, 'valkey', pkg);
  copyTree(repoPath('kptfile-examples', pkg), appPath);
  mkdirSync(join(root, 'other-app'), { recursive: true });
  writeFileSync(join(root, 'other-app', 'deployment.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n');
  const walk = (dir: string): void => {
    chmodSync(dir, 0o755);
    for (const entry of readdirSync(dir)) {
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else chmodSync(full, 0o644);
    }
  };
  walk(root);
  return { root, appPath };
}

/** The variables the CMP server sets, then the Application's ARGOCD_ENV_* (empty values dropped). */
function cmpVariables(appEnv: Record<string, string>): Record<string, string> {
  const all: Record<string, string> = {
    ARGOCD_APP_NAME: 'valkey-clusters',
    ARGOCD_APP_NAMESPACE: 'payments',
    ARGOCD_APP_SOURCE_PATH: 'valkey/team-clusters',
    ARGOCD_APP_REVISION: '0123456789abcdef0123456789abcdef01234567',
    KUBE_VERSION: '1.32.4',
    ...Object.fromEntries(Object.entries(appEnv).map(([k, v]) => [`ARGOCD_ENV_${k}`, v])),
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== ''));
}

/** A plugin command in the sidecar image. */
function inSidecar(c: Command, repo: { root: string }, cwd: string, appEnv: Record<string, string> = {}): Promise<Ran> {
  const [entrypoint, ...rest] = [...c.command, ...(c.args ?? [])] as [string, ...string[]];
  return podman(built, [
    'run',
    '--rm',
    '--network',
    'none',
    '--user',
    `${SIDECAR_USER}:${SIDECAR_USER}`,
    '--cap-drop',
    'all',
    '--security-opt',
    'no-new-privileges',
    '--volume',
    `${repo.root}:${REPO_IN_SIDECAR}`,
    '--workdir',
    join(REPO_IN_SIDECAR, relative(repo.root, cwd)),
    ...Object.entries({ HOME: '/home/argocd', ...cmpVariables(appEnv) }).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    '--entrypoint',
    entrypoint,
    built.image,
    ...rest,
  ]);
}

/** The same command on the host, with the built bundles on PATH. */
function onHost(c: Command, cwd: string, appEnv: Record<string, string> = {}): Promise<Ran> {
  const [cmd, ...rest] = [...c.command, ...(c.args ?? [])] as [string, ...string[]];
  return run(cmd, rest, { cwd, env: { PATH: hostPath, HOME: '/home/argocd', ...cmpVariables(appEnv) } });
}

describe('the Argo CD plugin sidecar: discover and generate in the image, without network', () => {
  it('discover claims the package directory and no other', async () => {
    const repo = unpackedRepo();
    const yes = await inSidecar(plugin.spec.discover.find, repo, repo.appPath);
    expect(yes).toMatchObject({ code: 0, stdout: './render-config.yaml\n' });
    const no = await inSidecar(plugin.spec.discover.find, repo, join(repo.root, 'other-app'));
    expect(no).toMatchObject({ code: 0, stdout: '' });
  });

  it.each([
    ['by default', {}],
    ['with RENDER_CONFIG and RENDER_PATHS from the Application', { RENDER_CONFIG: 'render-config.yaml', RENDER_PATHS: 'platform teams' }],
  ])('generate %s prints the same manifests as the exec form, byte for byte', async (_how, appEnv) => {
    const repo = unpackedRepo();
    const byImage = await inSidecar(plugin.spec.generate, repo, repo.appPath, appEnv);
    const byExec = await onHost(plugin.spec.generate, repo.appPath, appEnv);
    expect(byImage.code, byImage.stderr).toBe(0);
    expect(byExec.code, byExec.stderr).toBe(0);
    expect(byImage.stdout).toBe(byExec.stdout);
    expect(byImage.stderr).toBe(byExec.stderr);
    expect(parseObjects(byImage.stdout).filter(isGenerated).length).toBe(19);
  });

  it('an invalid menu fails the sync: non-zero, nothing on stdout, the reason on stderr, as the exec form', async () => {
    const repo = unpackedRepo();
    lowerImageVersion(join(repo.appPath, 'platform/images.yaml'));
    const byImage = await inSidecar(plugin.spec.generate, repo, repo.appPath);
    const byExec = await onHost(plugin.spec.generate, repo.appPath);
    expect(byImage.code).toBe(1);
    expect(byImage.stdout).toBe('');
    expect(byImage.stderr).toContain('must be at least 9.0.1');
    expect(byImage).toEqual(byExec);
  });
});
