// Reading the runnable blocks out of the project's Markdown pages, for tests that run them as written.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { repoPath } from './paths.js';

/** The first fenced `sh` block after `heading` in a Markdown file, without its fences. */
export function shBlockAfter(file: string, heading: string): string {
  const text = readFileSync(repoPath(file), 'utf8');
  const from = text.indexOf(heading);
  expect(from, heading).toBeGreaterThan(-1);
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(text.slice(from))?.[1];
  expect(block).toBeDefined();
  return block as string;
}
