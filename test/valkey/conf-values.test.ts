// valkeyArgsError against the real servers: on the supported release every value it refuses makes
// valkey-server refuse its config file, and every value it accepts starts the server. The builds
// below the floor split a line by older rules (a closing quote had to end the word): they refuse
// whatever the check refuses, and more.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { valkeyArgsError } from '../../src/api/valkey-args.js';
import { PRE9_BUILDS, SUPPORTED_BUILD, valkeyServerPath, type ValkeyBuild } from '../support/valkey.js';

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
function serverAccepts(build: ValkeyBuild, value: string): boolean {
  const conf = join(dir, 'valkey.conf');
  writeFileSync(conf, `port 0\nmasteruser ${value}\n`);
  const r = spawnSync(valkeyServerPath(build), [conf], { timeout: 10_000, encoding: 'utf8' });
  const out = r.stdout + r.stderr;
  return out.includes('Configuration loaded') && !out.includes('FATAL CONFIG FILE ERROR');
}

describe(`valkey.conf values as valkey-server ${SUPPORTED_BUILD} splits them`, () => {
  it.each(VALUES)('%j', (value) => {
    expect(serverAccepts(SUPPORTED_BUILD, value)).toBe(valkeyArgsError(value) === undefined);
  });
});

describe.each(PRE9_BUILDS)('valkey.conf values valkey-server %s refuses', (build) => {
  it.each(VALUES.filter((v) => valkeyArgsError(v) !== undefined))('%j', (value) => {
    expect(serverAccepts(build, value)).toBe(false);
  });
  it('refuses a word that goes on after a closing quote, which Valkey 9 accepts', () => {
    expect(serverAccepts(build, '"a"b')).toBe(false);
    expect(valkeyArgsError('"a"b')).toBeUndefined();
  });
});
