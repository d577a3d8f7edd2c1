// The valkey.conf reader (src/api/contract/valkey-conf.ts) against the real server: each case is
// written into a config file, valkey-server 9.1.2 loads it, and CONFIG GET says what it read. The
// reader must read the same words, refuse the same lines, and fold names the same way.
import { Redis as Valkey } from 'iovalkey';
import { describe, expect, it } from 'vitest';
import { directivesByName, readValkeyConf } from '../../src/api/contract/valkey-conf.js';
import { startValkey, SUPPORTED_BUILD } from '../support/valkey.js';

/** What the server made of the file: the setting's value, or that it refused the file. */
async function serverReads(confText: string, setting: string): Promise<{ value: string } | { refused: true }> {
  let server: Awaited<ReturnType<typeof startValkey>>;
  try {
    server = await startValkey({ build: SUPPORTED_BUILD, confText, quietFailure: true, readyTimeoutMs: 5_000 });
  } catch {
    return { refused: true };
  }
  const client = new Valkey({ host: server.host, port: server.port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    const reply = (await client.callBuffer('CONFIG', 'GET', setting)) as Buffer[];
    return { value: new TextDecoder().decode(reply[1]) };
  } finally {
    client.disconnect();
    await server.stop();
  }
}

/** What the reader makes of the same file: one argument for a one-argument setting, or a refusal. */
function readerReads(confText: string, setting: string): { value: string } | { refused: true } {
  const conf = readValkeyConf(confText);
  if (conf.problems.length > 0) return { refused: true };
  const lines = directivesByName(conf).get(setting);
  // A one-argument setting given zero or several words is refused by the server ("wrong number of arguments").
  if (!lines || lines.some((args) => args.length !== 1)) return { refused: true };
  return { value: (lines.at(-1) as string[])[0] as string };
}

// masteruser takes any string and CONFIG GET prints it back unchanged.
const VALUES: [written: string, valkeyReads: string | 'refused'][] = [
  ['plain', 'plain'],
  ['"\\x45x"', 'Ex'],
  ['"\\x4g"', 'x4g'],
  ['"\\xc3\\xa9t\\xC3\\xA9"', 'été'],
  ['"\\q\\\\"', 'q\\'],
  ['"a\\tb\\nc"', 'a\tb\nc'],
  ["'\\x41'", '\\x41'],
  ["'it\\'s'", "it's"],
  ['"a b"', 'a b'],
  ["'a b'", 'a b'],
  ['"a\\"b"', 'a"b'],
  ['a"b c"d', 'ab cd'],
  ['"a"b', 'ab'],
  ["'a'b", 'ab'],
  ['""', ''],
  ['a#b', 'a#b'],
  ['a\vb', 'a\vb'],
  ['"a" b', 'refused'],
  ['x "y', 'refused'],
  ["it's", 'refused'],
  ['"unclosed', 'refused'],
];

describe(`valkey.conf as valkey-server ${SUPPORTED_BUILD} reads it`, () => {
  it.each(VALUES)('masteruser %j', async (written, valkeyReads) => {
    const conf = `port 0\nmasteruser ${written}\n`;
    const expected = valkeyReads === 'refused' ? { refused: true } : { value: valkeyReads };
    // The port is the harness's: it is given on the command line after the file.
    expect(await serverReads(conf, 'masteruser')).toEqual(expected);
    expect(readerReads(conf, 'masteruser')).toEqual(expected);
  });

  it.each([
    ['a name in capitals, CRLF line ends and indented comments', '  # note\r\nMASTERUSER   "\\x45x"  \r\n\t# more\r\n', 'Ex'],
    ['the last of two lines wins', 'masteruser first\nmasteruser second\n', 'second'],
  ])('%s', async (_what, conf, value) => {
    expect(await serverReads(conf, 'masteruser')).toEqual({ value });
    expect(readerReads(conf, 'masteruser')).toEqual({ value });
  });

  it('a directive on several lines keeps every line', async () => {
    const conf = 'client-output-buffer-limit normal 1mb 0 0\nclient-output-buffer-limit "pubsub" \'2mb\' 1mb 60\n';
    expect(await serverReads(conf, 'client-output-buffer-limit')).toEqual({
      value: expect.stringMatching(/^normal 1048576 0 0 .*pubsub 2097152 1048576 60$/),
    });
    expect(directivesByName(readValkeyConf(conf)).get('client-output-buffer-limit')).toEqual([
      ['normal', '1mb', '0', '0'],
      ['pubsub', '2mb', '1mb', '60'],
    ]);
  });
});
