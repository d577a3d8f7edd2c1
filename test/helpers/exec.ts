import { spawn } from 'node:child_process';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, feeding `input` on stdin (or nothing). */
export function run(cmd: string, args: readonly string[], opts: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

export const RENDER = 'dist/render-valkey.cjs';
export const VALIDATE = 'dist/validate-valkey.cjs';
