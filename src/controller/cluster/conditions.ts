import type { Condition } from '../../api/index.js';

/** A condition as the controller computes it; the transition time is filled in by `withTransitions`. */
export type DesiredCondition = Omit<Condition, 'lastTransitionTime'>;

/**
 * Keeps a condition's `lastTransitionTime` while its status holds, and stamps `now` when it
 * changes, so re-reconciling an unchanged cluster produces byte-identical status.
 */
export function withTransitions(
  desired: readonly DesiredCondition[],
  previous: readonly Condition[] | undefined,
  now: string,
): Condition[] {
  return desired.map((c) => {
    const before = previous?.find((p) => p.type === c.type);
    const lastTransitionTime = before && before.status === c.status ? before.lastTransitionTime : now;
    return { ...c, lastTransitionTime };
  });
}
