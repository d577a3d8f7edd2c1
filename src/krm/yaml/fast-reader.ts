/**
 * A fast reader for the plain block YAML that kpt and kustomize write into a ResourceList.
 *
 * The general `yaml` parser builds a concrete syntax tree and a document tree before it yields
 * plain values; on a ResourceList of a few thousand objects that was the largest single cost of a
 * render. This reader covers the common subset in one pass: block mappings and sequences, plain,
 * single- and double-quoted one-line scalars, literal block scalars (`|`, `|-`), one-line flow
 * sequences of scalars, `{}`, and comments. Plain scalars resolve as go-yaml v2 reads them (YAML 1.1
 * as kubectl reads it; go-scalars.ts), on both paths, so `yes`, `0755` and `1e3` mean the same thing.
 *
 * It never guesses: on anything outside that subset (anchors, tags, folded scalars, flow
 * mappings, multi-line flow or quoted scalars, tabs, CR line ends, duplicate keys, `__proto__`
 * keys, nesting near MAX_NESTING, unusual indentation, a comment or blank line on the boundary
 * between two items...) it gives up and returns undefined,
 * and the caller uses the full parser, which also produces the error messages. A differential test
 * checks both paths agree on values and item texts.
 */

import { resolveGoYamlScalar } from './go-scalars.js';
import { MAX_NESTING } from './nesting.js';

/** Thrown to abandon the fast path; never escapes this module. */
const BAIL: unique symbol = Symbol('bail');

export interface FastParse {
  /** The document's value. */
  root: unknown;
  /** When the top-level `items` is a block sequence: each item's text, from the line of its `-`. */
  itemTexts: string[];
  /** Column of the `-` of that sequence. */
  seqIndent: number;
}

/** The value of a plain (unquoted) scalar: as go-yaml v2 (kubectl) reads it, see go-scalars.ts. */
export const resolvePlainScalar = resolveGoYamlScalar;

/** Manifests repeat the same scalars thousands of times: resolve each once. */
const resolved = new Map<string, unknown>();
function resolveCached(source: string): unknown {
  // Most scalars are words longer than the longest YAML 1.1 boolean or null ("false"): a string,
  // whatever follows the first letter. Numbers start with a digit, a sign or a dot.
  const first = source.charCodeAt(0) | 0x20;
  if (source.length > 5 && first >= 97 && first <= 122) return source;
  let value = resolved.get(source);
  if (value === undefined && !resolved.has(source)) {
    value = resolvePlainScalar(source);
    if (resolved.size < 50_000) resolved.set(source, value);
  }
  return value;
}

// Characters the full parser treats specially or that this reader does not handle.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for (they send input to the full parser)
const UNSUPPORTED = /[\t\r\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;
const SPACE = 32;
const NEWLINE = 10;
const HASH = 35;
const COLON = 58;
const DASH = 45;

class Reader {
  /** Start of the current line. */
  pos = 0;
  /** End (after its newline) of the last line that held content. */
  lastContentEnd = 0;
  /** The texts of the items of the top-level `items` sequence, and the column of its `-`. */
  readonly itemTexts: string[] = [];
  seqIndent = 0;
  /**
   * Block collections open around the current line. At MAX_NESTING (one level kept for a flow
   * collection inside) the input goes to the full parser, which refuses what is too deep.
   */
  private depth = 0;

  /** The last answer of `spaceHash`: searched from `hashFrom`, found at `hashAt` (-1: none to the end). */
  private hashFrom = 0;
  private hashAt = -2;

  constructor(private readonly s: string) {}

  /**
   * Where the next ` #` (a space, then the `#` that starts a comment) is at or after `from`, or -1.
   * The reader moves forward, so one search serves every line up to the comment it finds.
   */
  private spaceHash(from: number): number {
    const at = this.hashAt;
    if (at !== -2 && from >= this.hashFrom && (at === -1 || from <= at)) return at;
    // By its `#`: spaces are everywhere, a `#` seldom, so this search skips ahead fast.
    const s = this.s;
    let hash = s.indexOf('#', from + 1);
    while (hash !== -1 && s.charCodeAt(hash - 1) !== SPACE) hash = s.indexOf('#', hash + 1);
    this.hashFrom = from;
    this.hashAt = hash === -1 ? -1 : hash - 1;
    return this.hashAt;
  }

  private readonly resolve = resolveCached;

  private lineEnd(from: number): number {
    const nl = this.s.indexOf('\n', from);
    return nl === -1 ? this.s.length : nl;
  }

  private nextLine(from: number): number {
    const nl = this.s.indexOf('\n', from);
    return nl === -1 ? this.s.length : nl + 1;
  }

  /** Skips blank and comment-only lines; returns the indentation of the next content line, or -1 at the end. */
  peek(): number {
    const s = this.s;
    while (this.pos < s.length) {
      let i = this.pos;
      while (s.charCodeAt(i) === SPACE) i++;
      const c = s.charCodeAt(i);
      if (i >= s.length) return -1;
      if (c === NEWLINE || c === HASH) {
        this.pos = this.nextLine(i);
        continue;
      }
      return i - this.pos;
    }
    return -1;
  }

  /** A document: one block mapping at column 0. */
  document(): unknown {
    const indent = this.peek();
    if (indent !== 0) throw BAIL;
    const start = this.pos;
    if (this.s.startsWith('---', start) || this.s.startsWith('...', start) || this.s.charCodeAt(start) === 37 /* % */) throw BAIL;
    const root = this.mapping(0, start);
    if (this.peek() !== -1) throw BAIL;
    return root;
  }

  /** A node whose first line is the current one, at column `indent`. */
  private node(indent: number): unknown {
    const at = this.pos + indent;
    if (this.isDash(at)) return this.sequence(indent, false);
    return this.mapping(indent, at);
  }

  private isDash(at: number): boolean {
    if (this.s.charCodeAt(at) !== DASH) return false;
    const next = this.s.charCodeAt(at + 1);
    return next === SPACE || next === NEWLINE || at + 1 >= this.s.length;
  }

  /**
   * Where the implicit key starting at `at` ends: the index of its `:` (followed by a space or the
   * line end), or -1 when the text there is not a key.
   */
  private keyColon(at: number, end: number): number {
    const s = this.s;
    const c = s.charCodeAt(at);
    if (c === 34 /* " */ || c === 39 /* ' */) {
      const close = this.quotedEnd(at, end);
      let i = close;
      while (s.charCodeAt(i) === SPACE) i++;
      if (s.charCodeAt(i) !== COLON) return -1;
      const after = s.charCodeAt(i + 1);
      return i + 1 >= end || after === SPACE ? i : -1;
    }
    // The first `:` followed by a space (or the line end), unless a comment starts before it.
    const hash = this.spaceHash(at - 1);
    const limit = hash !== -1 && hash + 1 < end ? hash + 1 : end;
    for (let i = at; ; ) {
      const colon = s.indexOf(':', i);
      if (colon === -1 || colon >= limit) return -1;
      if (colon + 1 >= end || s.charCodeAt(colon + 1) === SPACE) return colon;
      i = colon + 1;
    }
  }

  /** Index just after the closing quote of the one-line quoted scalar at `at`. */
  private quotedEnd(at: number, end: number): number {
    const s = this.s;
    const q = s.charCodeAt(at);
    for (let i = at + 1; i < end; i++) {
      const ch = s.charCodeAt(i);
      if (q === 39) {
        if (ch === 39) {
          if (s.charCodeAt(i + 1) === 39) i++;
          else return i + 1;
        }
      } else if (ch === 92 /* \ */) i++;
      else if (ch === 34) return i + 1;
    }
    throw BAIL; // unterminated on this line: a multi-line scalar
  }

  private quotedValue(at: number, close: number): string {
    const s = this.s;
    const body = s.slice(at + 1, close - 1);
    if (s.charCodeAt(at) === 39) return body.includes("''") ? body.replace(/''/g, "'") : body;
    if (!body.includes('\\')) return body;
    return body.replace(/\\(.)/g, (_m, e: string) => {
      if (e === '\\' || e === '"') return e;
      if (e === 'n') return '\n';
      if (e === 't') return '\t';
      throw BAIL;
    });
  }

  /**
   * After a quoted scalar, a flow collection or a block scalar header, only spaces and a comment may
   * follow on the line. go-yaml takes a comment right after the closing quote or bracket (`"x"#c`),
   * so this does too (the full parser's complaint about it is dropped, see yaml-package.ts).
   */
  private expectLineEnd(from: number, end: number): void {
    const s = this.s;
    let i = from;
    while (i < end && s.charCodeAt(i) === SPACE) i++;
    if (i < end && s.charCodeAt(i) !== HASH) throw BAIL;
  }

  /** The one-line scalar (or empty flow collection) from `at` to the line end. */
  private inlineValue(at: number, end: number): unknown {
    const s = this.s;
    const c = s.charCodeAt(at);
    if (c === 34 || c === 39) {
      const close = this.quotedEnd(at, end);
      this.expectLineEnd(close, end);
      return this.quotedValue(at, close);
    }
    if (c === 91 /* [ */) return this.flowSequence(at, end);
    if (c === 123 /* { */) {
      if (s.charCodeAt(at + 1) !== 125) throw BAIL; // only `{}`: flow mappings go to the full parser
      this.expectLineEnd(at + 2, end);
      return {};
    }
    // Indicators that start anchors, aliases, tags, block scalars, directives, reserved characters,
    // complex keys and flow syntax: left to the full parser.
    if ('&*!|>%@`?:,]}#'.includes(s[at] as string)) throw BAIL;
    if (c === DASH && (at + 1 >= end || s.charCodeAt(at + 1) === SPACE)) throw BAIL;
    // The scalar ends where a comment starts; a `: ` before that is a nested mapping.
    const hash = this.spaceHash(at);
    let stop = hash !== -1 && hash + 1 < end ? hash + 1 : end;
    for (let i = at + 1; ; ) {
      const colon = s.indexOf(':', i);
      if (colon === -1 || colon >= stop) break;
      if (colon + 1 >= end || s.charCodeAt(colon + 1) === SPACE) throw BAIL; // a nested mapping
      i = colon + 1;
    }
    while (stop > at && s.charCodeAt(stop - 1) === SPACE) stop--;
    return this.resolve(s.slice(at, stop));
  }

  /** A one-line flow sequence of scalars, such as `[a, "b", 3]`; anything more is left to the full parser. */
  private flowSequence(at: number, end: number): unknown[] {
    const s = this.s;
    const out: unknown[] = [];
    let i = at + 1;
    while (s.charCodeAt(i) === SPACE) i++;
    if (s.charCodeAt(i) === 93 /* ] */) {
      this.expectLineEnd(i + 1, end);
      return out;
    }
    for (;;) {
      while (s.charCodeAt(i) === SPACE) i++;
      const c = s.charCodeAt(i);
      if (c === 34 || c === 39) {
        const close = this.quotedEnd(i, end);
        out.push(this.quotedValue(i, close));
        i = close;
      } else {
        // Empty entries, nested collections, comments and indicators go to the full parser.
        if (i >= end || '&*!|>%@`?:,[]{}#'.includes(s[i] as string)) throw BAIL;
        if (c === DASH && s.charCodeAt(i + 1) === SPACE) throw BAIL;
        let j = i;
        for (; j < end; j++) {
          const ch = s.charCodeAt(j);
          if (ch === 44 /* , */ || ch === 93 /* ] */) break;
          if (ch === 91 || ch === 123 || ch === 125) throw BAIL;
          if (ch === HASH && s.charCodeAt(j - 1) === SPACE) throw BAIL;
          if (ch === COLON) {
            const next = s.charCodeAt(j + 1);
            if (next === SPACE || next === 44 || next === 93) throw BAIL; // a pair: `[a: b]`
          }
        }
        if (j >= end) throw BAIL; // not closed on this line
        let stop = j;
        while (stop > i && s.charCodeAt(stop - 1) === SPACE) stop--;
        out.push(this.resolve(s.slice(i, stop)));
        i = j;
      }
      while (s.charCodeAt(i) === SPACE) i++;
      const d = s.charCodeAt(i);
      if (d === 93) {
        this.expectLineEnd(i + 1, end);
        return out;
      }
      if (d !== 44) throw BAIL;
      i++;
      while (s.charCodeAt(i) === SPACE) i++;
      if (s.charCodeAt(i) === 93) throw BAIL; // a trailing comma
    }
  }

  /**
   * A literal block scalar (`|` or `|-`) whose header is at `at`, in a node at column `indent`.
   * Leaves `pos` after its last line. Indentation indicators, `|+`, leading lines of spaces, trailing
   * blank lines and a last line without a line break are left to the full parser.
   */
  private literal(at: number, end: number, indent: number): string {
    const s = this.s;
    let i = at + 1;
    const strip = s.charCodeAt(i) === DASH;
    if (strip) i++;
    this.expectLineEnd(i, end);
    const lines: string[] = [];
    let content = -1;
    let blank = 0;
    let pos = this.nextLine(end);
    let after = pos;
    while (pos < s.length) {
      const lineEnd = this.lineEnd(pos);
      if (lineEnd === pos) {
        blank++;
        pos = lineEnd + 1;
        continue;
      }
      let j = pos;
      while (s.charCodeAt(j) === SPACE) j++;
      if (j === lineEnd) {
        // Spaces only: an empty line when no deeper than the content, else content (left to the full parser).
        if (content === -1 || j - pos > content) throw BAIL;
        blank++;
        pos = lineEnd + 1;
        continue;
      }
      const col = j - pos;
      if (content === -1) {
        if (col <= indent) break;
        content = col;
      } else if (col < content) break;
      for (; blank > 0; blank--) lines.push('');
      if (lineEnd >= s.length) throw BAIL;
      lines.push(s.slice(pos + content, lineEnd));
      pos = lineEnd + 1;
      after = pos;
    }
    if (content === -1 || blank > 0) throw BAIL;
    this.pos = after;
    this.lastContentEnd = after;
    const text = lines.join('\n');
    return strip ? text : `${text}\n`;
  }

  /** A value that starts on this line: a one-line scalar or collection, or a literal block. Moves on past it. */
  private value(at: number, end: number, indent: number): unknown {
    if (this.s.charCodeAt(at) === 124 /* | */) return this.literal(at, end, indent);
    const value = this.inlineValue(at, end);
    this.pos = this.nextLine(end);
    this.lastContentEnd = this.pos;
    if (this.peek() > indent) throw BAIL; // a multi-line scalar, or bad indentation
    return value;
  }

  /** A block mapping at column `indent`; its first key starts at `first` (possibly after `- `). */
  private mapping(indent: number, first: number): Record<string, unknown> {
    const s = this.s;
    if (++this.depth >= MAX_NESTING) throw BAIL;
    const map: Record<string, unknown> = {};
    let at = first;
    for (;;) {
      if (indent === 0 && (s.startsWith('---', at) || s.startsWith('...', at))) throw BAIL;
      const end = this.lineEnd(at);
      const colon = this.keyColon(at, end);
      if (colon === -1 || colon - at > 1000) throw BAIL;
      const key = this.key(at, colon);
      // A duplicate is reported by the full parser; `__proto__` (quoted or not) would set the
      // object's prototype by assignment: the full parser makes it a plain own key.
      if (key === '__proto__' || Object.hasOwn(map, key)) throw BAIL;
      let v = colon + 1;
      while (v < end && s.charCodeAt(v) === SPACE) v++;
      let value: unknown;
      if (v >= end || s.charCodeAt(v) === HASH) {
        // The value is on the following lines (or absent).
        this.pos = this.nextLine(end);
        this.lastContentEnd = this.pos;
        const next = this.peek();
        if (next >= indent && this.isDash(this.pos + next)) {
          // A sequence, indented or at the key's own column. The document's `items` are recorded.
          const records = indent === 0 && key === 'items';
          if (records) this.seqIndent = next;
          value = this.sequence(next, records);
        } else value = next > indent ? this.node(next) : null;
      } else {
        value = this.value(v, end, indent);
      }
      map[key] = value;
      const next = this.peek();
      if (next < indent) {
        this.depth--;
        return map; // the end, or a parent's next key
      }
      if (next > indent || this.isDash(this.pos + next)) throw BAIL;
      at = this.pos + indent;
    }
  }

  private key(at: number, colon: number): string {
    const s = this.s;
    const c = s.charCodeAt(at);
    if (c === 34 || c === 39) {
      const close = this.quotedEnd(at, colon + 1);
      return this.quotedValue(at, close);
    }
    if ('&*!|>%@`?:,[]{}#"\''.includes(s[at] as string)) throw BAIL;
    if (c === DASH && s.charCodeAt(at + 1) === SPACE) throw BAIL;
    let stop = colon;
    while (stop > at && s.charCodeAt(stop - 1) === SPACE) stop--;
    const text = s.slice(at, stop);
    if (text === '<<') throw BAIL;
    const value = this.resolve(text);
    if (typeof value !== 'string') throw BAIL; // keys like `1:` or `yes:` are left to the full parser
    return value;
  }

  /** Whether every line in [from, to) is a comment starting at column `column`. */
  private onlyCommentsAt(from: number, to: number, column: number): boolean {
    const s = this.s;
    let line = from;
    while (line < to) {
      for (let c = 0; c < column; c++) if (s.charCodeAt(line + c) !== SPACE) return false;
      if (s.charCodeAt(line + column) !== HASH) return false;
      const end = s.indexOf('\n', line);
      if (end === -1 || end >= to) return end === -1 ? false : end + 1 === to;
      line = end + 1;
    }
    return true;
  }

  /** A block sequence whose `-` are at column `indent`; `records` keeps each entry's text in `itemTexts`. */
  private sequence(indent: number, records: boolean): unknown[] {
    const s = this.s;
    if (++this.depth >= MAX_NESTING) throw BAIL;
    const seq: unknown[] = [];
    if (records && this.pos !== this.lastContentEnd) throw BAIL; // a comment before the first item
    let itemStart = this.pos;
    for (;;) {
      const dash = this.pos + indent;
      const end = this.lineEnd(dash);
      let v = dash + 1;
      while (v < end && s.charCodeAt(v) === SPACE) v++;
      if (v >= end || s.charCodeAt(v) === HASH) {
        this.pos = this.nextLine(end);
        this.lastContentEnd = this.pos;
        const next = this.peek();
        seq.push(next > indent ? this.node(next) : null);
      } else if (this.isDash(v)) {
        throw BAIL; // `- - x`
      } else if (this.keyColon(v, end) !== -1) {
        seq.push(this.mapping(v - this.pos, v));
      } else {
        seq.push(this.value(v, end, indent));
      }
      const next = this.peek();
      if (records) {
        let text = s.slice(itemStart, this.lastContentEnd);
        if (!text.endsWith('\n')) text += '\n';
        this.itemTexts.push(text);
        itemStart = this.pos;
        if (this.pos !== this.lastContentEnd) {
          // Comment lines at the dash's column between two items (the header render-valkey writes
          // before each rendered file's first object) belong to the next item's text, as the full
          // parser has it; anything else in the gap (a blank line, a comment elsewhere, a comment
          // after the last item) goes to the full parser.
          if (next !== indent || !this.isDash(this.pos + next) || !this.onlyCommentsAt(this.lastContentEnd, this.pos, indent)) throw BAIL;
          itemStart = this.lastContentEnd;
        }
      }
      if (next > indent && next !== -1) throw BAIL;
      // At this column, anything but `-` is the next key of the mapping this sequence is a value of.
      if (next === -1 || next < indent || !this.isDash(this.pos + next)) {
        this.depth--;
        return seq;
      }
    }
  }
}

/** Parses `text` on the fast path, or returns undefined when the full parser must handle it. */
export function fastParse(text: string): FastParse | undefined {
  if (UNSUPPORTED.test(text)) return undefined;
  const reader = new Reader(text);
  try {
    const root = reader.document();
    return { root, itemTexts: reader.itemTexts, seqIndent: reader.seqIndent };
  } catch (e) {
    // A stack overflow cannot happen within MAX_NESTING, but if the stack is small, hand over anyway.
    if (e === BAIL || e instanceof RangeError) return undefined;
    throw e;
  }
}
