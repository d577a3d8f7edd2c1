import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// The schemas use zod's mini API: the same validation core and messages as the classic API, but
// the first schema of each kind does not install dozens of chainable methods, so building the
// render config's schema on first use takes about 2 ms instead of 11 here, and the bundle is 65 KB
// smaller. mini sets no message locale by itself; this is the English one the classic API sets.
config(en());
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
