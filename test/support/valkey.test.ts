import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { rawCommand, type RunningServer } from './servers.js';
import { SUPPORTED_BUILD, VALKEY_BUILDS, VALKEY_VERSION, aclForPre9Builds, startValkey, valkeyServerPath } from './valkey.js';

const infoServer = (port: number) =>
  rawCommand(port, [['INFO', 'server']], { done: (s) => /^\$(\d+)\r\n/.test(s) && s.endsWith('\r\n\r\n') });

describe('valkey harness', () => {
  const started: RunningServer[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
  });

  it('finds every build from the repository root, whatever the cwd', () => {
    for (const build of VALKEY_BUILDS)
      expect(valkeyServerPath(build)).toMatch(new RegExp(`/shared/valkey/${build.replaceAll('.', '\\.')}/valkey-server$`));
  });

  it.each(VALKEY_BUILDS)('starts %s on loopback, reports its valkey_version, persists nothing and stops cleanly', async (build) => {
    const v = await startValkey({ build });
    started.push(v);
    expect(v.host).toBe('127.0.0.1');
    const info = await infoServer(v.port);
    expect(info).toContain(`valkey_version:${VALKEY_VERSION[build]}\r\n`);
    expect(info).toContain('server_name:valkey\r\n');
    const save = await rawCommand(v.port, [['CONFIG', 'GET', 'save']], { done: (s) => s.split('\r\n').length >= 5 });
    expect(save).toBe('*2\r\n$4\r\nsave\r\n$0\r\n\r\n');
    await v.stop();
    expect(existsSync(v.dir)).toBe(false);
    await expect(rawCommand(v.port, [['PING']], { timeoutMs: 500 })).rejects.toThrow();
  });

  it('takes a config file, extra args and a password', async () => {
    const v = await startValkey({
      build: SUPPORTED_BUILD,
      confText: 'maxmemory 10mb\nmaxmemory-policy allkeys-lru\n',
      args: ['--requirepass', 's3cret'],
      password: 's3cret',
    });
    started.push(v);
    expect(await rawCommand(v.port, [['PING']])).toMatch(/^-NOAUTH/);
    const reply = await rawCommand(
      v.port,
      [
        ['AUTH', 's3cret'],
        ['CONFIG', 'GET', 'maxmemory-policy'],
      ],
      {
        done: (s) => s.includes('allkeys-lru\r\n'),
      },
    );
    expect(reply).toContain('allkeys-lru');
  });

  it('reports a server that refuses to start, with its log', async () => {
    await expect(startValkey({ build: '8.0.1', args: ['--no-such-option', '1'], quietFailure: true })).rejects.toThrow(
      /valkey-server 8\.0\.1 failed to start: .*exited[\s\S]*no-such-option/,
    );
  });

  it('aclForPre9Builds drops exactly the 9.0 subcommand, and refuses an ACL without it', () => {
    expect(aclForPre9Builds('user r on -@all +psync +cluster|syncslots +select\n')).toBe('user r on -@all +psync +select\n');
    expect(() => aclForPre9Builds('user r on -@all +psync\n')).toThrow(/no \+cluster\|syncslots/);
  });
});
