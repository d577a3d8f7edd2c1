const CHUNK = 1024 * 1024;

/**
 * An append-only UTF-8 byte sink. Large renders are written as UTF-8 straight into buffers of
 * 1 MiB, which go to stdout one by one: building one string of tens of MiB and converting it to
 * bytes at the end cost more time and memory than the render itself.
 */
export class ByteSink {
  private readonly done: Buffer[] = [];
  private buf: Buffer;
  private len = 0;

  /**
   * Set by a sink that records a text with blanks (krm/cluster-writer.ts): the emitter hands a
   * string value that holds it to blank() instead of writing it.
   */
  readonly blankMark: string | undefined = undefined;

  constructor(private readonly chunkSize = CHUNK) {
    this.buf = Buffer.allocUnsafe(chunkSize);
  }

  /** A string value holding blankMark, at column `col`: only a recording sink takes one. */
  blank(_value: string, _col: number): void {
    throw new Error('internal error: a blank written to a sink that does not record blanks');
  }

  /** The bytes written so far, in one buffer of their own; the sink is empty afterwards. */
  take(): Buffer {
    const bytes = Buffer.concat(this.chunks());
    this.done.length = 0;
    this.len = 0;
    return bytes;
  }

  write(s: string): void {
    const n = s.length;
    if (this.len + n * 3 > this.buf.length) this.grow(n * 3);
    const buf = this.buf;
    let len = this.len;
    // A long string is cheaper to hand to Node's encoder than to copy code unit by code unit.
    if (n > 48) {
      this.len = len + buf.write(s, len, 'utf8');
      return;
    }
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        // Rare: let Node encode the rest (surrogate pairs included).
        this.len = len + buf.write(i === 0 ? s : s.slice(i), len, 'utf8');
        return;
      }
      buf[len++] = c;
    }
    this.len = len;
  }

  /** Appends bytes as they are. */
  writeBytes(bytes: Uint8Array): void {
    if (this.len + bytes.length > this.buf.length) this.grow(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  private grow(atLeast: number): void {
    if (this.len > 0) this.done.push(this.buf.subarray(0, this.len));
    this.buf = Buffer.allocUnsafe(Math.max(this.chunkSize, atLeast));
    this.len = 0;
  }

  /** Appends what `other` holds, without copying it; `other` is not written to afterwards. */
  append(other: ByteSink): void {
    const theirs = other.chunks();
    if (theirs.length === 0) return;
    if (this.len > 0) this.done.push(this.buf.subarray(0, this.len));
    this.done.push(...theirs);
    // The rest of the current buffer is still free: keep writing there.
    this.buf = this.buf.subarray(this.len);
    this.len = 0;
  }

  chunks(): Buffer[] {
    return this.len > 0 ? [...this.done, this.buf.subarray(0, this.len)] : [...this.done];
  }

  toString(): string {
    const chunks = this.chunks();
    return chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
  }
}
