// A node that answers badly: the RESP client bounds what it accepts and fails the one
// connection (a NodeUnavailableError: that node's observation says why), never the process.
import { createServer, type Server, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespParser, RespProtocolError } from '../../src/controller/valkey/resp.js';
import { NodeUnavailableError, connectResp } from '../../src/controller/valkey/resp-connection.js';

/** A server on 127.0.0.1 that answers the first command on each connection with `reply(socket)`. */
async function hostileServer(reply: (socket: Socket) => void): Promise<{ port: number; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
    s.once('data', () => reply(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, server, sockets };
}

/** Writes `total` bytes of `unit` repeated, in chunks, for as long as the socket takes them. */
function flood(socket: Socket, head: string, unit: Buffer, total: number, tail = ''): void {
  socket.write(head);
  let sent = 0;
  const pump = (): void => {
    while (sent < total && !socket.destroyed) {
      sent += unit.length;
      if (!socket.write(unit)) return void socket.once('drain', pump);
    }
    if (tail && !socket.destroyed) socket.write(tail);
  };
  pump();
}

describe('RespParser bounds and linear work', () => {
  const parse = (wire: string, limits = {}): unknown => {
    const p = new RespParser(limits);
    p.push(Buffer.from(wire));
    return p.next();
  };

  it.each([
    ['a bulk length past the reply bound', '$9007199254740991\r\n', /bulk string of 9007199254740991 bytes/],
    ['a bulk length that is not a number', '$abc\r\nxyz\r\n', /bulk string length "abc" is not a length/],
    ['a negative bulk length other than -1', '$-5\r\n', /is not a length/],
    ['an array of more items than the bound', '*2147483647\r\n', /array of 2147483647 items/],
    ['an integer that is not one', ':12x\r\n', /integer reply "12x" is not a number/],
    ['arrays nested past the bound', `${'*1\r\n'.repeat(9)}:1\r\n`, /nested deeper than 8/],
    ['a bulk string not followed by CRLF', '$2\r\nabcd\r\n', /not followed by CRLF/],
  ])('refuses %s at once', (_what, wire, message) => {
    expect(() => parse(wire)).toThrow(message);
    expect(() => parse(wire)).toThrow(RespProtocolError);
  });

  it('refuses a header line with no end once it passes the line bound, whatever the chunks', () => {
    const p = new RespParser({ maxLineBytes: 1024 });
    p.push(Buffer.from('+'));
    expect(() => {
      for (let i = 0; i < 2048; i++) p.push(Buffer.from('a'));
      p.next();
    }).toThrow(/header line longer than 1024 bytes/);
  });

  it('counts items of nested arrays together against the bound', () => {
    expect(() => parse('*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*3\r\n', { maxItems: 6 })).toThrow(/more than 6 in one reply/);
    expect(parse('*2\r\n*2\r\n:1\r\n:2\r\n*2\r\n:3\r\n:4\r\n', { maxItems: 6 })).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('parses a 200,000-item array fed 7 bytes at a time (quadratic work would take hours)', () => {
    const n = 200_000;
    const item = Buffer.from('$1\r\nx\r\n');
    const p = new RespParser();
    p.push(Buffer.from(`*${n}\r\n`));
    const early: unknown[] = [];
    let reply: unknown;
    for (let i = 0; i < n; i++) {
      p.push(item);
      reply = p.next();
      if (i < n - 1 && reply !== undefined) early.push(reply);
    }
    expect(early).toEqual([]);
    expect(Array.isArray(reply) && reply.length).toBe(n);
    expect(p.bufferedBytes).toBe(0);
  });

  it('parses a 4 MiB bulk string fed one byte at a time without holding more than the reply', () => {
    const size = 4 * 1024 * 1024;
    const p = new RespParser();
    p.push(Buffer.from(`$${size}\r\n`));
    const one = Buffer.from('y');
    let peak = 0;
    for (let i = 0; i < size; i++) {
      p.push(one);
      if ((i & 0xffff) === 0) {
        expect(p.next()).toBeUndefined();
        peak = Math.max(peak, p.bufferedBytes);
      }
    }
    p.push(Buffer.from('\r\n'));
    expect((p.next() as string).length).toBe(size);
    expect(peak).toBeLessThanOrEqual(size + 2);
  });
});

describe('the RESP client against hostile servers on 127.0.0.1', () => {
  const servers: Server[] = [];
  const opts = (port: number) => ({ host: '127.0.0.1', port, connectTimeoutMs: 2_000, commandTimeoutMs: 20_000 });
  afterAll(async () => {
    for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
  });
  let endless: { port: number; server: Server; sockets: Set<Socket> };
  let huge: { port: number; server: Server; sockets: Set<Socket> };
  let drip: { port: number; server: Server; sockets: Set<Socket> };
  beforeAll(async () => {
    // A CLUSTER NODES that never ends: 64 MiB of slot ranges in one bulk string that claims 9 PB.
    huge = await hostileServer((s) => flood(s, '$9007199254740991\r\n', Buffer.alloc(64 * 1024, '0-16383 '), 64 * 1024 * 1024));
    // An array reply that keeps sending small items, past any sane count.
    endless = await hostileServer((s) => flood(s, '*100000000\r\n', Buffer.from('$1\r\nx\r\n'.repeat(4096)), 512 * 1024 * 1024));
    // A reply as big as the bound allows, in 1 KiB writes: accepted, and parsed in linear time.
    drip = await hostileServer((s) => {
      const size = 6 * 1024 * 1024;
      flood(s, `$${size}\r\n`, Buffer.alloc(1024, 'a'), size, '\r\n');
    });
    servers.push(huge.server, endless.server, drip.server);
  });

  it('a bulk string that claims more than the bound fails that connection at its header, before any body byte is held', async () => {
    const c = await connectResp(opts(huge.port));
    const err = await c.call(['CLUSTER', 'NODES']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnavailableError);
    expect((err as Error).message).toMatch(/protocol error: a bulk string of 9007199254740991 bytes/);
  });

  it('an array that never ends fails at the item bound, holding no more than the reply bound', async () => {
    const c = await connectResp(opts(endless.port));
    const err = await c.call(['CLUSTER', 'NODES']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnavailableError);
    expect((err as Error).message).toMatch(/protocol error: an array of 100000000 items/);
  });

  it('eight nodes sending 6 MiB replies in 1 KiB pieces at once: all parsed in linear time', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const conns = await Promise.all(Array.from({ length: 8 }, () => connectResp(opts(drip.port))));
    const replies = await Promise.all(conns.map((c) => c.call(['CLUSTER', 'NODES'])));
    delay.disable();
    for (const c of conns) c.close();
    expect(replies.map((r) => (r as string).length)).toEqual(Array(8).fill(6 * 1024 * 1024));
    const worstMs = delay.max / 1e6;
    // A figure, not a bar (timings belong in bench/): quadratic buffering took minutes here.
    console.log(`8 × 6 MiB replies in 1 KiB writes: worst event-loop stall ${worstMs.toFixed(0)} ms`);
  });
});
