// The project's image, built for real with podman by scripts/build-image.sh (cached: a no-op
// when nothing changed), and podman itself run with the script's CONTAINERS_CONF. A missing
// podman fails the tests that use it: scripts/test-all.sh installs it.
import { execFile } from 'node:child_process';
import { run, type Ran, type RunOptions } from './exec.js';
import { repoPath } from './paths.js';

export interface BuiltImage {
  /** localhost/valkey-krm:<hash of the inputs> */
  image: string;
  /** localhost/valkey-krm-base:<node version>-<hash>: the local base it was built on. */
  base: string;
  /** This process's environment with the CONTAINERS_CONF podman (and kpt's podman) must use. */
  env: NodeJS.ProcessEnv;
  /** The script's last line: the image's size, with and without the base. */
  report: string;
}

/** Cold builds take a minute or two on 2 cores; a cached one returns within a second. */
export const BUILD_TIMEOUT_MS = 15 * 60_000;

let building: Promise<BuiltImage> | undefined;

/** Builds the image once per test file (scripts/build-image.sh locks against parallel files). */
export function buildImage(): Promise<BuiltImage> {
  building ??= new Promise((resolve, reject) => {
    execFile(
      'bash',
      [repoPath('scripts/build-image.sh'), '--print-env'],
      { cwd: repoPath(), timeout: BUILD_TIMEOUT_MS, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`scripts/build-image.sh failed: ${error.message}\n${stderr.slice(-4000)}`));
        const vars = new Map(
          stdout
            .split('\n')
            .map((line) => /^([A-Z_]+)=(.*)$/.exec(line))
            .flatMap((m) => (m ? [[m[1] as string, m[2] as string] as const] : [])),
        );
        const image = vars.get('IMAGE');
        const base = vars.get('BASE');
        const conf = vars.get('CONTAINERS_CONF');
        if (!image || !base || !conf)
          return reject(new Error(`scripts/build-image.sh --print-env printed no IMAGE/BASE/CONTAINERS_CONF:\n${stdout}`));
        const report = stderr.trim().split('\n').at(-1) ?? '';
        resolve({ image, base, report, env: { ...process.env, CONTAINERS_CONF: conf } });
      },
    );
  });
  return building;
}

/** `podman ARGS` with the image's CONTAINERS_CONF; 60 s unless `timeoutMs` says otherwise. */
export const podman = (built: BuiltImage, args: readonly string[], opts: RunOptions = {}): Promise<Ran> =>
  run('podman', args, { ...opts, env: { ...built.env, ...opts.env } });
