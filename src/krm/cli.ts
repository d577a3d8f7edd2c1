import { readFileSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { isatty } from 'node:tty';
import { join } from 'node:path';
import { runResourceList, type RunOutput, type Tool } from './resource-list.js';
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

async function collect(path: string, out: SourceFile[]): Promise<void> {
  const info = await stat(path);
  if (info.isDirectory()) {
    const entries = (await readdir(path)).sort();
    for (const entry of entries) {
      if (entry.startsWith('.') || entry === 'node_modules') continue;
      const child = join(path, entry);
      const childInfo = await stat(child);
      if (childInfo.isDirectory() || YAML_FILE.test(entry)) await collect(child, out);
    }
    return;
  }
  out.push({ path, text: await readFile(path, 'utf8') });
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
          await collect(p, files);
        } catch (e) {
          return { stdout: '', stderr: `${tool}: cannot read ${p}: ${(e as Error).message}\n`, exitCode: 1 };
        }
      }
    }
    let config: SourceFile | undefined;
    if (configPath) {
      try {
        config = { path: configPath, text: await readFile(configPath, 'utf8') };
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
 * Reads all of stdin. A plain blocking read is the fast path (no stream machinery to load at
 * start-up); if the descriptor is non-blocking (EAGAIN), fall back to the stream.
 */
export async function readStdin(): Promise<string> {
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    return readAll(process.stdin);
  }
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The whole process: run, write, exit. */
export async function main(tool: Tool): Promise<void> {
  // isatty(0) rather than process.stdin.isTTY: creating process.stdin would make fd 0 non-blocking.
  const out = await runCli(tool, process.argv.slice(2), { readStdin, stdinIsTTY: isatty(0) });
  if (out.stderr) process.stderr.write(out.stderr);
  process.stdout.write(out.stdout, () => process.exit(out.exitCode));
}
