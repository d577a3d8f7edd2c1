import { compareStrings } from './order.js';

/**
 * JSON with object keys sorted: the same value written in another key order is the same text. For
 * hashing rendered objects (render/revisions.ts), comparing two sides of a plan, and comparing a
 * status with what the API server returned (which does not keep our key order).
 */
export function canonicalJson(value: unknown): string {
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
