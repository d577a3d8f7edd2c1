import { execFileSync } from 'node:child_process';

// Integration and e2e both declare this setup, and vitest runs each project's setup: the flag
// (vitest's own process environment) keeps a run of both groups to one build.
const BUILT = 'VALKEY_KRM_DIST_BUILT';

export default function setup(): void {
  if (process.env[BUILT] === '1') return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  process.env[BUILT] = '1';
}
