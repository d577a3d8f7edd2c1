import { compareStrings } from '../api/index.js';

/** "did you mean …" for a dangling reference, or the names that do exist. */
export function suggestName(missing: string, available: Iterable<string>, what: string): string {
  const names = [...available].sort();
  if (names.length === 0) return `no ${what} exists yet`;
  const close = names
    .map((n) => ({ n, d: distance(missing, n) }))
    .filter(({ d }) => d <= Math.max(2, Math.floor(missing.length / 4)))
    .sort((a, b) => a.d - b.d || compareStrings(a.n, b.n));
  if (close[0]) return `did you mean "${close[0].n}"?`;
  const shown = names.slice(0, 8).map((n) => `"${n}"`).join(', ');
  return `available: ${shown}${names.length > 8 ? `, and ${names.length - 8} more` : ''}`;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length] as number;
}
