// valkeyArgsError against the real servers: every value it refuses makes valkey-server refuse its
// config file, and every value it accepts starts the server.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { valkeyArgsError } from '../../src/api/valkey-args.js';
import { VALKEY_BUILDS, valkeyServerPath } from '../support/valkey.js';

const VALUES = [
  '"unbalanced',
  "'unbalanced",
  '"a"b',
  "'a'b",
  "it's",
  'x "y',
  '"a b"',
  "'a b'",
  '"a\\"b"',
  'a"b"',
  "'it\\'s'",
  '"\\x41"',
  'plain',
];
const dir = mkdtempSync(join(tmpdir(), 'conf-values-'));

/** Does the server accept the file? With port 0 and no socket it loads the file, then exits (it listens nowhere). */
function serverAccepts(build: (typeof VALKEY_BUILDS)[number], value: string): boolean {
  const conf = join(dir, 'valkey.conf');
  writeFileSync(conf, `port 0\nmasteruser ${value}\n`);
  const r = spawnSync(valkeyServerPath(build), [conf], { timeout: 10_000, encoding: 'utf8' });
  const out = r.stdout + r.stderr;
  return out.includes('Configuration loaded') && !out.includes('FATAL CONFIG FILE ERROR');
}

describe.each(VALKEY_BUILDS)('valkey.conf values as valkey-server %s splits them', (build) => {
  it.each(VALUES)('%j', (value) => {
    expect(serverAccepts(build, value)).toBe(valkeyArgsError(value) === undefined);
  });
});
