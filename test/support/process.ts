// Shared plumbing for the test harnesses (apiserver.ts, servers.ts, kubelet.ts): free loopback
// ports, daemons in their own process groups with logs in files, and teardown
// that also happens when the test process goes away without calling stop().
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A loopback TCP port that was free a moment ago (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const addr = srv.address();
      if (addr === null || typeof addr === 'string') {
        srv.close();
        reject(new Error('could not determine a free port'));
        return;
      }
      const { port } = addr;
      srv.close(() => resolve(port));
    });
  });
}

/** Several distinct free ports. */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** Last `lines` lines of a log file, or a note that it is missing. */
export function tailFile(path: string, lines = 60): string {
  if (!existsSync(path)) return `(no ${path})`;
  const all = readFileSync(path, 'utf8').split('\n');
  return all.slice(-lines).join('\n');
}

export interface Daemon {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Resolves when the process has exited (code or signal). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once the process has exited. */
  hasExited(): boolean;
  /** SIGTERM the process group, then SIGKILL after `graceMs`; resolves once exited. */
  stop(graceMs?: number): Promise<void>;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // group already gone
  }
}

/**
 * Start `command` detached (own process group), stdout+stderr appended to
 * `logPath`, stdin closed.
 */
export function spawnDaemon(name: string, command: string, args: string[], logPath: string, env?: NodeJS.ProcessEnv): Daemon {
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { detached: true, stdio: ['ignore', fd, fd], env: env ?? process.env });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: failed to spawn ${command}`);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
    child.once('error', () => {
      done = true;
      resolve({ code: null, signal: null });
    });
  });
  // The test process must not wait for daemons to end.
  child.unref();
  return {
    name,
    pid,
    logPath,
    exited,
    hasExited: () => done,
    async stop(graceMs = 10_000): Promise<void> {
      if (done) {
        killGroup(pid, 'SIGKILL'); // stray grandchildren, if any
        return;
      }
      killGroup(pid, 'SIGTERM');
      const timedOut = await Promise.race([exited.then(() => false), sleep(graceMs).then(() => true)]);
      if (timedOut) {
        killGroup(pid, 'SIGKILL');
        await exited;
      }
      killGroup(pid, 'SIGKILL');
    },
  };
}

/**
 * Tracks the daemons of one harness instance and its temp dir, and guarantees
 * teardown:
 *  - `cleanup()` for the normal path;
 *  - a synchronous 'exit' hook of this Node process;
 *  - a detached shell watchdog that polls this process and, should it die
 *    without cleaning up (SIGKILL, worker terminated), kills the recorded
 *    process groups and removes the temp dir.
 * Process group ids are kept in `<dir>/.pgids` for the watchdog.
 */
export class Reaper {
  private readonly pgids = new Set<number>();
  private readonly watchdog: ChildProcess;
  private readonly onExit = (): void => this.cleanupSync();
  private cleaned = false;

  constructor(
    readonly dir: string,
    private readonly keepDir = false,
  ) {
    const script = [
      'parent="$1"; dir="$2"; keep="$3"',
      'while kill -0 "$parent" 2>/dev/null && [ -e "$dir/.pgids" ]; do sleep 1; done',
      '[ -e "$dir/.pgids" ] || exit 0',
      'for p in $(cat "$dir/.pgids"); do kill -9 "-$p" 2>/dev/null; done',
      '[ "$keep" = 1 ] || rm -rf -- "$dir"',
    ].join('\n');
    writeFileSync(join(dir, '.pgids'), '');
    this.watchdog = spawn('/bin/sh', ['-c', script, 'reaper', String(process.pid), dir, keepDir ? '1' : '0'], {
      detached: true,
      stdio: 'ignore',
    });
    this.watchdog.unref();
    process.once('exit', this.onExit);
  }

  add(d: Daemon): void {
    this.pgids.add(d.pid);
    this.persist();
  }

  remove(d: Daemon): void {
    this.pgids.delete(d.pid);
    this.persist();
  }

  private persist(): void {
    if (this.cleaned) return;
    writeFileSync(join(this.dir, '.pgids'), `${[...this.pgids].join('\n')}\n`);
  }

  /** Kill whatever is still recorded, stop the watchdog, remove the dir. */
  cleanupSync(): void {
    if (this.cleaned) return;
    this.cleaned = true;
    process.removeListener('exit', this.onExit);
    for (const pid of this.pgids) killGroup(pid, 'SIGKILL');
    if (this.watchdog.pid !== undefined) killGroup(this.watchdog.pid, 'SIGKILL');
    if (this.keepDir) rmSync(join(this.dir, '.pgids'), { force: true });
    else rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Poll `check` every `intervalMs` (default 100) until it returns true; a check that throws counts
 * as false. Fails after `timeoutMs` (default 30 000) or when `abort()` returns a reason.
 */
export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  opts: { timeoutMs?: number; intervalMs?: number; abort?: () => string | undefined } = {},
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reason = opts.abort?.();
    if (reason !== undefined) throw new Error(`${what}: ${reason}`);
    const done = await Promise.resolve()
      .then(check)
      .catch(() => false);
    if (done) return;
    if (Date.now() > deadline) throw new Error(`${what}: timed out after ${timeoutMs} ms`);
    await sleep(opts.intervalMs ?? 100);
  }
}
