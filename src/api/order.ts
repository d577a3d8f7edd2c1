/**
 * The one order for deterministic output: UTF-16 code units (what `<` and a bare `.sort()` use),
 * the same on every machine, unlike `localeCompare`, whose order depends on the locale and ICU.
 */
export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Compares two keys of the same shape element by element, in the same order. */
export function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string | number;
    const y = b[i] as string | number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
