import { compareStrings } from '../api/index.js';

/**
 * At most this many names are compared with each dangling reference, nearest in length first
 * (then alphabetical): a menu of many names and many dangling references would otherwise cost
 * their product.
 */
export const MAX_CANDIDATES = 64;
/** Longer references get no did-you-mean: the edit distance grows with the square of the length. */
export const MAX_SUGGESTED_LENGTH = 64;

/**
 * The names of one kind, indexed once per run so that each dangling reference costs a bounded
 * number of comparisons: sorted, bucketed by length, and each answer remembered.
 */
export class NameIndex {
  readonly size: number;
  private readonly sorted: string[];
  private readonly byLength = new Map<number, string[]>();
  private readonly answers = new Map<string, string>();

  constructor(names: Iterable<string>) {
    this.sorted = [...names].sort(compareStrings);
    this.size = this.sorted.length;
    for (const n of this.sorted) {
      const bucket = this.byLength.get(n.length);
      if (bucket) bucket.push(n);
      else this.byLength.set(n.length, [n]);
    }
  }

  /** "did you mean …" for a dangling reference, or the names that do exist. */
  suggest(missing: string, what: string): string {
    const known = this.answers.get(missing);
    if (known !== undefined) return known;
    const answer = this.answer(missing, what);
    this.answers.set(missing, answer);
    return answer;
  }

  private answer(missing: string, what: string): string {
    if (this.size === 0) return `no ${what} exists yet`;
    const close = this.closest(missing, Math.max(2, Math.floor(missing.length / 4)));
    if (close !== undefined) return `did you mean "${close}"?`;
    const shown = this.sorted
      .slice(0, 8)
      .map((n) => `"${n}"`)
      .join(', ');
    return `available: ${shown}${this.size > 8 ? `, and ${this.size - 8} more` : ''}`;
  }

  /** The nearest name within `maxDistance` edits among the candidates nearest in length. */
  closest(missing: string, maxDistance: number): string | undefined {
    if (missing.length > MAX_SUGGESTED_LENGTH) return undefined;
    const candidates: string[] = [];
    for (let delta = 0; delta <= maxDistance && candidates.length < MAX_CANDIDATES; delta++) {
      for (const length of delta === 0 ? [missing.length] : [missing.length - delta, missing.length + delta]) {
        for (const n of this.byLength.get(length) ?? []) {
          if (candidates.length >= MAX_CANDIDATES) break;
          candidates.push(n);
        }
      }
    }
    return closestName(missing, candidates, maxDistance);
  }
}

/**
 * The nearest name within `maxDistance` edits (ties: alphabetical), or undefined when all are
 * farther: a far name is more likely something the list does not cover than a typo.
 */
export function closestName(missing: string, names: Iterable<string>, maxDistance: number): string | undefined {
  let best: { n: string; d: number } | undefined;
  for (const n of names) {
    if (Math.abs(n.length - missing.length) > maxDistance) continue;
    const d = distance(missing, n, best ? Math.min(best.d, maxDistance) : maxDistance);
    if (d <= maxDistance && (!best || d < best.d || (d === best.d && compareStrings(n, best.n) < 0))) best = { n, d };
  }
  return best?.n;
}

/** How far a Valkey name may be from a known one and still be read as a typo of it. */
export const typoDistance = (name: string): number => Math.max(1, Math.min(2, Math.floor(name.length / 4)));

/**
 * Edits between two names, a swap of neighbours counting as one (optimal string alignment): the
 * commonest typo, `allkeys-lur` for `allkeys-lru`, is then one edit away, not two. Stops early
 * (answering `limit + 1`) once every alignment is already more than `limit` edits apart.
 */
function distance(a: string, b: string, limit: number): number {
  let before = Array.from({ length: b.length + 1 }, () => 0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let previousMin = 0;
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1);
      row.push(d);
      if (d < rowMin) rowMin = d;
    }
    // A transposition reaches back two rows, so stop only when both rows are past the limit.
    if (rowMin > limit && previousMin > limit) return limit + 1;
    before = previous;
    previous = row;
    previousMin = rowMin;
  }
  return previous[b.length] as number;
}
