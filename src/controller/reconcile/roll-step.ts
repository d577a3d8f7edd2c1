import { EVENT } from '../../api/status-names.js';
import { describeProgress, type RollStep } from '../cluster/roll.js';
import type { EventRecorder, InvolvedObject } from '../kube/event-recorder.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import type { ControllerMetrics } from '../runtime/metrics.js';
import { failoverAndConfirm } from '../valkey/failover.js';
import type { NodeSession } from '../valkey/node-session.js';

export type EvictionResult = 'evicted' | 'refused' | 'gone';

export interface RollStepDeps {
  /** Through the Eviction API, so PodDisruptionBudgets hold. */
  evict(namespace: string, pod: string): Promise<EvictionResult>;
  events: EventRecorder;
  clock: Clock;
  log: Logger;
  metrics: ControllerMetrics;
}

/**
 * Carries out the roll step the pass planner chose (cluster/roll.ts planned it): evict one pod, or
 * fail a shard's primary over to its in-sync replica of the new revision. Returns why the step did
 * not happen, for status; undefined when it did.
 */
export async function executeRollStep(
  about: InvolvedObject,
  step: Extract<RollStep, { kind: 'evict' | 'failover' }>,
  sessions: ReadonlyMap<string, NodeSession>,
  deps: RollStepDeps,
): Promise<string | undefined> {
  if (step.kind === 'evict') {
    const result = await deps.evict(about.namespace, step.pod);
    deps.metrics.rollSteps.inc({ result: result === 'refused' ? 'refused' : 'ok', step: 'evict' });
    if (result === 'refused') return `the eviction of ${step.pod} was refused (PodDisruptionBudget); retrying`;
    deps.events.record(
      about,
      'Normal',
      EVENT.evicted,
      step.role === 'broken'
        ? `Evicted ${step.pod}, an older revision that serves nothing (${step.why}), to replace it at the new revision (${describeProgress(step.progress)})`
        : `Evicted ${step.role} ${step.pod} to roll it to the new revision (${describeProgress(step.progress)})`,
    );
    deps.log.info('roll: evicted', { pod: step.pod, role: step.role });
    return undefined;
  }
  const session = sessions.get(step.on);
  if (!session) return `no connection to ${step.on} for the failover`;
  const timer = deps.metrics.failoverSeconds.startTimer();
  try {
    const result = await failoverAndConfirm(session, (ms) => deps.clock.sleep(ms));
    deps.metrics.failovers.inc({ result });
    deps.metrics.rollSteps.inc({ result: result === 'ok' ? 'ok' : 'error', step: 'failover' });
    if (result !== 'ok') return `CLUSTER FAILOVER on ${step.on} did not make it primary in time; retrying`;
    timer();
    deps.events.record(
      about,
      'Normal',
      EVENT.failedOver,
      `CLUSTER FAILOVER: ${step.on} (new revision, in sync) took over from ${step.from}, which is rolled next`,
    );
    deps.log.info('roll: failed over', { from: step.from, to: step.on });
    return undefined;
  } catch (e) {
    deps.metrics.failovers.inc({ result: 'error' });
    deps.metrics.rollSteps.inc({ result: 'error', step: 'failover' });
    return `CLUSTER FAILOVER on ${step.on} failed: ${e instanceof Error ? e.message : String(e)}`;
  }
}
