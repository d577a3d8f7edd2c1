import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeIdentity } from '../../../src/controller/cluster/server-identity.js';
import { rejectionMessage, strictPolicy, versionInStartupLog } from '../../../src/controller/cluster/version-gate.js';
import { parseInfo, serverIdentity } from '../../../src/controller/valkey/info.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/info/${name}`, import.meta.url), 'utf8');

describe('INFO server fixtures', () => {
  it.each([
    ['valkey-7.2.8.txt', { kind: 'valkey', version: '7.2.8', mode: 'cluster' }, false, 'BelowFloor'],
    ['valkey-8.0.2.txt', { kind: 'valkey', version: '8.0.2', mode: 'cluster' }, false, 'BelowFloor'],
    ['valkey-8.1.1.txt', { kind: 'valkey', version: '8.1.1', releaseStage: 'ga', mode: 'cluster' }, false, 'BelowFloor'],
    ['valkey-9.0.1.txt', { kind: 'valkey', version: '9.0.1', releaseStage: 'ga', mode: 'cluster' }, true, undefined],
    [
      'valkey-9.0.1-tls-extended-redis-compatibility.txt',
      { kind: 'valkey', version: '9.0.1', releaseStage: 'ga', mode: 'cluster' },
      true,
      undefined,
    ],
    ['valkey-unstable.txt', { kind: 'valkey', version: '255.255.255', releaseStage: 'dev', mode: 'cluster' }, true, undefined],
    ['redis-7.0.15.txt', { kind: 'not-valkey', redisVersion: '7.0.15', mode: 'cluster' }, false, 'NotValkey'],
  ] as const)('%s', (file, identity, passes, reason) => {
    const fields = parseInfo(fixture(file));
    expect(serverIdentity(fields)).toEqual(identity);
    const verdict = strictPolicy.check(serverIdentity(fields));
    expect(verdict.ok).toBe(passes);
    if (!verdict.ok) expect(verdict.reason).toBe(reason);
  });

  it('never takes redis_version for the Valkey version: every Valkey fixture says 7.2.4 there', () => {
    for (const file of ['valkey-8.0.2.txt', 'valkey-9.0.1.txt', 'valkey-unstable.txt']) {
      const fields = parseInfo(fixture(file));
      expect(fields.get('redis_version')).toBe('7.2.4');
      expect(serverIdentity(fields)).not.toMatchObject({ version: '7.2.4' });
    }
  });

  it('keeps the captured Redis reply byte-exact: CRLF lines, no valkey fields', () => {
    const text = fixture('redis-7.0.15.txt');
    expect(text.startsWith('# Server\r\nredis_version:7.0.15\r\n')).toBe(true);
    expect(text).not.toMatch(/server_name|valkey_version/);
  });
});

describe('parseInfo', () => {
  it('splits on the first colon, drops CR, skips headers and blank lines, strips a RESP3 txt: prefix', () => {
    const fields = parseInfo('txt:# Server\r\nexecutable:/opt/valkey:9/bin\r\n\r\nlistener0:name=tcp,bind=*,port=6379\r\nnot a field\r\n');
    expect([...fields]).toEqual([
      ['executable', '/opt/valkey:9/bin'],
      ['listener0', 'name=tcp,bind=*,port=6379'],
    ]);
  });

  it('reads the valkey line wherever it is, even after redis_version', () => {
    expect(serverIdentity(parseInfo('redis_version:7.2.4\nvalkey_version:9.1.0\n'))).toEqual({ kind: 'valkey', version: '9.1.0' });
  });
});

describe('the strict version policy', () => {
  it.each([
    ['9.0.1', true],
    ['9.0.5', true],
    ['9.1.0', true],
    ['10.0.0', true],
    ['9.0.0', false],
    ['8.1.4', false],
  ])('valkey_version %s passes: %s', (version, ok) => {
    expect(strictPolicy.check({ kind: 'valkey', version }).ok).toBe(ok);
  });

  it('rejects versions it cannot read rather than guessing', () => {
    expect(strictPolicy.check({ kind: 'valkey', version: '9.0.1-rc1' })).toEqual({
      ok: false,
      reason: 'UnreadableVersion',
      found: 'valkey_version "9.0.1-rc1" (not MAJOR.MINOR.PATCH)',
    });
  });

  it('names the pod, what it found and the floor', () => {
    const redis = serverIdentity(parseInfo(fixture('redis-7.0.15.txt')));
    expect(describeIdentity(redis)).toBe('no valkey_version: not Valkey (redis_version 7.0.15)');
    const verdict = strictPolicy.check(redis);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(rejectionMessage('shop/cache-0-0', verdict.found)).toMatchInlineSnapshot(
      `"Pod shop/cache-0-0 runs no valkey_version: not Valkey (redis_version 7.0.15); valkey-krm requires Valkey 9.0.1 or later (the version floor), so the node was not joined"`,
    );
    const old = strictPolicy.check(serverIdentity(parseInfo(fixture('valkey-8.1.1.txt'))));
    expect(old).toEqual({ ok: false, reason: 'BelowFloor', found: 'valkey_version 8.1.1' });
  });
});

describe('versionInStartupLog: the version a server that exits at start-up names in its log', () => {
  it('reads the start-up banner, and the fatal config error of a line the release does not know', () => {
    expect(versionInStartupLog('1:M 02 Dec 2026 * Valkey version=8.0.1, bits=64, commit=00000000\n# Aborting Valkey startup')).toBe(
      '8.0.1',
    );
    expect(
      versionInStartupLog(
        "\n*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***\nReading the configuration file, at line 7\n>>> 'shutdown-on-sigterm failover'\n",
      ),
    ).toBe('8.0.1');
    // The last start counts; Redis's own words name no Valkey version.
    expect(versionInStartupLog('Valkey version=9.1.2, bits=64\n*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***')).toBe('8.0.1');
    expect(versionInStartupLog('*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***')).toBeUndefined();
  });
});
