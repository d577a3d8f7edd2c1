// One server process of the Redis/Valkey protocol (valkey-server or redis-server: same flags)
// on a free loopback port, nothing persisted, torn down on stop() or when the test process goes
// away. valkey.ts and redis.ts name the binaries; this file only knows how to run one. And a
// server that never answers, standing in for a node that hangs.
//
//   const s = await startServer({ name: "valkey-server", binary, args: ["--requirepass", "s3cret"] });
//   ... connect to s.host:s.port ...
//   await s.stop();
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reaper, freePort, spawnDaemon, tailFile, waitFor, type Daemon } from './process.js';

export interface StartServerOptions {
  /** Port to listen on (default: a free one). */
  port?: number;
  /** Extra command-line arguments, e.g. ["--cluster-enabled", "yes"]. */
  args?: string[];
  /** Contents of a config file passed before the command-line arguments. */
  confText?: string;
  /** Password for the readiness PING (AUTH <password>), if the server requires one. */
  password?: string;
  /** Username for the readiness AUTH (ACL), with `password`. */
  username?: string;
  /** Readiness timeout (default 20 000 ms). */
  readyTimeoutMs?: number;
  /** Keep the temp dir after stop() (also: env VALKEY_KRM_HARNESS_KEEP=1). */
  keepDir?: boolean;
  /** Do not copy the log to stderr when start-up fails (for tests that expect the refusal). */
  quietFailure?: boolean;
}

export interface ServerBinary {
  /** What logs and errors call it: "valkey-server 8.0.1", "redis-server". */
  name: string;
  /** Absolute path of the executable. */
  binary: string;
  /** What to do when the binary is missing. */
  installHint: string;
}

export interface RunningServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** Temp dir: working dir (--dir), server.conf if confText was given, server.log. */
  readonly dir: string;
  readonly logPath: string;
  stop(): Promise<void>;
  /** SIGKILL at once: the server gets no time to shut down, as in a crash or an OOM kill. */
  kill(): Promise<void>;
}

/** Encode a command as a RESP array of bulk strings. */
export function respCommand(...parts: string[]): string {
  return `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`;
}

/**
 * Send commands on a fresh TCP connection and return the raw reply bytes once
 * `done(reply)` is satisfied (default: one line per command). For readiness
 * checks and tiny probes, not a client.
 */
export function rawCommand(
  port: number,
  commands: string[][],
  opts: { host?: string; timeoutMs?: number; done?: (reply: string) => boolean } = {},
): Promise<string> {
  const done = opts.done ?? ((reply: string): boolean => reply.split('\r\n').length - 1 >= commands.length);
  return new Promise((resolve, reject) => {
    const sock = connect({ host: opts.host ?? '127.0.0.1', port });
    let reply = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no complete reply within ${opts.timeoutMs ?? 2_000} ms: ${JSON.stringify(reply)}`));
    }, opts.timeoutMs ?? 2_000);
    sock.setEncoding('utf8');
    sock.on('connect', () => sock.write(commands.map((c) => respCommand(...c)).join('')));
    sock.on('data', (chunk: string) => {
      reply += chunk;
      if (done(reply)) {
        clearTimeout(timer);
        sock.destroy();
        resolve(reply);
      }
    });
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    sock.on('close', () => {
      clearTimeout(timer);
      if (!done(reply)) reject(new Error(`connection closed: ${JSON.stringify(reply)}`));
    });
  });
}

export async function startServer(server: ServerBinary, opts: StartServerOptions = {}): Promise<RunningServer> {
  if (!existsSync(server.binary)) throw new Error(`${server.name}: ${server.binary} not found: ${server.installHint}`);
  const keepDir = opts.keepDir ?? process.env.VALKEY_KRM_HARNESS_KEEP === '1';
  const dir = await mkdtemp(join(tmpdir(), 'valkey-krm-server-'));
  const reaper = new Reaper(dir, keepDir);
  const logPath = join(dir, 'server.log');
  try {
    const argsHead: string[] = [];
    if (opts.confText !== undefined) {
      const conf = join(dir, 'server.conf');
      await writeFile(conf, opts.confText);
      argsHead.push(conf);
    }
    for (let attempt = 1; ; attempt++) {
      const port = opts.port ?? (await freePort());
      const d: Daemon = spawnDaemon(
        server.name,
        server.binary,
        [
          ...argsHead,
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
          '--daemonize',
          'no',
          '--logfile',
          '',
          ...(opts.args ?? []),
        ],
        logPath,
      );
      reaper.add(d);
      const auth =
        opts.password !== undefined ? [opts.username !== undefined ? ['AUTH', opts.username, opts.password] : ['AUTH', opts.password]] : [];
      try {
        await waitFor(`${server.name} PING`, async () => (await rawCommand(port, [...auth, ['PING']])).endsWith('+PONG\r\n'), {
          timeoutMs: opts.readyTimeoutMs ?? 20_000,
          intervalMs: 50,
          abort: () => (d.hasExited() ? `${server.name} exited` : undefined),
        });
      } catch (e) {
        await d.stop(2_000);
        reaper.remove(d);
        const log = tailFile(logPath, 40);
        if (opts.port === undefined && attempt < 3 && /Address already in use/i.test(log)) continue;
        const msg = `${server.name} failed to start: ${e instanceof Error ? e.message : String(e)}\n----- ${logPath} -----\n${log}`;
        if (opts.quietFailure !== true) process.stderr.write(`${msg}\n`);
        throw new Error(msg, { cause: e });
      }
      let stopped = false;
      return {
        host: '127.0.0.1',
        port,
        dir,
        logPath,
        async stop() {
          if (stopped) return;
          stopped = true;
          await d.stop(5_000);
          reaper.cleanupSync();
        },
        async kill() {
          if (stopped) return;
          stopped = true;
          await d.stop(0);
          reaper.cleanupSync();
        },
      };
    }
  } catch (e) {
    reaper.cleanupSync();
    throw e;
  }
}

export interface SilentServer {
  port: number;
  close(): Promise<void>;
}

/** A loopback server that accepts connections and never answers: a node that hangs. */
export async function startSilentServer(): Promise<SilentServer> {
  const port = await freePort();
  const sockets: Socket[] = [];
  const server = createServer((s) => sockets.push(s));
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
