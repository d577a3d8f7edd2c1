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
