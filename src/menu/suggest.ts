/** "did you mean …" for a dangling reference, or the names that do exist. */
export function suggestName(missing: string, available: Iterable<string>, what: string): string {
  const names = [...available].sort();
  if (names.length === 0) return `no ${what} exists yet`;
  const close = closestName(missing, names, Math.max(2, Math.floor(missing.length / 4)));
  if (close !== undefined) return `did you mean "${close}"?`;
  const shown = names.slice(0, 8).map((n) => `"${n}"`).join(', ');
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
    if (d <= maxDistance && (!best || d < best.d || (d === best.d && n < best.n))) best = { n, d };
  }
  return best?.n;
}

/** How far a Valkey name may be from a known one and still be read as a typo of it. */
export const typoDistance = (name: string): number => Math.max(1, Math.min(2, Math.floor(name.length / 4)));

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
