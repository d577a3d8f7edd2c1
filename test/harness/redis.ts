// A real redis-server (Debian's /usr/bin/redis-server, DESIGN.md §8) on a free
// loopback port, nothing persisted, torn down on stop() or when the test
// process goes away. It speaks the same protocol as Valkey but reports no
// `valkey_version` in INFO.
//
//   const r = await startRedis({ args: ["--requirepass", "s3cret"] });
//   ... connect to r.host:r.port ...
//   await r.stop();
import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Reaper, freePort, spawnDaemon, tailFile, waitFor, type Daemon } from "./process.js";

export const REDIS_SERVER = process.env["REDIS_SERVER"] ?? "/usr/bin/redis-server";

export interface StartRedisOptions {
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
}

export interface RedisServer {
  readonly host: "127.0.0.1";
  readonly port: number;
  /** Temp dir: working dir (--dir), redis.conf if confText was given, redis.log. */
  readonly dir: string;
  readonly logPath: string;
  stop(): Promise<void>;
}

/** Encode a command as a RESP array of bulk strings. */
export function respCommand(...parts: string[]): string {
  return `*${parts.length}\r\n` + parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join("");
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
  const done = opts.done ?? ((reply: string): boolean => reply.split("\r\n").length - 1 >= commands.length);
  return new Promise((resolve, reject) => {
    const sock = connect({ host: opts.host ?? "127.0.0.1", port });
    let reply = "";
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no complete reply within ${opts.timeoutMs ?? 2_000} ms: ${JSON.stringify(reply)}`));
    }, opts.timeoutMs ?? 2_000);
    sock.setEncoding("utf8");
    sock.on("connect", () => sock.write(commands.map((c) => respCommand(...c)).join("")));
    sock.on("data", (chunk: string) => {
      reply += chunk;
      if (done(reply)) {
        clearTimeout(timer);
        sock.destroy();
        resolve(reply);
      }
    });
    sock.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    sock.on("close", () => {
      clearTimeout(timer);
      if (!done(reply)) reject(new Error(`connection closed: ${JSON.stringify(reply)}`));
    });
  });
}

export async function startRedis(opts: StartRedisOptions = {}): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER)) {
    throw new Error(`${REDIS_SERVER} not found: apt-get install -y redis-server (or set REDIS_SERVER)`);
  }
  const keepDir = opts.keepDir ?? process.env["VALKEY_KRM_HARNESS_KEEP"] === "1";
  const dir = await mkdtemp(join(tmpdir(), "valkey-krm-redis-"));
  const reaper = new Reaper(dir, keepDir);
  const logPath = join(dir, "redis.log");
  try {
    const argsHead: string[] = [];
    if (opts.confText !== undefined) {
      const conf = join(dir, "redis.conf");
      await writeFile(conf, opts.confText);
      argsHead.push(conf);
    }
    for (let attempt = 1; ; attempt++) {
      const port = opts.port ?? (await freePort());
      const d: Daemon = spawnDaemon(
        "redis-server",
        REDIS_SERVER,
        [
          ...argsHead,
          "--port", String(port),
          "--bind", "127.0.0.1",
          "--save", "",
          "--appendonly", "no",
          "--dir", dir,
          "--daemonize", "no",
          "--logfile", "",
          ...(opts.args ?? []),
        ],
        logPath,
      );
      reaper.add(d);
      const auth =
        opts.password !== undefined
          ? [opts.username !== undefined ? ["AUTH", opts.username, opts.password] : ["AUTH", opts.password]]
          : [];
      try {
        await waitFor(
          "redis-server PING",
          async () => (await rawCommand(port, [...auth, ["PING"]])).endsWith("+PONG\r\n"),
          {
            timeoutMs: opts.readyTimeoutMs ?? 20_000,
            intervalMs: 50,
            abort: () => (d.hasExited() ? "redis-server exited" : undefined),
          },
        );
      } catch (e) {
        await d.stop(2_000);
        reaper.remove(d);
        const log = tailFile(logPath, 40);
        if (opts.port === undefined && attempt < 3 && /Address already in use/i.test(log)) continue;
        const msg = `redis-server failed to start: ${e instanceof Error ? e.message : String(e)}\n----- ${logPath} -----\n${log}`;
        process.stderr.write(msg + "\n");
        throw new Error(msg, { cause: e });
      }
      let stopped = false;
      return {
        host: "127.0.0.1",
        port,
        dir,
        logPath,
        async stop() {
          if (stopped) return;
          stopped = true;
          await d.stop(5_000);
          reaper.cleanupSync();
        },
      };
    }
  } catch (e) {
    reaper.cleanupSync();
    throw e;
  }
}
