/**
 * `valkey.conf`, written by the renderer and read back by the plan and the controller: the one
 * writer of a directive line and the one reader, with exactly the rules of Valkey's own loader
 * (config.c `loadServerConfigFromString` and sds.c `sdssplitargs`):
 * - the text is cut at `\n`; each line is trimmed of spaces, tabs, `\r` and `\n`; a line that is
 *   then empty or starts with `#` is skipped; the directive's name is folded to lowercase;
 * - words are separated by spaces; a word ends at a space, tab, `\r`, `\n` or NUL (a vertical tab
 *   or form feed inside a word is kept, though it separates words before one starts);
 * - a `"` opens a quoted part in which `\xHH` (two hex digits) is that byte, `\n \r \t \b \a` are
 *   those characters and `\` before anything else is that character; a `'` opens a part in which
 *   only `\'` is an escape; quoted and unquoted parts join into one word until a space (`a"b c"d`
 *   is `ab cd`);
 * - a quote must be closed, or Valkey refuses the whole file ("Unbalanced quotes in configuration
 *   line"). Valkey 9 (`sdsparsearg`) lets a word go on after a closing quote; 8.0 refused that.
 * Valkey works on bytes: the words are read from the line's UTF-8 bytes and decoded back as UTF-8.
 */

/** Why a line cannot be split: a quote that is never closed. */
export type SplitFailure = { reason: 'unclosed'; quote: '"' | "'" };

export type SplitResult = { ok: true; words: string[] } | { ok: false; failure: SplitFailure };

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]); // C isspace: what separates words
const WORD_END = new Set([0x20, 0x0a, 0x0d, 0x09]); // what ends an unquoted part of a word (and NUL)
const DQ = 0x22;
const SQ = 0x27;
const BACKSLASH = 0x5c;
const ESCAPES: Record<number, number> = { 110: 0x0a, 114: 0x0d, 116: 0x09, 98: 0x08, 97: 0x07 };

const hexValue = (b: number | undefined): number | undefined => {
  if (b === undefined) return undefined;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  if (b >= 0x41 && b <= 0x46) return b - 0x41 + 10;
  return undefined;
};

// Made on first use: creating them loads Node's encoding module, which most runs never need.
let decoder: InstanceType<typeof TextDecoder> | undefined;
let encoder: InstanceType<typeof TextEncoder> | undefined;
const utf8 = (line: string): Uint8Array => {
  encoder ??= new TextEncoder();
  return encoder.encode(line);
};
const fromUtf8 = (bytes: Uint8Array): string => {
  decoder ??= new TextDecoder('utf-8');
  return decoder.decode(bytes);
};

/** One line into words as Valkey splits a config line (sdssplitargs), or why it cannot be. */
export function splitValkeyArgs(line: string): SplitResult {
  const bytes = utf8(line);
  // Valkey reads the line as a C string: a NUL ends it.
  const nul = bytes.indexOf(0);
  const end = nul < 0 ? bytes.length : nul;
  const at = (i: number): number | undefined => (i < end ? bytes[i] : undefined);
  const words: string[] = [];
  let i = 0;
  for (;;) {
    while (at(i) !== undefined && SPACE.has(at(i) as number)) i++;
    if (at(i) === undefined) return { ok: true, words };
    const word: number[] = [];
    let quote: number | undefined;
    for (;;) {
      const c = at(i);
      if (quote === DQ) {
        if (c === undefined) return { ok: false, failure: { reason: 'unclosed', quote: '"' } };
        const hi = hexValue(at(i + 2));
        const lo = hexValue(at(i + 3));
        if (c === BACKSLASH && at(i + 1) === 0x78 && hi !== undefined && lo !== undefined) {
          word.push(hi * 16 + lo);
          i += 4;
        } else if (c === BACKSLASH && at(i + 1) !== undefined) {
          const e = at(i + 1) as number;
          word.push(ESCAPES[e] ?? e);
          i += 2;
        } else {
          if (c === DQ) quote = undefined;
          else word.push(c);
          i++;
        }
      } else if (quote === SQ) {
        if (c === undefined) return { ok: false, failure: { reason: 'unclosed', quote: "'" } };
        if (c === BACKSLASH && at(i + 1) === SQ) {
          word.push(SQ);
          i += 2;
        } else {
          if (c === SQ) quote = undefined;
          else word.push(c);
          i++;
        }
      } else {
        if (c === undefined) break;
        i++;
        if (WORD_END.has(c)) break;
        if (c === DQ || c === SQ) quote = c;
        else word.push(c);
      }
    }
    words.push(fromUtf8(new Uint8Array(word)));
  }
}

/** One directive of the file: its name (lowercase, as Valkey looks it up) and its arguments. */
export interface Directive {
  name: string;
  args: string[];
  /** The arguments as the file spells them (everything after the name), for messages and diffs. */
  written: string;
  /** 1-based line number in the file. */
  line: number;
}

export interface ValkeyConf {
  /** In file order; a directive given on several lines (`save`) appears once per line. */
  directives: Directive[];
  /** Lines Valkey would refuse to load, with the reason. */
  problems: string[];
}

const TRIM = /^[ \t\r\n]+|[ \t\r\n]+$/g;

/** A whole `valkey.conf` as Valkey's loader reads it. */
export function readValkeyConf(text: string): ValkeyConf {
  const directives: Directive[] = [];
  const problems: string[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.replace(TRIM, '');
    if (line === '' || line.startsWith('#')) continue;
    const split = splitValkeyArgs(line);
    if (!split.ok) {
      problems.push(`line ${index + 1}: ${describeSplitFailure(split.failure)}`);
      continue;
    }
    const [name, ...args] = split.words;
    if (name === undefined) continue;
    const space = line.search(/[ \t]/);
    directives.push({ name: name.toLowerCase(), args, written: space < 0 ? '' : line.slice(space + 1).replace(TRIM, ''), line: index + 1 });
  }
  return { directives, problems };
}

/** Directives by name, each with every line's arguments (a repeated directive keeps them all). */
export type DirectivesByName = ReadonlyMap<string, readonly (readonly string[])[]>;

export function directivesByName(conf: ValkeyConf): DirectivesByName {
  const out = new Map<string, string[][]>();
  for (const d of conf.directives) out.set(d.name, [...(out.get(d.name) ?? []), d.args]);
  return out;
}

/** A quoting mistake, in the words the validation messages use. */
export const describeSplitFailure = (f: SplitFailure): string => `a value has a ${f.quote} that is never closed`;

/**
 * The line the renderer writes for a setting: the name, a space, the value as the config wrote it
 * (configs write Valkey's own syntax, quotes included). An empty value must be spelled `""`, or
 * Valkey reads a directive with no argument.
 */
export const valkeyConfLine = (name: string, value: string): string => `${name} ${value === '' ? '""' : value}`;
