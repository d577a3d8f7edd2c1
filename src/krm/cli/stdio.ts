import { fstatSync, readSync, writeSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { decodeText } from './decode-text.js';

// stdin and stdout with plain blocking system calls: the stream machinery behind process.stdin
// and process.stdout costs milliseconds to load on every run, and is used only as a fallback.

/**
 * Whether stdin is a terminal. Only a character device can be one, so the tty module (which loads
 * the whole stream stack) is loaded only then; process.stdin is never touched, since creating it
 * would make fd 0 non-blocking.
 */
export function stdinIsTerminal(): boolean {
  try {
    if (!fstatSync(0).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  const { isatty } = process.getBuiltinModule('node:tty') as typeof import('node:tty');
  return isatty(0);
}

/**
 * Reads all of stdin with plain blocking reads (no stream machinery to load at start-up) through
 * one reused buffer. ASCII megabytes become text as they come, which spares copying and decoding
 * the whole input once more at the end; from the first non-ASCII megabyte on, bytes are kept and
 * decoded as UTF-8 at the end. If the descriptor turns out to be non-blocking (EAGAIN), what has
 * arrived is kept and the rest is read through process.stdin.
 */
export async function readStdin(): Promise<string> {
  const text: string[] = [];
  const bytes: Buffer[] = [];
  const buf = Buffer.allocUnsafe(1 << 20);
  let used = 0;
  const flush = () => {
    if (used === 0) return;
    const chunk = buf.subarray(0, used);
    if (bytes.length === 0 && isAscii(chunk)) text.push(chunk.toString('latin1'));
    else bytes.push(Buffer.from(chunk)); // a copy: the buffer is reused
    used = 0;
  };
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, used, buf.length - used, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code !== 'EAGAIN') throw e;
      flush();
      for await (const chunk of process.stdin) bytes.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      break;
    }
    if (n === 0) break;
    used += n;
    if (used === buf.length) flush();
  }
  flush();
  if (bytes.length) text.push(decodeText(Buffer.concat(bytes)));
  return text.length === 1 ? (text[0] as string) : text.join('');
}

/**
 * Writes the chunks to stdout with plain blocking writes (no stream machinery to load, nothing
 * buffered twice). If stdout turns out to be non-blocking (EAGAIN), the rest goes through
 * process.stdout, which waits for the reader; `done` runs once everything is written.
 */
export function writeChunks(chunks: readonly Uint8Array[], done: () => void): void {
  for (let i = 0; i < chunks.length; i++) {
    const bytes = chunks[i] as Uint8Array;
    let offset = 0;
    try {
      while (offset < bytes.length) offset += writeSync(1, bytes, offset);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') {
        done(); // the reader has gone: nobody is left to tell
        return;
      }
      if (code !== 'EAGAIN') throw e;
      for (const rest of [bytes.subarray(offset), ...chunks.slice(i + 1)]) process.stdout.write(rest);
      process.stdout.write('', done);
      return;
    }
  }
  done();
}
