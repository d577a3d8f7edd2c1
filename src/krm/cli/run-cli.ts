import { fstatSync, readFileSync, readSync, readdirSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isAscii } from 'node:buffer';
import { runResourceList, type Tool } from './resource-list.js';
import type { RunOutput } from './output.js';
import { runFiles, type SourceFile } from './files.js';

export const VERSION = '0.1.0';

const HELP: Record<Tool, string> = {
  'render-valkey': `render-valkey: render ValkeyClusters into StatefulSets, Services, ConfigMaps and PodDisruptionBudgets.

Usage:
  render-valkey < resource-list.yaml          KRM function: ResourceList (YAML or JSON) on stdin,
                                              ResourceList on stdout (kpt fn render/eval, kustomize)
  render-valkey [--config FILE] PATH...       plain files: read YAML/JSON files and directories,
                                              print multi-document YAML (Argo CD plugin, CI)
  render-valkey [--config FILE] -             plain files, multi-document YAML on stdin

Options:
  --config FILE   the render config (a ValkeyRenderConfig, or a ConfigMap with flattened keys);
                  without it, the one ValkeyRenderConfig among the inputs is used
  -h, --help      show this help
  --version       print the version

The render config (apiVersion valkey.gomomento.com/v1alpha1, kind ValkeyRenderConfig):
  spec.outputDir          where kpt writes generated files (default: rendered)
  spec.clusterDomain      the cluster DNS domain (default: cluster.local)
  spec.defaultZoneSpread  bestEffort (default) or required
  spec.systemUsers.replication.passwordHash / .secretName (default valkey-replication)
  spec.systemUsers.controller.passwordHash  / .secretName (default valkey-controller)

Resources it does not own pass through byte for byte; its own earlier output is replaced.
Any error renders nothing: exit 1, a report on stderr (and results in KRM mode), and in
plain-files mode an empty stdout, so a GitOps tool never prunes clusters because of a typo.

Exit codes: 0 rendered (warnings and infos may be reported), 1 an error was found, 2 bad usage.`,
  'validate-valkey': `validate-valkey: check a Valkey menu (ValkeyImage, ValkeyConfig, ValkeyRole) and ValkeyClusters; render nothing.

Usage:
  validate-valkey < resource-list.yaml          KRM validator: items come back unchanged, with results
  validate-valkey [--config FILE] PATH...       plain files: report on stderr, nothing on stdout
  validate-valkey [--config FILE] -             plain files, multi-document YAML on stdin

Options:
  --config FILE   the render config (a ValkeyRenderConfig, or a ConfigMap with flattened keys)
  -h, --help      show this help
  --version       print the version

Runs every check render-valkey runs (schemas, config chains, images, roles, ACL users, render
config) and reports every problem at once. Exit codes: 0 valid, 1 an error was found, 2 bad usage.`,
};

export interface CliIO {
  readStdin: () => Promise<string>;
  stdinIsTTY: boolean;
}

const YAML_FILE = /\.(ya?ml|json)$/i;

function collect(path: string, out: SourceFile[]): void {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) {
      if (entry.startsWith('.') || entry === 'node_modules') continue;
      const child = join(path, entry);
      if (statSync(child).isDirectory() || YAML_FILE.test(entry)) collect(child, out);
    }
    return;
  }
  out.push({ path, text: decodeText(readFileSync(path)) });
}

/**
 * Whether stdin is a terminal. Only a character device can be one, so the tty module (which loads
 * the whole stream stack) is loaded only then; process.stdin is never touched, since creating it
 * would make fd 0 non-blocking.
 */
function stdinIsTerminal(): boolean {
  try {
    if (!fstatSync(0).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  const { isatty } = process.getBuiltinModule('node:tty') as typeof import('node:tty');
  return isatty(0);
}

const usage = (tool: Tool, message: string): RunOutput => ({ stdout: '', stderr: `${tool}: ${message}\nRun ${tool} --help for usage.\n`, exitCode: 2 });

/** Parses arguments and runs; never throws (an unexpected failure is a report, exit 1). */
export async function runCli(tool: Tool, argv: readonly string[], io: CliIO): Promise<RunOutput> {
  try {
    const paths: string[] = [];
    let configPath: string | undefined;
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i] as string;
      if (arg === '-h' || arg === '--help') return { stdout: `${HELP[tool]}\n`, stderr: '', exitCode: 0 };
      if (arg === '--version') return { stdout: `${tool} ${VERSION}\n`, stderr: '', exitCode: 0 };
      if (arg === '--config' || arg.startsWith('--config=')) {
        configPath = arg.includes('=') ? arg.slice('--config='.length) : argv[++i];
        if (!configPath) return usage(tool, '--config needs a file');
        continue;
      }
      if (arg.startsWith('-') && arg !== '-') return usage(tool, `unknown option ${arg}`);
      paths.push(arg);
    }
    if (paths.length === 0) {
      if (configPath) return usage(tool, '--config is for the plain-files mode: also name the files or directories to read (or - for stdin)');
      if (io.stdinIsTTY) return usage(tool, 'expected a ResourceList on stdin, or files to read');
      return runResourceList(await io.readStdin(), tool);
    }
    const files: SourceFile[] = [];
    for (const p of paths) {
      if (p === '-') files.push({ path: '<stdin>', text: await io.readStdin() });
      else {
        try {
          collect(p, files);
        } catch (e) {
          return { stdout: '', stderr: `${tool}: cannot read ${p}: ${(e as Error).message}\n`, exitCode: 1 };
        }
      }
    }
    let config: SourceFile | undefined;
    if (configPath) {
      try {
        config = { path: configPath, text: decodeText(readFileSync(configPath)) };
      } catch (e) {
        return { stdout: '', stderr: `${tool}: cannot read the render config ${configPath}: ${(e as Error).message}\n`, exitCode: 1 };
      }
    }
    return runFiles(files, tool, config);
  } catch (e) {
    return { stdout: '', stderr: `${tool}: internal error, please report it: ${(e as Error).stack ?? String(e)}\n`, exitCode: 1 };
  }
}

/**
 * Reads all of stdin with plain blocking reads (no stream machinery to load at start-up) through
 * one reused buffer. ASCII megabytes become text as they come, which spares copying and decoding
 * the whole input once more at the end; from the first non-ASCII megabyte on, bytes are kept and
 * decoded as UTF-8 at the end. If the descriptor turns out to be non-blocking (EAGAIN), what has
 * arrived is kept and the rest is read through process.stdin.
 */
export async function readStdin(): Promise<string> {
  const text: string[] = [];
  const bytes: Buffer[] = [];
  const buf = Buffer.allocUnsafe(1 << 20);
  let used = 0;
  const flush = () => {
    if (used === 0) return;
    const chunk = buf.subarray(0, used);
    if (bytes.length === 0 && isAscii(chunk)) text.push(chunk.toString('latin1'));
    else bytes.push(Buffer.from(chunk)); // a copy: the buffer is reused
    used = 0;
  };
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, used, buf.length - used, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code !== 'EAGAIN') throw e;
      flush();
      for await (const chunk of process.stdin) bytes.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      break;
    }
    if (n === 0) break;
    used += n;
    if (used === buf.length) flush();
  }
  flush();
  if (bytes.length) text.push(decodeText(Buffer.concat(bytes)));
  return text.length === 1 ? (text[0] as string) : text.join('');
}

/** UTF-8 bytes as text. ASCII, the usual case, decodes as latin1: the same text, several times faster. */
export function decodeText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * Writes the chunks to stdout with plain blocking writes (no stream machinery to load, nothing
 * buffered twice). If stdout turns out to be non-blocking (EAGAIN), the rest goes through
 * process.stdout, which waits for the reader; `done` runs once everything is written.
 */
export function writeChunks(chunks: readonly Uint8Array[], done: () => void): void {
  for (let i = 0; i < chunks.length; i++) {
    const bytes = chunks[i] as Uint8Array;
    let offset = 0;
    try {
      while (offset < bytes.length) offset += writeSync(1, bytes, offset);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return done(); // the reader has gone: nobody is left to tell
      if (code !== 'EAGAIN') throw e;
      for (const rest of [bytes.subarray(offset), ...chunks.slice(i + 1)]) process.stdout.write(rest);
      process.stdout.write('', done);
      return;
    }
  }
  done();
}

/** The whole process: run, write, exit. */
export async function main(tool: Tool): Promise<void> {
  const out = await runCli(tool, process.argv.slice(2), { readStdin, stdinIsTTY: stdinIsTerminal() });
  if (out.stderr) process.stderr.write(out.stderr);
  writeChunks(out.stdoutChunks ?? [Buffer.from(out.stdout)], () => process.exit(out.exitCode));
}

// For the build's warm-up (scripts/warm-up.cjs), which renders the examples through the bundle.
export { runResourceList } from './resource-list.js';
