import { EVENT } from '../../api/status-names.js';
import type { FailbackDecision } from '../cluster/failback.js';
import type { EventRecorder, InvolvedObject } from '../kube/event-recorder.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import { failoverAndConfirm } from '../valkey/failover.js';
import type { NodeSession } from '../valkey/node-session.js';

/**
 * A manual failover that has not happened by now will not (Valkey gives up after 5 s): waiting
 * longer only holds the pass, and status, back.
 */
const FAILBACK_CONFIRM_MS = 7_000;

export interface FailbackDeps {
  events: EventRecorder;
  clock: Clock;
  log: Logger;
}

/**
 * Carries out the failback the pass planner chose (cluster/failback.ts planned it): ordinal 0 takes
 * its shard's primary back with a graceful CLUSTER FAILOVER, so lowering replicasPerShard (which
 * removes the highest ordinals) never removes a primary. Returns what status says (PrimaryFailback).
 *
 * A primary away from ordinal 0 serves fine, but the cluster is not reported `Active` while the
 * controller means to move it: `Active` is what people and pipelines wait for before the next
 * change, and lowering replicasPerShard in that window would remove a primary. The wait is short:
 * ordinal 0 is then catching up, or gossip is a second or two behind the last failover, or the
 * failover happens in this very pass (measured: 2.6-3.6 s from a failover to its failback).
 */
export async function executeFailback(
  about: InvolvedObject,
  decision: Extract<FailbackDecision, { kind: 'failover' }>,
  sessions: ReadonlyMap<string, NodeSession>,
  deps: FailbackDeps,
): Promise<string> {
  const session = sessions.get(decision.on);
  const what = decision.leaving
    ? `${decision.on} takes shard ${decision.shard}'s primary over from ${decision.from}, which is leaving (${decision.leaving})`
    : `${decision.on} takes shard ${decision.shard}'s primary back from ${decision.from}`;
  if (!session) return `${what}: no connection to ${decision.on}`;
  try {
    const result = await failoverAndConfirm(session, (ms) => deps.clock.sleep(ms), FAILBACK_CONFIRM_MS);
    if (result !== 'ok') return `${what}: CLUSTER FAILOVER did not complete in time; retrying`;
  } catch (e) {
    return `${what}: CLUSTER FAILOVER failed: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (decision.leaving) {
    deps.events.record(about, 'Normal', EVENT.handedOver, `CLUSTER FAILOVER: ${what} (in sync), before the primary is stopped`);
    deps.log.info('handed a leaving primary over', { shard: decision.shard, pod: decision.on, from: decision.from });
    return what;
  }
  deps.events.record(
    about,
    'Normal',
    EVENT.failedBack,
    `CLUSTER FAILOVER: ${what} (in sync), so removing the highest ordinals never removes a primary`,
  );
  deps.log.info('failed back to ordinal 0', { shard: decision.shard, pod: decision.on });
  return what;
}
