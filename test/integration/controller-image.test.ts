// The controller's Deployment (deploy/controller/deployment.yaml) run from the image built with
// podman, as the kubelet would run its container: the image's command and args from the
// Deployment, its non-root user and group (plus fsGroup), a read-only root filesystem, every
// capability dropped, the password Secret mounted as a directory (mode 0440, group fsGroup),
// the ServiceAccount's token mounted where in-cluster config reads it, and the POD_* variables.
// Against the test API server (test/harness/apiserver.ts), with the controller's RBAC.
//
// --network host, for this test only: the API server listens on the host's loopback (its
// serving certificate is for 127.0.0.1), which a container on a network of its own cannot
// reach. So the probe port is a free one instead of the Deployment's 8080, which other
// processes on the host may hold.
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { prepareWorld, type World } from '../support/controller/api-world.js';
import { startApiServer, type ApiServer } from '../support/apiserver.js';
import { freePort, waitFor } from '../support/process.js';
import { BUILD_TIMEOUT_MS, buildImage, podman, type BuiltImage } from '../support/podman.js';
import { tempDirs } from '../support/files.js';
import { repoPath } from '../support/paths.js';

interface Container {
  name: string;
  image: string;
  command: string[];
  args: string[];
  env: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  readinessProbe: { httpGet: { path: string } };
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean; capabilities: { drop: string[] } };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  securityContext: { runAsNonRoot: boolean; runAsUser: number; runAsGroup: number; fsGroup: number };
  containers: Container[];
  volumes: { name: string; secret?: { defaultMode: number; items: { key: string; path: string }[] } }[];
}

const deployment = parseAllDocuments(readFileSync(repoPath('deploy/controller/deployment.yaml'), 'utf8'))
  .map((d) => d.toJS() as { kind: string; metadata: { namespace: string }; spec: { template: { spec: PodSpec } } })
  .find((o) => o.kind === 'Deployment');
if (!deployment) throw new Error('deploy/controller/deployment.yaml holds no Deployment');
const pod = deployment.spec.template.spec;
const container = pod.containers[0] as Container;
const passwordMount = container.volumeMounts[0];
const passwordVolume = pod.volumes.find((v) => v.name === passwordMount?.name)?.secret;

const tmp = tempDirs('controller-image');
let built: BuiltImage;
let api: ApiServer;
let world: World;
const name = `valkey-krm-controller-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  [built, api] = await Promise.all([buildImage(), startApiServer()]);
  world = await prepareWorld(api);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await podman(built, ['rm', '--force', '--time', '0', name]).catch(() => undefined);
  world?.cleanup();
  await api?.stop();
  tmp.cleanup();
});

/** The Secret volume as the kubelet writes it: one file per item, its defaultMode, group fsGroup. */
function secretVolume(password: string): string {
  const dir = tmp.make('secret');
  chmodSync(dir, 0o755);
  // The Deployment mounts the whole Secret (its `key`, docs/security.md); items, where listed, name the files.
  for (const item of passwordVolume?.items ?? [{ path: 'key' }]) {
    const file = join(dir, item.path);
    writeFileSync(file, password);
    chownSync(file, 0, pod.securityContext.fsGroup);
    chmodSync(file, passwordVolume?.defaultMode ?? 0o644);
  }
  return dir;
}

/** The ServiceAccount token volume: token, ca.crt and namespace, where in-cluster config reads them. */
function serviceAccountVolume(): string {
  const dir = tmp.make('serviceaccount');
  chmodSync(dir, 0o755);
  const kubeconfig = JSON.parse(readFileSync(world.controllerKubeconfig, 'utf8')) as { users: { user: { token: string } }[] };
  writeFileSync(join(dir, 'token'), kubeconfig.users[0]?.user.token ?? '');
  copyFileSync(api.caCertPath, join(dir, 'ca.crt'));
  writeFileSync(join(dir, 'namespace'), deployment?.metadata.namespace ?? '');
  for (const f of ['token', 'ca.crt', 'namespace']) chmodSync(join(dir, f), 0o644);
  return dir;
}

describe("the controller's Deployment, run from the image", () => {
  it('starts as its non-root user on a read-only root filesystem, reaches the API server and serves /readyz', async () => {
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    const port = await freePort();
    const args = container.args.map((a) => (a.startsWith('--http-address=') ? `--http-address=127.0.0.1:${port}` : a));
    expect(args).not.toEqual(container.args);
    const podEnv: Record<string, string> = {
      'metadata.name': 'valkey-status-sync-7d9f8b6c5-x2x4q',
      'metadata.namespace': deployment?.metadata.namespace ?? '',
    };
    const env = container.env.map((e) => `${e.name}=${podEnv[e.valueFrom?.fieldRef?.fieldPath ?? ''] ?? ''}`);
    const apiUrl = new URL(api.url);

    const [entrypoint, ...commandArgs] = container.command as [string, ...string[]];
    const started = await podman(built, [
      'run',
      '--detach',
      '--name',
      name,
      '--network',
      'host',
      '--user',
      `${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`,
      '--group-add',
      String(pod.securityContext.fsGroup),
      '--read-only',
      '--read-only-tmpfs=false',
      '--cap-drop',
      'all',
      '--security-opt',
      'no-new-privileges',
      '--volume',
      `${secretVolume('controller-password-for-tests\n')}:${passwordMount?.mountPath}:ro`,
      '--volume',
      `${serviceAccountVolume()}:/var/run/secrets/kubernetes.io/serviceaccount:ro`,
      '--env',
      `KUBERNETES_SERVICE_HOST=${apiUrl.hostname}`,
      '--env',
      `KUBERNETES_SERVICE_PORT=${apiUrl.port}`,
      ...env.flatMap((e) => ['--env', e]),
      '--entrypoint',
      entrypoint,
      built.image,
      ...commandArgs,
      ...args,
    ]);
    expect(started.code, started.stderr).toBe(0);

    const logs = async () => (await podman(built, ['logs', name])).stderr;
    const status = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`).catch(() => undefined))?.status;
    await waitFor(
      `${container.readinessProbe.httpGet.path} answering 200`,
      async () => (await status(container.readinessProbe.httpGet.path)) === 200,
      {
        timeoutMs: 30_000,
      },
    ).catch(async (e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\ncontainer logs:\n${await logs()}`);
    });
    expect(await status('/healthz')).toBe(200);
    const inspect = await podman(built, ['inspect', '--format', '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}', name]);
    expect(inspect.stdout.trim()).toBe(`${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup} true`);
    // It reached the API server as its ServiceAccount: it holds the Lease, and nothing was denied.
    const lease = await api.request(
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/${deployment?.metadata.namespace}/leases/valkey-status-sync`,
    );
    expect(lease.status, lease.body).toBe(200);
    expect((JSON.parse(lease.body) as { spec: { holderIdentity?: string } }).spec.holderIdentity).toBe(podEnv['metadata.name']);
    expect(await logs()).not.toMatch(/forbidden|: 403 /i);

    // SIGTERM, as the kubelet stops a pod: a clean exit.
    const stopped = await podman(built, ['stop', '--time', '20', name], { timeoutMs: 30_000 });
    expect(stopped.code, stopped.stderr).toBe(0);
    const exit = await podman(built, ['inspect', '--format', '{{.State.ExitCode}}', name]);
    expect(exit.stdout.trim()).toBe('0');
  });
});
