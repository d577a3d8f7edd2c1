import { compareStrings } from './order.js';

/**
 * JSON with object keys sorted: the same value written in another key order is the same text. For
 * hashing rendered objects (render/revisions.ts), comparing two sides of a plan, and comparing a
 * status with what the API server returned (which does not keep our key order).
 *
 * The text is exactly what JSON.stringify writes for a copy of the value with each object's keys
 * sorted (array-index keys first, in numeric order, as JavaScript enumerates them), written in one
 * walk without the copies. A frozen object never changes, so its text is made once (the renderer
 * shares frozen parts between clusters); a value JSON.stringify would treat specially (toJSON, a
 * bigint) takes the copying path.
 */
export function canonicalJson(value: unknown): string {
  try {
    return write(value) ?? 'undefined';
  } catch (e) {
    if (e !== SLOW) throw e;
    return slowCanonicalJson(value);
  }
}

const SLOW: unique symbol = Symbol('slow');
const frozenText = new WeakMap<object, string>();

/** The text of one value, or undefined where JSON.stringify writes nothing (undefined, a function, a symbol). */
function write(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      break;
    case 'bigint':
      throw SLOW;
    default:
      return undefined;
  }
  if (v === null) return 'null';
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') throw SLOW;
  const frozen = Object.isFrozen(v);
  if (frozen) {
    const known = frozenText.get(v);
    if (known !== undefined) return known;
  }
  let text: string;
  if (Array.isArray(v)) {
    text = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) text += ',';
      text += write(v[i]) ?? 'null';
    }
    text += ']';
  } else {
    text = '{';
    let first = true;
    for (const key of sortedKeys(v)) {
      const item = write((v as Record<string, unknown>)[key]);
      if (item === undefined) continue;
      if (!first) text += ',';
      text += keyText(key);
      text += item;
      first = false;
    }
    text += '}';
  }
  if (frozen) frozenText.set(v, text);
  return text;
}

/**
 * An object's keys sorted, array-index keys first in numeric order, as JavaScript enumerates them.
 * The renderer mostly builds objects whose keys are in order already: then nothing is sorted.
 */
function sortedKeys(v: object): string[] {
  const keys = Object.keys(v);
  let sorted = true;
  let indexLike = false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (isIndexLike(key)) indexLike = true;
    if (i > 0 && (keys[i - 1] as string) > key) sorted = false;
  }
  if (!sorted) keys.sort(compareStrings);
  // Array-index keys come first in any object JavaScript builds: keep that order.
  return indexLike ? Object.keys(Object.fromEntries(keys.map((k) => [k, 0]))) : keys;
}

/** `"key":`, made once per key (the renderer writes the same few hundred keys over and over). */
const keyTexts = new Map<string, string>();
function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (keyTexts.size < 10_000) keyTexts.set(key, text);
  }
  return text;
}

const isIndexLike = (key: string): boolean => {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57;
};

function slowCanonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => compareStrings(a, b)))
        : v,
    ) ?? 'undefined'
  );
}

/**
 * JSON, two-space indented, that every reader takes: a lone UTF-16 surrogate (no character, but a
 * JavaScript string can hold one) comes out as U+FFFD, where JSON.stringify writes an escape that
 * jq and other strict readers refuse. JSON.stringify escapes nothing else in that range (a pair is
 * written as the character), so each such escape, past escaped backslashes, is a lone surrogate.
 */
export function wellFormedJson(value: unknown): string {
  const json = JSON.stringify(value, null, 2) ?? 'null';
  return json.includes('\\ud') ? json.replace(/\\(\\|ud[89a-f][0-9a-f]{2})/g, (m, e: string) => (e === '\\' ? m : '\ufffd')) : json;
}
