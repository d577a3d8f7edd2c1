import { CONDITION } from '../../api/status-names.js';
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

/** States that need a person before the cluster can progress (kstatus reads them as Failed). */
const STALLED_STATES: readonly string[] = ['Failed', 'Invalid'];
/** States in which the controller is still carrying the spec out (kstatus: InProgress). */
const RECONCILING_STATES: readonly string[] = ['Creating', 'Updating'];

/**
 * The two conditions kstatus reads (Flux's health checks and `wait: true`, `kstatus`), present
 * only while True: `Reconciling` while Creating or Updating (InProgress; `Ready` alone would not
 * do, since a cluster rolling its pods still serves and is Ready), `Stalled` while Failed or
 * Invalid (Failed). Without either, an Active cluster at its observedGeneration reads Current.
 * Checked against the real kstatus in test/integration/gitops-readers.test.ts. Unacknowledged lost
 * data (the DataLost condition True) is Stalled too, whatever the state: a person must look.
 */
export function kstatusConditions(state: string, message: string, observedGeneration: number, dataLost?: string): DesiredCondition[] {
  if (STALLED_STATES.includes(state)) return [{ type: CONDITION.stalled, status: 'True', reason: state, message, observedGeneration }];
  // Lost data waits for a person's acknowledgement (cluster/data-loss.ts): kstatus reads Failed, Flux's health check fails.
  if (dataLost !== undefined)
    return [{ type: CONDITION.stalled, status: 'True', reason: CONDITION.dataLost, message: dataLost, observedGeneration }];
  if (RECONCILING_STATES.includes(state))
    return [{ type: CONDITION.reconciling, status: 'True', reason: state, message, observedGeneration }];
  return [];
}
