// A throwaway Valkey server on a loopback port, and the start-up probe that asks the same binary
// how it reads one config line. Used only by gen-valkey-tables.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectResp, type RespConnection } from '../../src/controller/valkey/resp-connection.js';

export interface RunningServer {
  connection: RespConnection;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `binary` with nothing persisted, in its own temporary directory, and connects to it. */
export async function startServer(binary: string): Promise<RunningServer> {
  const dir = await mkdtemp(join(tmpdir(), 'valkey-tables-'));
  const port = await freePort();
  const child: ChildProcess = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const connection = await connectResp({ host: '127.0.0.1', port, connectTimeoutMs: 1000, commandTimeoutMs: 10_000 });
      return {
        connection,
        stop: async () => {
          connection.close();
          await stop();
        },
      };
    } catch {
      if (child.exitCode !== null) break;
      await delay(50);
    }
  }
  await stop();
  throw new Error(`${binary} did not start on port ${port}`);
}

/** How the server reads `name value` at start-up: accepted, or the error it prints. */
export type ProbeResult = { accepted: true } | { accepted: false; message: string };

/**
 * Writes `name value` and then a line no Valkey knows into a config file and starts the server
 * on it. The server stops at the first line it refuses: if that is line 2, it accepted ours.
 * Nothing runs: config errors end the process before it opens a port or touches the directory.
 */
export async function probeConfigLine(binary: string, name: string, value: string): Promise<ProbeResult> {
  const dir = await mkdtemp(join(tmpdir(), 'valkey-probe-'));
  try {
    await writeFile(join(dir, 'probe.conf'), `${name} ${value}\nvalkey-krm-not-a-directive 1\n`);
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(binary, ['probe.conf'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      const chunks: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => chunks.push(b));
      child.stderr.on('data', (b: Buffer) => chunks.push(b));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('error', reject);
      child.on('close', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks).toString('utf8'));
      });
    });
    const at = /at line (\d+)\n>>> '[^\n]*'\n([^\n]*)/.exec(output);
    if (!at) throw new Error(`${binary}: unexpected start-up output for "${name} ${value}":\n${output}`);
    return at[1] === '2' ? { accepted: true } : { accepted: false, message: (at[2] as string).trim() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
