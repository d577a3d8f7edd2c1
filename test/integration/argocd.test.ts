// The Argo CD Config Management Plugin (integrations/argocd/plugin.yaml), run exactly as
// argocd-cmp-server runs it (cmpserver/plugin/plugin.go): the repository unpacked into a work
// dir without execute bits, the generate command with the Application's source directory as
// working directory, the sidecar's environment plus the build variables and ARGOCD_ENV_*.
// No Argo CD runs here; the install patch is checked by building it with the real kubectl kustomize.
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../support/exec.js';
import { binDir, copyTree, lowerImageVersion, tempDirs } from '../support/files.js';
import { countKinds, idOf, isGenerated, type KubeObject } from '../support/objects.js';
import { repoPath } from '../support/paths.js';
import { renderPlain } from '../support/render.js';
import { parseObjects } from '../support/yaml-docs.js';

interface Command {
  command: string[];
  args?: string[];
}
interface PluginConfig {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  // Argo CD's Find embeds a Command: `find.command` is the argv list itself.
  spec: {
    version: string;
    discover: { fileName?: string; find?: { glob?: string } & Partial<Command> };
    generate: Command;
    init?: Command;
  };
}

const ARGOCD_DIR = repoPath('integrations/argocd');
const plugin = parse(readFileSync(join(ARGOCD_DIR, 'plugin.yaml'), 'utf8')) as PluginConfig;

const tmp = tempDirs('argocd');
let sidecarPath: string;

beforeAll(() => {
  // The sidecar image has render-valkey on PATH (Dockerfile); here the bin dir plays that part.
  sidecarPath = binDir(tmp.make('bin')).env.PATH as string;
});
afterAll(() => tmp.cleanup());

/** Strips execute bits, as the repo server's tarball transfer does (argo-cd#9647). */
function withoutExecuteBits(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) withoutExecuteBits(full);
    else chmodSync(full, 0o644);
  }
}

/** A repository as the CMP server unpacks it: the package at valkey/<name>, and an unrelated app. */
function workDir(pkg = 'team-clusters'): { workDir: string; appPath: string } {
  const root = tmp.make('work');
  const appPath = join(root, 'valkey', pkg);
  copyTree(repoPath('kptfile-examples', pkg), appPath);
  mkdirSync(join(root, 'other-app'), { recursive: true });
  writeFileSync(join(root, 'other-app', 'deployment.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n');
  withoutExecuteBits(root);
  return { workDir: root, appPath };
}

/** The environment the CMP server gives a command: its own, then the request's entries (empty values dropped). */
function cmpEnv(appEnv: Record<string, string> = {}): NodeJS.ProcessEnv {
  const entries: Record<string, string> = {
    ARGOCD_APP_NAME: 'valkey-clusters',
    ARGOCD_APP_NAMESPACE: 'payments',
    ARGOCD_APP_PROJECT_NAME: 'default',
    ARGOCD_APP_REVISION: '0123456789abcdef0123456789abcdef01234567',
    ARGOCD_APP_REVISION_SHORT: '0123456',
    ARGOCD_APP_SOURCE_PATH: 'valkey/team-clusters',
    ARGOCD_APP_SOURCE_REPO_URL: 'https://github.com/example/platform-config.git',
    ARGOCD_APP_SOURCE_TARGET_REVISION: 'main',
    KUBE_VERSION: '1.32.4',
    KUBE_API_VERSIONS: 'v1,apps/v1,policy/v1',
    ...Object.fromEntries(Object.entries(appEnv).map(([k, v]) => [`ARGOCD_ENV_${k}`, v])),
  };
  const sidecar = { PATH: sidecarPath, HOME: '/home/argocd' };
  return { ...sidecar, ...Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== '')) };
}

const runCommand = (c: Command, cwd: string, env: NodeJS.ProcessEnv) =>
  run(c.command[0] as string, [...c.command.slice(1), ...(c.args ?? [])], { cwd, env });
const generate = (appPath: string, appEnv: Record<string, string> = {}) => runCommand(plugin.spec.generate, appPath, cmpEnv(appEnv));

/** Argo CD's view of stdout: YAML documents, each a Kubernetes object (kube.SplitYAMLToString). */
function manifests(stdout: string): KubeObject[] {
  const objects = parseObjects(stdout);
  for (const o of objects) {
    expect(typeof o.apiVersion, JSON.stringify(o).slice(0, 200)).toBe('string');
    expect(typeof o.kind).toBe('string');
    expect(typeof o.metadata?.name).toBe('string');
  }
  return objects;
}

describe('plugin.yaml', () => {
  it('is a ConfigManagementPlugin with discovery and a generate command', () => {
    expect(plugin).toMatchObject({ apiVersion: 'argoproj.io/v1alpha1', kind: 'ConfigManagementPlugin', metadata: { name: 'valkey-krm' } });
    expect(plugin.spec.generate.command.length).toBeGreaterThan(0);
    expect(plugin.spec.discover.find?.command?.length).toBeGreaterThan(0);
  });

  it('the example Application names the plugin as Argo CD does (<name>-<version>) and sets only variables the plugin reads', () => {
    const app = parse(readFileSync(join(ARGOCD_DIR, 'application.yaml'), 'utf8')) as {
      spec: { source: { plugin: { name: string; env: { name: string }[] } } };
    };
    expect(app.spec.source.plugin.name).toBe(`${plugin.metadata.name}-${plugin.spec.version}`);
    const script = plugin.spec.generate.command.join(' ');
    for (const { name } of app.spec.source.plugin.env) expect(script).toContain(`ARGOCD_ENV_${name}`);
  });
});

describe('discover, as the CMP server runs it in the source directory', () => {
  it('claims a directory with a ValkeyRenderConfig and nothing else', async () => {
    const { workDir: root, appPath } = workDir();
    const find = plugin.spec.discover.find as Command;
    const yes = await runCommand(find, appPath, cmpEnv());
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stdout.trim()).not.toBe('');
    const no = await runCommand(find, join(root, 'other-app'), cmpEnv());
    expect(no.code, no.stderr).toBe(0);
    expect(no.stdout).toBe('');
  });
});

describe('generate, as the CMP server runs it', () => {
  let expected: KubeObject[];

  beforeAll(async () => {
    const r = await renderPlain([repoPath('kptfile-examples/team-clusters')]);
    expect(r.code, r.stderr).toBe(0);
    expected = parseObjects(r.stdout);
  });

  it('prints only Kubernetes objects on stdout and its report on stderr', async () => {
    const { appPath } = workDir();
    const r = await generate(appPath);
    expect(r.code, r.stderr).toBe(0);
    const objects = manifests(r.stdout);
    expect(objects).toEqual(expected);
    expect(countKinds(objects.filter(isGenerated))).toEqual({
      ConfigMap: 4,
      Service: 2,
      StatefulSet: 5,
      PodDisruptionBudget: 5,
      NetworkPolicy: 2,
      Certificate: 1,
    });
    // Local config is read, never applied.
    expect(objects.map((o) => o.kind)).not.toEqual(expect.arrayContaining(['Kptfile']));
    expect(objects.map((o) => o.kind)).not.toContain('ValkeyRenderConfig');
    expect(objects.map((o) => o.kind)).not.toContain('ResourceList');
    expect(r.stderr).toBe('render-valkey: 0 errors, 0 warnings, 0 infos; rendered 2 clusters into 19 objects\n');
  });

  it("leaves out kpt's inventory (kpt live init's resourcegroup.yaml), which is not the package's to apply", async () => {
    const { appPath } = workDir();
    const init = await run('kpt', ['live', 'init', appPath, '--namespace', 'valkey']);
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(join(appPath, 'resourcegroup.yaml'), 'utf8')).toContain('kind: ResourceGroup');
    const r = await generate(appPath);
    expect(r.code, r.stderr).toBe(0);
    expect(manifests(r.stdout)).toEqual(expected);
  });

  it('takes RENDER_CONFIG and RENDER_PATHS from the Application (ARGOCD_ENV_*)', async () => {
    const { appPath } = workDir();
    const r = await generate(appPath, { RENDER_CONFIG: 'render-config.yaml', RENDER_PATHS: 'platform teams' });
    expect(r.code, r.stderr).toBe(0);
    expect(manifests(r.stdout)).toEqual(expected);
  });

  it('a package that kpt has rendered and committed gives the same manifests, without duplicates', async () => {
    const { appPath } = workDir();
    const kpt = await run('kpt', ['fn', 'render', '--allow-exec', appPath], { env: { ...process.env, PATH: sidecarPath } });
    expect(kpt.code, kpt.stderr).toBe(0);
    withoutExecuteBits(appPath);
    const r = await generate(appPath);
    expect(r.code, r.stderr).toBe(0);
    const objects = manifests(r.stdout);
    expect(new Set(objects.map(idOf)).size).toBe(objects.length);
    expect(objects).toEqual(expected);
  });

  it.each([
    ['an invalid menu', (appPath: string) => breakImage(appPath), {}, 1, 'must be at least 9.0.1'],
    ['a missing render config', () => undefined, { RENDER_CONFIG: 'missing.yaml' }, 1, 'cannot read the render config missing.yaml'],
    [
      'a path outside the application',
      () => undefined,
      { RENDER_PATHS: '. ../../other-app' },
      2,
      'must be relative paths inside the application directory',
    ],
    ...([['--config=/etc/passwd .'], ['plan --base=/ .'], ['. --help'], ['link-out']] as const).map(
      ([paths]) =>
        [
          `RENDER_PATHS "${paths}"`,
          (appPath: string) => symlinkSync('/', join(appPath, 'link-out')),
          { RENDER_PATHS: paths },
          2,
          'must be relative paths inside the application directory',
        ] as const,
    ),
    ['RENDER_CONFIG "--help"', () => undefined, { RENDER_CONFIG: '--help' }, 2, 'must be relative paths inside the application directory'],
    [
      'an absolute render config',
      () => undefined,
      { RENDER_CONFIG: '/etc/passwd' },
      2,
      'must be relative paths inside the application directory',
    ],
  ] as const)('%s: non-zero exit, empty stdout, the reason on stderr', async (_what, breakIt, appEnv, code, message) => {
    const { appPath } = workDir();
    breakIt(appPath);
    const r = await generate(appPath, appEnv);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
  });
});

// The sidecar image is Alpine: its sh, find, grep and head are BusyBox's, which lack GNU
// options (grep --include, for one). Where BusyBox is installed, run the commands with nothing else.
const busybox = ['/usr/bin/busybox', '/bin/busybox'].find((p) => existsSync(p));
describe.runIf(busybox)('discover and generate with only BusyBox tools on PATH, as in the Alpine image', () => {
  it('claims the package and renders it', async () => {
    const bin = tmp.make('busybox');
    for (const applet of ['sh', 'find', 'grep', 'head', 'realpath']) symlinkSync(busybox as string, join(bin, applet));
    symlinkSync(process.execPath, join(bin, 'node'));
    symlinkSync(repoPath('dist/render-valkey.cjs'), join(bin, 'render-valkey'));
    const { appPath } = workDir();
    const env = { PATH: bin, ARGOCD_ENV_RENDER_CONFIG: 'render-config.yaml' };
    const find = await runCommand(plugin.spec.discover.find as Command, appPath, env);
    expect(find).toMatchObject({ code: 0, stdout: './render-config.yaml\n' });
    const r = await runCommand(plugin.spec.generate, appPath, env);
    expect(r.code, r.stderr).toBe(0);
    expect(manifests(r.stdout).filter(isGenerated).length).toBe(19);
  });
});

function breakImage(appPath: string): void {
  lowerImageVersion(join(appPath, 'platform/images.yaml'));
}

describe('the argocd-repo-server install (kustomize Component), built with kubectl kustomize', () => {
  it('adds the sidecar with the CMP server, user 999, the shared volumes and the plugin config', async () => {
    const root = tmp.make('install');
    copyTree(ARGOCD_DIR, join(root, 'argocd'));
    // A stand-in for argocd-repo-server from Argo CD's install.yaml: the volumes the sidecar shares.
    writeFileSync(
      join(root, 'argocd-repo-server.yaml'),
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: argocd-repo-server',
        'spec:',
        '  selector: {matchLabels: {app.kubernetes.io/name: argocd-repo-server}}',
        '  template:',
        '    metadata: {labels: {app.kubernetes.io/name: argocd-repo-server}}',
        '    spec:',
        '      containers:',
        '        - name: argocd-repo-server',
        '          image: quay.io/argoproj/argocd:v3.1.0',
        '      volumes:',
        '        - name: var-files',
        '          emptyDir: {}',
        '        - name: plugins',
        '          emptyDir: {}',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(root, 'kustomization.yaml'),
      'namespace: argocd\nresources:\n  - argocd-repo-server.yaml\ncomponents:\n  - argocd\n',
    );
    const r = await run('kubectl', ['kustomize', root]);
    expect(r.code, r.stderr).toBe(0);
    const objects = parseObjects(r.stdout);

    const configMap = objects.find((o) => o.kind === 'ConfigMap') as KubeObject & { data: Record<string, string> };
    expect(configMap.metadata.name).toBe('valkey-krm-cmp-plugin');
    expect(configMap.data['plugin.yaml']).toBe(readFileSync(join(ARGOCD_DIR, 'plugin.yaml'), 'utf8'));

    type Container = {
      name: string;
      command?: string[];
      securityContext?: { runAsUser?: number; runAsNonRoot?: boolean };
      volumeMounts: { name: string; mountPath: string; subPath?: string }[];
    };
    const pod = (
      objects.find((o) => o.kind === 'Deployment') as KubeObject & {
        spec: { template: { spec: { containers: Container[]; volumes: { name: string; configMap?: { name: string } }[] } } };
      }
    ).spec.template.spec;
    expect(pod.containers.map((c) => c.name).sort()).toEqual(['argocd-repo-server', 'valkey-krm']);
    const sidecar = pod.containers.find((c) => c.name === 'valkey-krm') as Container;
    expect(sidecar.command).toEqual(['/var/run/argocd/argocd-cmp-server']);
    expect(sidecar.securityContext).toMatchObject({ runAsUser: 999, runAsNonRoot: true });
    const mounts = Object.fromEntries(sidecar.volumeMounts.map((m) => [m.mountPath, m]));
    expect(mounts['/var/run/argocd']?.name).toBe('var-files');
    expect(mounts['/home/argocd/cmp-server/plugins']?.name).toBe('plugins');
    expect(mounts['/home/argocd/cmp-server/config/plugin.yaml']).toMatchObject({ subPath: 'plugin.yaml' });
    expect(mounts['/tmp']).toBeDefined();
    const volumes = new Set(pod.volumes.map((v) => v.name));
    for (const m of sidecar.volumeMounts) expect(volumes.has(m.name), m.name).toBe(true);
    expect(pod.volumes.find((v) => v.name === mounts['/home/argocd/cmp-server/config/plugin.yaml']?.name)?.configMap?.name).toBe(
      'valkey-krm-cmp-plugin',
    );
  });
});
