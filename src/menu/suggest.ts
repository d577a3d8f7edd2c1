import { compareStrings } from '../api/index.js';

/** "did you mean …" for a dangling reference, or the names that do exist. */
export function suggestName(missing: string, available: Iterable<string>, what: string): string {
  const names = [...available].sort(compareStrings);
  if (names.length === 0) return `no ${what} exists yet`;
  const close = closestName(missing, names, Math.max(2, Math.floor(missing.length / 4)));
  if (close !== undefined) return `did you mean "${close}"?`;
  const shown = names
    .slice(0, 8)
    .map((n) => `"${n}"`)
    .join(', ');
  return `available: ${shown}${names.length > 8 ? `, and ${names.length - 8} more` : ''}`;
}

/**
 * The nearest name within `maxDistance` edits (ties: alphabetical), or undefined when all are
 * farther: a far name is more likely something the list does not cover than a typo.
 */
export function closestName(missing: string, names: Iterable<string>, maxDistance: number): string | undefined {
  let best: { n: string; d: number } | undefined;
  for (const n of names) {
    if (Math.abs(n.length - missing.length) > maxDistance) continue;
    const d = distance(missing, n);
    if (d <= maxDistance && (!best || d < best.d || (d === best.d && compareStrings(n, best.n) < 0))) best = { n, d };
  }
  return best?.n;
}

/** How far a Valkey name may be from a known one and still be read as a typo of it. */
export const typoDistance = (name: string): number => Math.max(1, Math.min(2, Math.floor(name.length / 4)));

/**
 * Edits between two names, a swap of neighbours counting as one (optimal string alignment): the
 * commonest typo, `allkeys-lur` for `allkeys-lru`, is then one edit away, not two.
 */
function distance(a: string, b: string): number {
  let before = Array.from({ length: b.length + 1 }, () => 0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length] as number;
}
