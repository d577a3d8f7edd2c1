import { config } from 'zod';

// zod compiles a parser for each object schema with `new Function` on its first use. That code
// never reaches V8's code cache, so every run pays for it again; measured without it, the KRM
// function starts a little faster and renders 10 and 1,000 clusters a little faster too.
config({ jitless: true });

/**
 * A schema built on first use, then kept. Building every zod schema at start-up took a third of
 * the KRM function's cold start, and a run seldom needs them all (an empty ResourceList needs one).
 */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
