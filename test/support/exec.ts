// Child processes for tests: one `run` for every tool a test drives.
import { spawn } from 'node:child_process';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Kill the process (and fail) after this long (default 60 s: a hung tool fails its test); `Infinity` for no limit. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Runs a command to completion, feeding `input` on stdin (or nothing). Never rejects on a
 * non-zero exit: the test decides. A process ended by a signal reports code 128.
 */
export function run(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<Ran> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer =
      timeoutMs === Number.POSITIVE_INFINITY
        ? undefined
        : setTimeout(() => {
            child.kill('SIGKILL');
            reject(
              new Error(`${cmd} ${args.join(' ')}: killed after ${timeoutMs} ms\nstderr so far:\n${Buffer.concat(err).toString('utf8')}`),
            );
          }, timeoutMs);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: code ?? (signal ? 128 : -1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}
