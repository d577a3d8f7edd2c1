/**
 * How deep input may nest. Kubernetes objects nest a few dozen levels; go-yaml stops at 10,000, but
 * the `yaml` package's composer and any recursive walk of the values run out of stack long before
 * (flow collections a few hundred levels deep were enough), and a stack overflow must never reach
 * the user as a crash. Both readers refuse deeper input with one clear error.
 */
export const MAX_NESTING = 1000;

export const TOO_DEEP = `the YAML nests too deep to read: at most ${MAX_NESTING} levels (fewer inside [ ] and { } flow collections), where Kubernetes objects nest a few dozen`;

/** Whether `value` nests collections more than `limit` levels deep (iterative: deep input must not overflow here). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** A JavaScript stack overflow, thrown or caught and reported as a message by the `yaml` package. */
export const isStackOverflow = (e: unknown): boolean =>
  e instanceof RangeError ||
  (typeof (e as { message?: unknown })?.message === 'string' &&
    (e as { message: string }).message.includes('Maximum call stack size exceeded'));
