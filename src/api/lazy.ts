/**
 * A schema built on first use, then kept. Building every zod schema at start-up took a third of
 * the KRM function's cold start, and a run seldom needs them all (an empty ResourceList needs one).
 */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
