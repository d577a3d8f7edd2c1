import { isMyself } from '../cluster/cluster-view.js';
import type { Answered } from '../cluster/observation.js';
import { EVENT } from '../../api/status-names.js';
import { keysInKeyspace, type RetireDecision } from '../cluster/retire.js';
import type { ScalingStatus } from '../cluster/status.js';
import type { EventRecorder, InvolvedObject } from '../kube/event-recorder.js';
import type { Logger } from '../runtime/log.js';
import type { NodeSession } from '../valkey/node-session.js';
import { CommandError } from '../valkey/resp-connection.js';

export interface RetireDeps {
  events: EventRecorder;
  log: Logger;
  /** Deletes one removed shard's StatefulSet and PodDisruptionBudget (a 404 is success). */
  deleteShard(namespace: string, cluster: string, shard: number): Promise<void>;
}

export interface RetireTarget {
  about: InvolvedObject;
  shards: number;
  answered: readonly Answered[];
  sessions: ReadonlyMap<string, NodeSession>;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Keys each removed shard's pod holds (`INFO keyspace`): what retirement checks before it forgets them. */
export async function removedShardKeys(target: Omit<RetireTarget, 'about'>): Promise<Map<string, number>> {
  const keys = new Map<string, number>();
  await Promise.all(
    target.answered
      .filter((o) => o.shard >= target.shards)
      .map(async (o) => {
        const session = target.sessions.get(o.pod);
        if (session) keys.set(o.pod, keysInKeyspace(await session.infoKeyspace()));
      }),
  );
  return keys;
}

/**
 * Retires drained shards, as the pass planner (over cluster/retire.ts) decided: `CLUSTER FORGET` of
 * each of their nodes on every remaining node, all sent side by side so they land well within the
 * 60 s forget window, and only then the delete of their StatefulSet and PDB (whose pods then stop,
 * so they cannot gossip their way back in).
 */
export async function executeRetirement(
  decision: Extract<RetireDecision, { kind: 'retire' }>,
  input: RetireTarget,
  deps: RetireDeps,
): Promise<ScalingStatus> {
  const errors: string[] = [];
  await Promise.all(
    decision.forgetOn.map(async (pod) => {
      const session = input.sessions.get(pod);
      if (!session) return void errors.push(`no connection to ${pod}`);
      for (const id of decision.nodeIds) {
        try {
          await session.forget(id);
        } catch (e) {
          // Already forgotten (an earlier pass) is what we want.
          if (!(e instanceof CommandError && /unknown node/i.test(e.message))) errors.push(`CLUSTER FORGET ${id} on ${pod}: ${message(e)}`);
        }
      }
    }),
  );
  // The removed nodes forget each other too (best effort): one that outlives another's deletion
  // must not keep a node no pod has in its view, which would hold formation up.
  await Promise.all(
    input.answered
      .filter((o) => o.shard >= input.shards)
      .map(async (o) => {
        const self = o.view.find(isMyself);
        const session = input.sessions.get(o.pod);
        if (!self || !session) return;
        for (const id of decision.nodeIds) if (id !== self.id && id !== self.primaryId) await session.forget(id).catch(() => undefined);
      }),
  );
  const what = `shard(s) ${decision.shards.join(', ')}`;
  if (errors.length) {
    deps.events.record(input.about, 'Warning', EVENT.shardRetireFailed, `Forgetting the nodes of ${what} failed: ${errors.join('; ')}`);
    return { phase: 'retiring', message: `forgetting the nodes of ${what} failed, retrying: ${errors[0]}` };
  }
  deps.events.record(
    input.about,
    'Normal',
    EVENT.nodesForgotten,
    `CLUSTER FORGET of ${decision.nodeIds.length} node(s) of drained ${what} on ${decision.forgetOn.length} remaining node(s)`,
  );
  for (const shard of decision.shards) {
    try {
      await deps.deleteShard(input.about.namespace, input.about.name, shard);
    } catch (e) {
      deps.events.record(
        input.about,
        'Warning',
        EVENT.shardRetireFailed,
        `Deleting shard ${shard}'s StatefulSet and PDB failed: ${message(e)}`,
      );
      return { phase: 'retiring', message: `deleting shard ${shard}'s StatefulSet failed, retrying: ${message(e)}` };
    }
    deps.events.record(
      input.about,
      'Normal',
      EVENT.shardRetired,
      `Shard ${shard} holds no slot and no key: deleted its StatefulSet and PDB`,
    );
    deps.log.info('shard retired', { shard });
  }
  return { phase: 'retiring', message: `retired ${what}: forgotten by every remaining node, StatefulSet and PDB deleted` };
}
