import { describe, expect, it } from 'vitest';
import { parseCliArgs } from '../../src/krm/cli/parse-args.js';

describe('the command line of render-valkey and validate-valkey', () => {
  it.each([
    [[], { action: 'run', paths: [] }],
    [['-'], { action: 'run', paths: ['-'] }],
    [['a', 'b/'], { action: 'run', paths: ['a', 'b/'] }],
    [['--config', 'c.yaml', 'a'], { action: 'run', paths: ['a'], configPath: 'c.yaml' }],
    [['a', '--config=c.yaml'], { action: 'run', paths: ['a'], configPath: 'c.yaml' }],
    [['--', '-odd-name'], { action: 'run', paths: ['-odd-name'] }],
    [['-h'], { action: 'help' }],
    [['a', '--help', '--frobnicate'], { action: 'help' }],
    [['--version'], { action: 'version' }],
    [['--frobnicate', '--help'], { action: 'usage-error', message: 'unknown option --frobnicate' }],
    [['--frobnicate=3'], { action: 'usage-error', message: 'unknown option --frobnicate=3' }],
    [['-x'], { action: 'usage-error', message: 'unknown option -x' }],
    [['--help=yes'], { action: 'usage-error', message: 'unknown option --help=yes' }],
    [['--config'], { action: 'usage-error', message: '--config needs a file' }],
    [['--config='], { action: 'usage-error', message: '--config needs a file' }],
  ])('%j', (argv, expected) => {
    expect(parseCliArgs(argv)).toEqual(expected);
  });
});
