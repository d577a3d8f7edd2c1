/**
 * RESP2, the protocol Valkey speaks: commands go out as arrays of bulk strings; replies are
 * parsed incrementally from whatever chunks the socket delivers.
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

const CRLF = Buffer.from('\r\n');
const INCOMPLETE: unique symbol = Symbol('incomplete');

/** Feed chunks with `push`, take complete replies with `next` (undefined = need more bytes). */
export class RespParser {
  private buf = Buffer.alloc(0);
  private pos = 0;

  push(chunk: Buffer): void {
    this.buf = this.pos > 0 ? Buffer.concat([this.buf.subarray(this.pos), chunk]) : Buffer.concat([this.buf, chunk]);
    this.pos = 0;
  }

  next(): RespValue | undefined {
    const start = this.pos;
    const value = this.read();
    if (value === INCOMPLETE) {
      this.pos = start;
      return undefined;
    }
    return value;
  }

  private line(): string | typeof INCOMPLETE {
    const end = this.buf.indexOf(CRLF, this.pos);
    if (end < 0) return INCOMPLETE;
    const text = this.buf.toString('utf8', this.pos, end);
    this.pos = end + 2;
    return text;
  }

  private read(): RespValue | typeof INCOMPLETE {
    if (this.pos >= this.buf.length) return INCOMPLETE;
    const type = String.fromCharCode(this.buf[this.pos] as number);
    this.pos++;
    const head = this.line();
    if (head === INCOMPLETE) return INCOMPLETE;
    switch (type) {
      case '+':
        return head;
      case '-':
        return new RespError(head);
      case ':':
        return Number(head);
      case '$': {
        const len = Number(head);
        if (len < 0) return null;
        if (this.buf.length < this.pos + len + 2) return INCOMPLETE;
        const text = this.buf.toString('utf8', this.pos, this.pos + len);
        this.pos += len + 2;
        return text;
      }
      case '*': {
        const n = Number(head);
        if (n < 0) return null;
        const items: RespValue[] = [];
        for (let i = 0; i < n; i++) {
          const item = this.read();
          if (item === INCOMPLETE) return INCOMPLETE;
          items.push(item);
        }
        return items;
      }
      default:
        throw new RespProtocolError(`unexpected RESP type byte ${JSON.stringify(type)}`);
    }
  }
}
