import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedis } from './redis.js';
import { rawCommand, type RunningServer } from './servers.js';

describe('redis harness', () => {
  const started: RunningServer[] = [];
  afterAll(async () => {
    await Promise.all(started.map((r) => r.stop()));
  });

  it('starts a loopback redis-server that answers, persists nothing and stops cleanly', async () => {
    const r = await startRedis();
    started.push(r);
    expect(r.host).toBe('127.0.0.1');
    expect(
      await rawCommand(
        r.port,
        [
          ['SET', 'k', 'v'],
          ['GET', 'k'],
        ],
        { done: (s) => s.endsWith('$1\r\nv\r\n') },
      ),
    ).toBe('+OK\r\n$1\r\nv\r\n');
    const info = await rawCommand(r.port, [['INFO', 'server']], { done: (s) => /^\$(\d+)\r\n/.test(s) && s.endsWith('\r\n\r\n') });
    expect(info).toContain('redis_version:');
    expect(info).not.toContain('valkey_version:');
    const save = await rawCommand(r.port, [['CONFIG', 'GET', 'save']], { done: (s) => s.split('\r\n').length >= 5 });
    expect(save).toBe('*2\r\n$4\r\nsave\r\n$0\r\n\r\n');

    await r.stop();
    expect(existsSync(r.dir)).toBe(false);
    await expect(rawCommand(r.port, [['PING']], { timeoutMs: 500 })).rejects.toThrow();
  });

  it('takes a config file, extra args and a password', async () => {
    const r = await startRedis({
      confText: 'maxmemory 10mb\nmaxmemory-policy allkeys-lru\n',
      args: ['--requirepass', 's3cret'],
      password: 's3cret',
    });
    started.push(r);
    expect(await rawCommand(r.port, [['PING']])).toMatch(/^-NOAUTH/);
    const reply = await rawCommand(
      r.port,
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
});
