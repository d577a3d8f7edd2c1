/**
 * The reviewer's opt-in to roll a shard that has no replica, losing its data: the annotation
 * `ANNOTATIONS.allowDataLossRoll` on the ValkeyCluster (kept in git), which the renderer copies onto
 * its StatefulSets when it is well-formed. One reading for the renderer (which warns), the plan
 * (which says held or risky) and the controller (which rolls or holds), as docs/controller.md
 * allows it: `"true"` covers every roll; a restart hash covers only the roll to the pod template
 * whose `restart-hash` it equals, so an opt-in given for one change does not carry over to the
 * next. Nothing else covers a roll (not the StatefulSet's own update revision).
 */

/** The value that allows every roll, whatever its revision. */
export const ALLOW_EVERY_DATA_LOSS_ROLL = 'true';

const RESTART_HASH = /^[0-9a-f]{64}$/;

export type DataLossOptIn =
  | { kind: 'none' }
  | { kind: 'every' }
  | { kind: 'revision'; restartHash: string }
  /** Neither "true" nor a restart hash: covers nothing, and the renderer reports it. */
  | { kind: 'malformed'; value: string };

export function readDataLossOptIn(value: string | undefined): DataLossOptIn {
  if (value === undefined) return { kind: 'none' };
  if (value === ALLOW_EVERY_DATA_LOSS_ROLL) return { kind: 'every' };
  if (RESTART_HASH.test(value)) return { kind: 'revision', restartHash: value };
  return { kind: 'malformed', value };
}

/** Whether the opt-in allows the roll to the template with this restart hash. */
export function optInCovers(optIn: DataLossOptIn, restartHash: string | undefined): boolean {
  if (optIn.kind === 'every') return true;
  return optIn.kind === 'revision' && restartHash !== undefined && optIn.restartHash === restartHash;
}
