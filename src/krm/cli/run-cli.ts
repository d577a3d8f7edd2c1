import { PACKAGE_VERSION } from '../../api/index.js';
import { runPlainFiles, type InputFile } from '../plain-files.js';
import { STDIN_PATH } from '../report.js';
import { runResourceList } from '../resource-list.js';
import type { RunOutput } from '../run-output.js';
import type { Tool } from '../tool.js';
import { HELP } from './help.js';
import { parseCliArgs } from './parse-args.js';
import { readInputFiles, readNamedFile } from './read-files.js';
import { visibleOneLine } from '../../api/index.js';

export interface CliIO {
  readStdin: () => Promise<string>;
  stdinIsTTY: boolean;
}

const usage = (tool: Tool, message: string): RunOutput => ({
  stdout: '',
  stderr: `${tool}: ${message}\nRun ${tool} --help for usage.\n`,
  exitCode: 2,
});

/** Parses arguments and runs; never throws (an unexpected failure is a report, exit 1). */
export async function runCli(tool: Tool, argv: readonly string[], io: CliIO): Promise<RunOutput> {
  try {
    // render-valkey plan (docs/plan.md): loaded only when asked for, so a render never pays for it.
    if (tool === 'render-valkey' && argv[0] === 'plan') {
      return (await import('../plan-command.js')).runPlanCommand(argv.slice(1), { cwd: process.cwd() });
    }
    // render-valkey set-shards: the autoscaling job's one edit to git (integrations/autoscale/).
    if (tool === 'render-valkey' && argv[0] === 'set-shards') {
      return (await import('../set-shards.js')).runSetShardsCommand(argv.slice(1), { cwd: process.cwd() });
    }
    const request = parseCliArgs(argv);
    if (request.action === 'help') return { stdout: `${HELP[tool]}\n`, stderr: '', exitCode: 0 };
    if (request.action === 'version') return { stdout: `${tool} ${PACKAGE_VERSION}\n`, stderr: '', exitCode: 0 };
    if (request.action === 'usage-error') return usage(tool, request.message);
    const { paths, configPath } = request;
    if (paths.length === 0) {
      if (configPath)
        return usage(tool, '--config is for the plain-files mode: also name the files or directories to read (or - for stdin)');
      if (io.stdinIsTTY) return usage(tool, 'expected a ResourceList on stdin, or files to read');
      return runResourceList(await io.readStdin(), tool);
    }
    const files: InputFile[] = [];
    const unreadable: string[] = [];
    for (const p of paths) {
      if (p === '-') files.push({ path: STDIN_PATH, text: await io.readStdin() });
      else unreadable.push(...readInputFiles(p, files).map((u) => `cannot read ${u.path}: ${u.reason}`));
    }
    let config: InputFile | undefined;
    if (configPath) {
      const read = readNamedFile(configPath);
      if ('reason' in read) unreadable.push(`cannot read the render config ${read.path}: ${read.reason}`);
      else config = read;
    }
    // Every path that could not be read, and nothing rendered: a partial read would prune the rest.
    // One line each: a file name in the package may hold a line break, which must not start a line.
    if (unreadable.length > 0)
      return { stdout: '', stderr: unreadable.map((m) => `${tool}: ${visibleOneLine(m)}\n`).join(''), exitCode: 1 };
    return runPlainFiles(files, tool, config);
  } catch (e) {
    return { stdout: '', stderr: `${tool}: internal error, please report it: ${(e as Error).stack ?? String(e)}\n`, exitCode: 1 };
  }
}
