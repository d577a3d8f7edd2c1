/** Numbers and plurals the way the plan writes them: "1,000 clusters", "1 pod". */
export const num = (n: number): string => n.toLocaleString('en-US');
export const counted = (n: number, word: string, many = `${word}s`): string => `${num(n)} ${n === 1 ? word : many}`;

/** "a, b and 3 more": long lists stay readable in a sentence. */
export function listSome(items: readonly string[], shown = 3): string {
  if (items.length <= shown) return items.join(', ');
  return `${items.slice(0, shown).join(', ')} and ${num(items.length - shown)} more`;
}
