// The KRM bundle's entry (scripts/build.mjs bundles it into dist/lib/krm.cjs).
import type { Tool } from '../tool.js';
import { runCli } from './run-cli.js';
import { readStdin, stdinIsTerminal, writeChunks } from './stdio.js';

/** The whole process: run, write, exit. */
export async function runTool(tool: Tool): Promise<void> {
  const out = await runCli(tool, process.argv.slice(2), { readStdin, stdinIsTTY: stdinIsTerminal() });
  if (out.stderr) process.stderr.write(out.stderr);
  writeChunks(out.stdoutChunks ?? [Buffer.from(out.stdout)], () => process.exit(out.exitCode));
}

// For the build's warm-up (scripts/warm-up.cjs), which renders the examples through the bundle.
export { runCli } from './run-cli.js';
export { runResourceList } from '../resource-list.js';
