// The images a real node runs, built on this machine (no registry is reachable) and saved as
// docker-archive tarballs for `ctr images import` into the node's containerd:
//
//   pause    registry.k8s.io/pause:3.10 (what containerd 1.6 asks for as the pod sandbox): a
//            static binary compiled from pause.c next to this file, alone in the image
//   valkey   docker.io/valkey/valkey:<build> from ../shared/valkey/<build>/: valkey-server and
//            valkey-cli, BusyBox as /bin/sh (the rendered probes run `sh`), the shared libraries
//            they load, /etc/passwd with uid 999 (the rendered pods' runAsUser)
//   project  localhost/valkey-krm:<hash> from scripts/build-image.sh (the controller Deployment)
//
// Each archive is named by a hash of its inputs under ~/.cache/valkey-krm/node-images, so a
// second run imports what the first built.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { run } from '../exec.js';
import { buildImage, podman, type BuiltImage } from '../podman.js';
import { valkeyCliPath, valkeyServerPath, type ValkeyBuild } from '../valkey.js';

export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
/** The reference a ValkeyImage `{repository: valkey/valkey, tag: <build>}` renders, as containerd names it. */
export const valkeyImageRef = (tag: string): string => `docker.io/valkey/valkey:${tag}`;

const CACHE = process.env.VALKEY_KRM_NODE_IMAGE_DIR ?? join(homedir(), '.cache/valkey-krm/node-images');
const PAUSE_C = join(import.meta.dirname, 'pause.c');
const BUSYBOX = '/bin/busybox';
const BUSYBOX_APPLETS = ['sh', 'ls', 'cat', 'ps', 'id', 'env', 'sleep', 'echo', 'grep', 'head', 'tail', 'wc', 'kill', 'hostname'];

export interface ImageArchive {
  ref: string;
  path: string;
}

const hashOf = (parts: readonly (string | Buffer)[]): string => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex').slice(0, 16);
};

async function must(what: string, cmd: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const r = await run(cmd, args, { timeoutMs: 10 * 60_000, ...(env ? { env } : {}) });
  if (r.code !== 0) throw new Error(`${what}: ${cmd} ${args.join(' ')} exited ${r.code}\n${r.stderr.slice(-3000)}`);
  return r.stdout;
}

/** The shared libraries `binaries` load, at their absolute paths (ldd's view). */
async function sharedLibraries(binaries: readonly string[]): Promise<string[]> {
  const out = await must('ldd', 'ldd', binaries);
  const libs = new Set<string>();
  for (const line of out.split('\n')) {
    const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s+(\/\S+)\s+\(/.exec(line);
    if (m?.[1]) libs.add(m[1]);
  }
  return [...libs].sort();
}

/** podman import of a root filesystem directory, then podman save as a docker archive at `out`. */
async function importAndSave(built: BuiltImage, rootfs: string, ref: string, changes: readonly string[], out: string): Promise<void> {
  const tar = `${out}.rootfs.tar`;
  await must('tar', 'tar', ['-C', rootfs, '--numeric-owner', '-cf', tar, '.']);
  const changeArgs = changes.flatMap((c) => ['--change', c]);
  const imp = await podman(built, ['import', ...changeArgs, tar, ref], { timeoutMs: 5 * 60_000 });
  if (imp.code !== 0) throw new Error(`podman import ${ref}: ${imp.stderr}`);
  const tmp = `${out}.tmp`;
  await rm(tmp, { force: true });
  const save = await podman(built, ['save', '--format', 'docker-archive', '-o', tmp, ref], { timeoutMs: 5 * 60_000 });
  if (save.code !== 0) throw new Error(`podman save ${ref}: ${save.stderr}`);
  await rename(tmp, out);
  await rm(tar, { force: true });
}

async function cached(name: string, hash: string, make: (out: string) => Promise<void>): Promise<string> {
  await mkdir(CACHE, { recursive: true });
  const out = join(CACHE, `${name}-${hash}.tar`);
  if (existsSync(out)) return out;
  await make(out);
  return out;
}

export async function pauseImage(built: BuiltImage): Promise<ImageArchive> {
  const path = await cached('pause', hashOf([readFileSync(PAUSE_C), PAUSE_IMAGE]), async (out) => {
    const root = await mkdtemp(join(tmpdir(), 'valkey-krm-pause-'));
    try {
      await must('gcc (the pause binary)', 'gcc', ['-static', '-O2', '-o', join(root, 'pause'), PAUSE_C]);
      await importAndSave(built, root, PAUSE_IMAGE, ['ENTRYPOINT ["/pause"]'], out);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
  return { ref: PAUSE_IMAGE, path };
}

/** A Valkey image of one build from ../shared/valkey, tagged `docker.io/valkey/valkey:<tag>` (default: the build). */
export async function valkeyImage(built: BuiltImage, build: ValkeyBuild, tag: string = build): Promise<ImageArchive> {
  const ref = valkeyImageRef(tag);
  const server = valkeyServerPath(build);
  const cli = valkeyCliPath(build);
  const inputs = [readFileSync(server), readFileSync(cli), readFileSync(BUSYBOX), ref, BUSYBOX_APPLETS.join(',')];
  const path = await cached(`valkey-${tag}`, hashOf(inputs), async (out) => {
    const root = await mkdtemp(join(tmpdir(), 'valkey-krm-valkey-image-'));
    try {
      for (const d of ['usr/local/bin', 'bin', 'etc', 'data', 'tmp']) await mkdir(join(root, d), { recursive: true });
      for (const [from, to] of [
        [server, 'usr/local/bin/valkey-server'],
        [cli, 'usr/local/bin/valkey-cli'],
        [BUSYBOX, 'bin/busybox'],
      ] as const) {
        await copyFile(from, join(root, to));
        await chmod(join(root, to), 0o755);
      }
      for (const a of BUSYBOX_APPLETS) await symlink('busybox', join(root, 'bin', a));
      for (const lib of await sharedLibraries([server, cli, BUSYBOX])) {
        await mkdir(join(root, dirname(lib)), { recursive: true });
        await copyFile(lib, join(root, lib));
      }
      await writeFile(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nvalkey:x:999:999:valkey:/data:/bin/sh\n');
      await writeFile(join(root, 'etc/group'), 'root:x:0:\nvalkey:x:999:\n');
      await chmod(join(root, 'tmp'), 0o1777);
      await must('chown /data', 'chown', ['999:999', join(root, 'data')]);
      await importAndSave(
        built,
        root,
        ref,
        ['ENV PATH=/usr/local/bin:/usr/bin:/bin', 'WORKDIR /data', 'USER 999:999', 'CMD ["valkey-server"]', 'EXPOSE 6379'],
        out,
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
  return { ref, path };
}

/** The project's image (scripts/build-image.sh, cached), saved as an archive. */
export async function projectImage(built: BuiltImage): Promise<ImageArchive> {
  const path = await cached('valkey-krm', hashOf([built.image]), async (out) => {
    const tmp = `${out}.tmp`;
    await rm(tmp, { force: true });
    const save = await podman(built, ['save', '--format', 'docker-archive', '-o', tmp, built.image], { timeoutMs: 5 * 60_000 });
    if (save.code !== 0) throw new Error(`podman save ${built.image}: ${save.stderr}`);
    await rename(tmp, out);
  });
  return { ref: built.image, path };
}

export interface NodeImages {
  built: BuiltImage;
  archives: ImageArchive[];
  /** localhost/valkey-krm:<hash>, the controller's image. */
  project: string;
}

/** Every image a real-node suite needs: the sandbox, Valkey 9.1.2 (and the extra tags asked for), the project's. */
export async function nodeImages(extra: readonly { build: ValkeyBuild; tag: string }[] = []): Promise<NodeImages> {
  const built = await buildImage();
  const archives = [await pauseImage(built), await valkeyImage(built, '9.1.2')];
  for (const e of extra) archives.push(await valkeyImage(built, e.build, e.tag));
  const project = await projectImage(built);
  archives.push(project);
  return { built, archives, project: project.ref };
}
