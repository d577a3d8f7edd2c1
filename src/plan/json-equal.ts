/**
 * Whether two JSON values (the renderer's plain objects) are equal, as their JSON texts would be:
 * the same scalars, arrays of equal items in order, objects with the same keys (in any order) and
 * equal values. Stops at the first difference and makes no text, so comparing a thousand
 * unchanged clusters costs no garbage.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  // A key whose value is undefined is no key in JSON: it counts on neither side.
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let keys = 0;
  for (const k of Object.keys(ra)) {
    if (ra[k] === undefined) continue;
    keys++;
    if (!jsonEqual(ra[k], rb[k])) return false;
  }
  for (const k of Object.keys(rb)) if (rb[k] !== undefined) keys--;
  return keys === 0;
}
