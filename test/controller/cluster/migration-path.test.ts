import { describe, expect, it } from 'vitest';
import {
  afterMigrationStep,
  ATOMIC_FAILURES_MAX,
  nextMigrationPath,
  retryWords,
  type AtomicFailures,
  type MigrationPath,
} from '../../../src/controller/cluster/migration-path.js';

/** Runs steps through the policy: each entry is whether that step fails; returns the paths taken. */
function scaling(fails: readonly boolean[]): MigrationPath[] {
  let failures: AtomicFailures | undefined;
  return fails.map((fail) => {
    const { path } = nextMigrationPath(failures);
    failures = afterMigrationStep(failures, path, fail ? 'job ended failed' : undefined);
    return path;
  });
}

describe('which protocol the next slot-migration step takes', () => {
  it('atomic while nothing fails; --slot-migration classic never tries it', () => {
    expect(scaling([false, false, false])).toEqual(['atomic', 'atomic', 'atomic']);
    expect(nextMigrationPath(undefined, 'classic')).toEqual({ path: 'classic' });
  });

  it('one failed atomic step: the next step is classic, the one after is atomic again', () => {
    expect(scaling([true, false, false, false])).toEqual(['atomic', 'classic', 'atomic', 'atomic']);
  });

  it('a classic step that fails too is retried classic before atomic is tried again', () => {
    expect(scaling([true, true, false, false])).toEqual(['atomic', 'classic', 'classic', 'atomic']);
  });

  it(`after ${ATOMIC_FAILURES_MAX} failed atomic steps the rest of the scaling is classic`, () => {
    expect(scaling([true, false, true, false, true, false, false])).toEqual([
      'atomic',
      'classic',
      'atomic',
      'classic',
      'atomic',
      'classic',
      'classic',
    ]);
    const failures = { count: ATOMIC_FAILURES_MAX, error: 'deadline passed', classicNext: false };
    expect(nextMigrationPath(failures).why).toBe(
      `classic protocol for the rest of this scaling: ${ATOMIC_FAILURES_MAX} atomic steps failed, the last: deadline passed`,
    );
    expect(retryWords(failures, 'atomic')).toBe('retrying with the classic protocol for the rest of this scaling');
  });

  it('says why a step is classic, and what comes after a failure', () => {
    const once = afterMigrationStep(undefined, 'atomic', 'job ended failed');
    expect(nextMigrationPath(once)).toEqual({ path: 'classic', why: 'classic protocol: an atomic step failed: job ended failed' });
    expect(retryWords(once, 'atomic')).toBe('retrying with the classic protocol, then the atomic path again');
    expect(retryWords(once, 'classic')).toBe('retrying');
  });
});
