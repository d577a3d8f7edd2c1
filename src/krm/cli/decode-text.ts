import { isAscii } from 'node:buffer';

/** UTF-8 bytes as text. ASCII, the usual case, decodes as latin1: the same text, several times faster. */
export function decodeText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}
