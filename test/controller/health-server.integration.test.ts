// The health listener against clients that hold connections open: idle ones, slow ones, too many.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HEALTH_SERVER_LIMITS,
  startHealthServer,
  type HealthServer,
  type HealthServerLimits,
} from '../../src/controller/runtime/health-server.js';

const started: HealthServer[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
});

async function server(limits: Partial<HealthServerLimits>): Promise<HealthServer> {
  const s = await startHealthServer({
    host: '127.0.0.1',
    port: 0,
    healthy: () => true,
    ready: () => true,
    metrics: async () => ({ contentType: 'text/plain', body: '' }),
    limits,
  });
  started.push(s);
  return s;
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

/** Resolves with how long the server took to close `socket`, or 'open' after `withinMs`. */
function closedWithin(socket: Socket, withinMs: number): Promise<number | 'open'> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('open'), withinMs);
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - t0);
    });
  });
}

describe('the health server closes and caps connections', () => {
  it('closes a connection that sends nothing once it has been idle for idleMs', async () => {
    const s = await server({ idleMs: 300, requestMs: 5_000 });
    const socket = await open(s.port);
    expect(await closedWithin(socket, 5_000)).not.toBe('open');
  });

  it('under the shipped limits, closes a connection that never sends a byte, and one that sent one (Node 20 left both open for ever)', async () => {
    const s = await server({});
    const silent = await open(s.port);
    const oneByte = await open(s.port);
    oneByte.write('G');
    const [a, b] = await Promise.all([
      closedWithin(silent, HEALTH_SERVER_LIMITS.idleMs + 5_000),
      closedWithin(oneByte, HEALTH_SERVER_LIMITS.idleMs + 5_000),
    ]);
    expect(a).not.toBe('open');
    expect(b).not.toBe('open');
  }, 40_000);

  it('closes a request that trickles in (one byte at a time, never idle) after requestMs', async () => {
    const s = await server({ idleMs: 10_000, requestMs: 500 });
    const socket = await open(s.port);
    const closed = closedWithin(socket, 8_000);
    const request = 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: '.padEnd(4096, 'a');
    let i = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(request[i++ % request.length] as string);
    }, 50);
    try {
      expect(await closed).not.toBe('open');
    } finally {
      clearInterval(drip);
    }
  });

  it('closes connections past maxConnections at once, and answers again when the holders leave', async () => {
    const s = await server({ idleMs: 60_000, requestMs: 60_000, maxConnections: 4 });
    const holders = await Promise.all(Array.from({ length: 4 }, () => open(s.port)));
    const extra = await open(s.port);
    expect(await closedWithin(extra, 3_000)).not.toBe('open');
    for (const h of holders) h.destroy();
    // The server learns of the closes asynchronously; the first probe after that is answered.
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      // A request whose connection the server drops can hang in fetch: bound each attempt.
      status = await fetch(`http://127.0.0.1:${s.port}/healthz`, { signal: AbortSignal.timeout(500) }).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });

  it('answers a probe under the default bounds', async () => {
    const s = await server({});
    const res = await fetch(`http://127.0.0.1:${s.port}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok\n');
  });
});
