import { isAscii, isUtf8 } from 'node:buffer';

/** UTF-8 bytes as text. ASCII, the usual case, decodes as latin1: the same text, several times faster. */
export function decodeText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * Where bytes stop being UTF-8 (`line L, column C`, columns in characters), or undefined when they
 * are UTF-8. Decoding would turn a bad sequence (a stray byte, an encoded surrogate) into U+FFFD
 * silently, where go-yaml, and so kpt and kustomize, refuse the file.
 */
export function notUtf8At(bytes: Buffer): string | undefined {
  if (isAscii(bytes) || isUtf8(bytes)) return undefined;
  // The longest prefix that decodes: bisect on whole lines first would be faster, but this runs
  // only for a file that is about to be refused.
  let good = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] as number;
    const len = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    try {
      if (len === 0 || i + len > bytes.length) throw new Error('not UTF-8');
      decoder.decode(bytes.subarray(i, i + len));
    } catch {
      break;
    }
    i += len;
    good = i;
  }
  const before = bytes.subarray(0, good).toString('utf8');
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.split('\n').length;
  return `line ${line}, column ${[...before.slice(lineStart)].length + 1}`;
}
