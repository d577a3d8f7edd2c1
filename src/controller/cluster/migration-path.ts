/**
 * Which protocol a scaling's next slot-migration step takes, after atomic steps failed. Pure.
 *
 * An atomic step that fails (a job that ended failed and rolled back, one past its deadline) is
 * not a reason to give up the atomic path: the next step takes the classic protocol, so the
 * scaling keeps moving, and the step after it tries atomic again. Only after
 * ATOMIC_FAILURES_MAX failed atomic steps in one scaling does the rest of it go classic. The
 * record is dropped once the slots are balanced, and lost with the process.
 */
export const ATOMIC_FAILURES_MAX = 3;

/** The two slot-migration protocols: Valkey 9's CLUSTER MIGRATESLOTS, or SETSLOT and MIGRATE per slot. */
export type MigrationPath = 'atomic' | 'classic';

export interface AtomicFailures {
  /** Failed atomic steps in this scaling. */
  count: number;
  /** The last one's error. */
  error: string;
  /** The next step is the classic one that follows a failure. */
  classicNext: boolean;
}

/** The path of the next step, and why it is classic when it is. */
export function nextMigrationPath(
  failures: AtomicFailures | undefined,
  slotMigration: 'auto' | 'classic' = 'auto',
): { path: MigrationPath; why?: string } {
  if (slotMigration === 'classic') return { path: 'classic' };
  if (!failures) return { path: 'atomic' };
  if (failures.count >= ATOMIC_FAILURES_MAX)
    return {
      path: 'classic',
      why: `classic protocol for the rest of this scaling: ${failures.count} atomic steps failed, the last: ${failures.error}`,
    };
  if (failures.classicNext) return { path: 'classic', why: `classic protocol: an atomic step failed: ${failures.error}` };
  return { path: 'atomic' };
}

/** The record after a step on `path` ended (with `error`, or not). */
export function afterMigrationStep(failures: AtomicFailures | undefined, path: MigrationPath, error?: string): AtomicFailures | undefined {
  if (path === 'atomic' && error !== undefined) return { count: (failures?.count ?? 0) + 1, error, classicNext: true };
  if (path === 'classic' && failures && error === undefined) return { ...failures, classicNext: false };
  return failures;
}

/** What the status and the Event say comes after a failed step on `path`. */
export function retryWords(failures: AtomicFailures | undefined, path: MigrationPath): string {
  if (path !== 'atomic') return 'retrying';
  return (failures?.count ?? 0) >= ATOMIC_FAILURES_MAX
    ? 'retrying with the classic protocol for the rest of this scaling'
    : 'retrying with the classic protocol, then the atomic path again';
}
