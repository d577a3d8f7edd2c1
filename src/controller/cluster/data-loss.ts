import type { Condition } from '../../api/index.js';
import { ANNOTATIONS } from '../../api/contract/annotations.js';
import { countSlots, formatRanges, type SlotRange } from '../../api/contract/slots.js';
import { CONDITION, REASON, STATE } from '../../api/status-names.js';
import type { DesiredCondition } from './conditions.js';
import type { FormationAction } from './formation.js';

/**
 * Lost data is never reported as healthy. Formation gives a slot nobody owns to its shard's
 * primary (CLUSTER ADDSLOTS); on a cluster that ran, a slot nobody owns is one whose every copy is
 * gone (a whole shard lost), so the node that gets it holds none of its keys. Pure: which slots,
 * and the `DataLost` condition, kept True until a person acknowledges it by setting the
 * annotation below on the ValkeyCluster to the condition's lastTransitionTime.
 */

export interface SlotsLost {
  shard: number;
  pod: string;
  ranges: SlotRange[];
}

/** The slots this pass gives to an empty primary, on a cluster that had run (its status said so). */
export function slotsGivenEmpty(
  actions: readonly FormationAction[],
  primaries: ReadonlyMap<number, string>,
  previousState: string | undefined,
): SlotsLost[] {
  const ran = previousState === STATE.active || previousState === STATE.updating || previousState === STATE.invalid;
  if (!ran) return [];
  const shardOf = new Map([...primaries].map(([s, pod]) => [pod, s]));
  return actions.flatMap((a) =>
    a.kind === 'addSlots' && shardOf.has(a.on) ? [{ shard: shardOf.get(a.on) as number, pod: a.on, ranges: a.ranges }] : [],
  );
}

export const describeLoss = (l: SlotsLost, at: string): string =>
  `shard ${l.shard}: slots ${formatRanges(l.ranges)} (${countSlots(l.ranges)}) were given to ${l.pod}, which holds none of their keys, at ${at}`;

/** The command that acknowledges the condition, for messages and docs. */
export const acknowledgeCommand = (namespace: string, name: string, since: string): string =>
  `kubectl annotate valkeycluster -n ${namespace} ${name} ${ANNOTATIONS.dataLossAcknowledged}=${since} --overwrite`;

/**
 * `DataLost`: True from the pass that lost slots until the annotation names the condition's
 * lastTransitionTime; then False (Acknowledged), and it stays, like the other conditions.
 */
export function dataLostCondition(o: {
  lost: readonly SlotsLost[];
  previous: Condition | undefined;
  acknowledged: string | undefined;
  now: string;
  namespace: string;
  name: string;
  generation: number;
}): DesiredCondition | undefined {
  const g = o.generation;
  const fresh = o.lost.map((l) => describeLoss(l, o.now));
  const before = o.previous;
  if (before?.status === 'True') {
    if (fresh.length === 0 && o.acknowledged === before.lastTransitionTime)
      return {
        type: CONDITION.dataLost,
        status: 'False',
        reason: REASON.dataLost.acknowledged,
        message: `Acknowledged: ${before.message.replace(/; acknowledge with .*$/, '')}`,
        observedGeneration: g,
      };
    const kept = before.message.replace(/; acknowledge with .*$/, '');
    return {
      type: CONDITION.dataLost,
      status: 'True',
      reason: REASON.dataLost.slotsLost,
      message: `${[kept, ...fresh].join('; ')}; acknowledge with ${acknowledgeCommand(o.namespace, o.name, before.lastTransitionTime)}`,
      observedGeneration: g,
    };
  }
  if (fresh.length)
    return {
      type: CONDITION.dataLost,
      status: 'True',
      reason: REASON.dataLost.slotsLost,
      message: `${fresh.join('; ')}; acknowledge with ${acknowledgeCommand(o.namespace, o.name, o.now)}`,
      observedGeneration: g,
    };
  return before
    ? { type: CONDITION.dataLost, status: 'False', reason: before.reason, message: before.message, observedGeneration: g }
    : undefined;
}
