/**
 * RESP2, the protocol Valkey speaks: commands go out as arrays of bulk strings; replies are
 * parsed incrementally from whatever chunks the socket delivers.
 *
 * A node is not trusted to answer sensibly: the parser bounds each reply (bytes, array items,
 * nesting, header length) and its work is linear in the bytes received, however the node splits
 * them. Before this, a buffer was re-concatenated and a partial array re-parsed from its first item
 * on every chunk, which made a few hostile nodes cost the controller hundreds of MiB and seconds
 * of event loop.
 */
export class RespError {
  constructor(readonly message: string) {}
  /** The error code, e.g. `ERR`, `WRONGPASS`, `LOADING`. */
  get code(): string {
    return this.message.split(' ', 1)[0] ?? '';
  }
}

export type RespValue = string | number | null | RespError | RespValue[];

export function encodeCommand(args: readonly string[]): Buffer {
  const parts = [`*${args.length}\r\n`];
  for (const a of args) parts.push(`$${Buffer.byteLength(a)}\r\n${a}\r\n`);
  return Buffer.from(parts.join(''));
}

export class RespProtocolError extends Error {}

/** How big a reply the controller accepts from a node. */
export interface RespLimits {
  /** Bytes of one reply, all of it (headers, items, CRLFs). */
  maxReplyBytes: number;
  /** Items of one array, and of all arrays of one reply together. */
  maxItems: number;
  /** Arrays inside arrays. */
  maxDepth: number;
  /** One header or simple-string line (`+OK`, `-ERR ...`, `:42`, `$5`, `*3`). */
  maxLineBytes: number;
}

/**
 * The biggest reply the controller asks for is `CLUSTER NODES` of the largest cluster the CRD
 * allows (1,000 shards × 11 pods: about 11,000 lines of ~200 bytes, under 3 MiB; bench/controller.bench.ts
 * generates it); INFO, CONFIG GET and ACL LIST are kilobytes. 8 MiB leaves room for slot markers
 * and long hostnames, while the 32 nodes a pass asks at once stay within the memory limit.
 */
export const DEFAULT_RESP_LIMITS: RespLimits = {
  maxReplyBytes: 8 * 1024 * 1024,
  maxItems: 1_000_000,
  maxDepth: 8,
  maxLineBytes: 64 * 1024,
};

const OPENED: unique symbol = Symbol('opened');
const CR = 13;
const LF = 10;

/** An array whose items are still arriving. */
interface Frame {
  items: RespValue[];
  length: number;
}

/** Feed chunks with `push`, take complete replies with `next` (undefined = need more bytes). */
export class RespParser {
  /** Received bytes live in `buf[pos, end)`; the buffer grows by doubling, so appends are linear. */
  private buf = Buffer.alloc(0);
  private pos = 0;
  private end = 0;
  /** Where the search for the current header's CRLF resumes (no byte is scanned twice). */
  private scanFrom = 0;
  /** Arrays of the current reply still filling up, outermost first. */
  private readonly stack: Frame[] = [];
  /** Bytes of the current reply consumed so far, and its array items counted so far. */
  private replyBytes = 0;
  private replyItems = 0;
  /** A bulk string whose header was read and whose body (this many bytes, then CRLF) is awaited. */
  private bulkLength: number | undefined;
  private readonly limits: RespLimits;

  constructor(limits: Partial<RespLimits> = {}) {
    this.limits = { ...DEFAULT_RESP_LIMITS, ...limits };
  }

  /** Bytes held, parsed into partial arrays or not yet parsed: what a reply costs while it arrives. */
  get bufferedBytes(): number {
    return this.end - this.pos;
  }

  push(chunk: Buffer): void {
    if (this.replyBytes + this.end - this.pos + chunk.length > this.limits.maxReplyBytes + this.limits.maxLineBytes) {
      throw new RespProtocolError(`a reply larger than ${this.limits.maxReplyBytes} bytes`);
    }
    this.reserve(chunk.length);
    chunk.copy(this.buf, this.end);
    this.end += chunk.length;
  }

  /** Room for `more` bytes after `end`: the consumed bytes are dropped, and the buffer at least doubles when it grows. */
  private reserve(more: number): void {
    if (this.end + more <= this.buf.length) return;
    const live = this.end - this.pos;
    const needed = live + more;
    if (needed <= this.buf.length) {
      this.buf.copy(this.buf, 0, this.pos, this.end);
    } else {
      const grown = Buffer.alloc(Math.max(needed, this.buf.length * 2, 16 * 1024));
      this.buf.copy(grown, 0, this.pos, this.end);
      this.buf = grown;
    }
    this.scanFrom -= this.pos;
    this.pos = 0;
    this.end = live;
  }

  next(): RespValue | undefined {
    for (;;) {
      const value = this.readScalarOrOpen();
      if (value === undefined) return undefined;
      if (value === OPENED) continue;
      const reply = this.close(value);
      if (reply !== undefined) return reply;
    }
  }

  /** Files a finished value into the arrays it completes; the whole reply once the outermost is done. */
  private close(value: RespValue): RespValue | undefined {
    let done = value;
    for (;;) {
      const top = this.stack[this.stack.length - 1];
      if (!top) {
        this.replyBytes = 0;
        this.replyItems = 0;
        return done;
      }
      top.items.push(done);
      if (top.items.length < top.length) return undefined;
      this.stack.pop();
      done = top.items;
    }
  }

  /** One CRLF-terminated header line, or undefined when its end has not arrived. */
  private line(): string | undefined {
    const received = this.buf.subarray(0, this.end);
    let cr = -1;
    for (let i = received.indexOf(CR, Math.max(this.scanFrom, this.pos)); i >= 0 && i + 1 < this.end; i = received.indexOf(CR, i + 1)) {
      if (received[i + 1] === LF) {
        cr = i;
        break;
      }
    }
    if (cr < 0) {
      if (this.end - this.pos > this.limits.maxLineBytes)
        throw new RespProtocolError(`a header line longer than ${this.limits.maxLineBytes} bytes`);
      // Resume after what was scanned, keeping a trailing CR that may pair with the next chunk's LF.
      this.scanFrom = this.end > this.pos && this.buf[this.end - 1] === CR ? this.end - 1 : this.end;
      return undefined;
    }
    if (cr - this.pos > this.limits.maxLineBytes)
      throw new RespProtocolError(`a header line longer than ${this.limits.maxLineBytes} bytes`);
    const text = this.buf.toString('utf8', this.pos + 1, cr);
    this.consume(cr + 2 - this.pos);
    return text;
  }

  private consume(n: number): void {
    this.pos += n;
    this.scanFrom = this.pos;
    this.replyBytes += n;
    if (this.replyBytes > this.limits.maxReplyBytes) throw new RespProtocolError(`a reply larger than ${this.limits.maxReplyBytes} bytes`);
    if (this.pos === this.end) {
      this.pos = 0;
      this.end = 0;
      this.scanFrom = 0;
      // A big reply's buffer is not kept for the small ones after it.
      if (this.buf.length > 1024 * 1024) this.buf = Buffer.alloc(0);
    }
  }

  /** A length header: a whole number from -1 up, or a protocol error. */
  private length(head: string, what: string): number {
    if (!/^(-1|0|[1-9]\d{0,15})$/.test(head))
      throw new RespProtocolError(`${what} length ${JSON.stringify(head.slice(0, 40))} is not a length`);
    return Number(head);
  }

  /**
   * The next complete scalar, or OPENED when an array header was read (its items follow), or
   * undefined when more bytes are needed. A bulk string is taken only once all of it is here, so
   * nothing is consumed for it until then.
   */
  private readScalarOrOpen(): RespValue | typeof OPENED | undefined {
    if (this.bulkLength !== undefined) return this.bulkBody(this.bulkLength);
    if (this.pos >= this.end) return undefined;
    const type = this.buf[this.pos] as number;
    const head = this.line();
    if (head === undefined) return undefined;
    switch (type) {
      case 0x2b /* + */:
        return head;
      case 0x2d /* - */:
        return new RespError(head);
      case 0x3a /* : */:
        {
          if (!/^-?\d{1,19}$/.test(head)) throw new RespProtocolError(`integer reply ${JSON.stringify(head.slice(0, 40))} is not a number`);
          return Number(head);
        }
      case 0x24 /* $ */:
        {
          const len = this.length(head, 'bulk string');
          if (len < 0) return null;
          if (this.replyBytes + len + 2 > this.limits.maxReplyBytes)
            throw new RespProtocolError(`a bulk string of ${len} bytes (replies are limited to ${this.limits.maxReplyBytes} bytes)`);
          return this.bulkBody(len);
        }
      case 0x2a /* * */:
        {
          const n = this.length(head, 'array');
          if (n < 0) return null;
          if (n > this.limits.maxItems || this.replyItems + n > this.limits.maxItems)
            throw new RespProtocolError(`an array of ${n} items (more than ${this.limits.maxItems} in one reply)`);
          if (n === 0) return [];
          if (this.stack.length >= this.limits.maxDepth) throw new RespProtocolError(`arrays nested deeper than ${this.limits.maxDepth}`);
          this.replyItems += n;
          this.stack.push({ items: [], length: n });
          return OPENED;
        }
      default:
        throw new RespProtocolError(`unexpected RESP type byte ${JSON.stringify(String.fromCharCode(type))}`);
    }
  }

  private bulkBody(len: number): RespValue | undefined {
    if (this.end - this.pos < len + 2) {
      // Its size is known: make room for all of it now, so it is copied once as it arrives.
      if (this.bulkLength === undefined) this.reserve(len + 2 - (this.end - this.pos));
      this.bulkLength = len;
      return undefined;
    }
    this.bulkLength = undefined;
    if (this.buf[this.pos + len] !== CR || this.buf[this.pos + len + 1] !== LF)
      throw new RespProtocolError('a bulk string not followed by CRLF');
    const text = this.buf.toString('utf8', this.pos, this.pos + len);
    this.consume(len + 2);
    return text;
  }
}
