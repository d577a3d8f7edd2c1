import { compareStrings } from '../../api/order.js';

/** JSON with sorted keys: the API server does not keep our key order, so compare canonically. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => compareStrings(a, b)))
      : v,
  );
}
