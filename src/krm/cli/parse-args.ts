import { parseArgs } from 'node:util';

/** What the command line asks for. */
export type CliRequest =
  | { action: 'help' }
  | { action: 'version' }
  | { action: 'run'; paths: string[]; configPath?: string }
  | { action: 'usage-error'; message: string };

const OPTIONS = {
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

/**
 * Reads the arguments in order: the first of --help, --version or a usage error decides, as the
 * user wrote them. parseArgs runs non-strict so that an unknown option comes back as a token
 * and is reported in our words rather than thrown; `-` is a path (stdin), and after `--` every
 * argument is a path.
 */
export function parseCliArgs(argv: readonly string[]): CliRequest {
  // kpt runs the function with no arguments: nothing to parse (and node:util's parser not to load).
  if (argv.length === 0) return { action: 'run', paths: [] };
  const { tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const paths: string[] = [];
  let configPath: string | undefined;
  for (const token of tokens) {
    if (token.kind === 'positional') paths.push(token.value);
    if (token.kind !== 'option') continue;
    // A flag given a value (--help=x) is no flag of ours either.
    const written = token.inlineValue ? `${token.rawName}=${token.value}` : token.rawName;
    if (token.name === 'help' && !token.inlineValue) return { action: 'help' };
    if (token.name === 'version' && !token.inlineValue) return { action: 'version' };
    if (token.name !== 'config') return { action: 'usage-error', message: `unknown option ${written}` };
    if (!token.value) return { action: 'usage-error', message: '--config needs a file' };
    configPath = token.value;
  }
  return configPath === undefined ? { action: 'run', paths } : { action: 'run', paths, configPath };
}
