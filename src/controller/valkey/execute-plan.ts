import type { FormationAction } from '../cluster/formation.js';
import { formatRanges } from '../../api/contract/slots.js';
import type { NodeSession } from './node-session.js';
import { CommandError } from './resp-connection.js';

export interface ActionOutcome {
  action: FormationAction;
  /** Absent on success. */
  error?: string;
}

export function describeAction(a: FormationAction): string {
  switch (a.kind) {
    case 'forget':
      return `CLUSTER FORGET ${a.nodeId} on ${a.on}`;
    case 'meet':
      return `CLUSTER MEET ${a.endpoint.host} ${a.endpoint.port} ${a.endpoint.busPort} (${a.target}) on ${a.on}`;
    case 'addSlots':
      return `CLUSTER ADDSLOTSRANGE ${formatRanges(a.ranges)} on ${a.on}`;
    case 'replicate':
      return `CLUSTER REPLICATE ${a.primaryId} (${a.primaryPod}) on ${a.on}`;
    case 'takeover':
      return `CLUSTER FAILOVER TAKEOVER on ${a.on} (primary ${a.deadPrimaryId} is gone)`;
  }
}

function send(a: FormationAction, s: NodeSession): Promise<void> {
  switch (a.kind) {
    case 'forget':
      return s.forget(a.nodeId);
    case 'meet':
      return s.meet(a.endpoint);
    case 'addSlots':
      return s.addSlotsRange(a.ranges);
    case 'replicate':
      return s.replicate(a.primaryId);
    case 'takeover':
      return s.takeover();
  }
}

/** Runs the plan's commands in order; a failed command is reported and the rest still run. */
export async function executeActions(
  actions: readonly FormationAction[],
  sessions: ReadonlyMap<string, NodeSession>,
): Promise<ActionOutcome[]> {
  const outcomes: ActionOutcome[] = [];
  for (const action of actions) {
    const session = sessions.get(action.on);
    if (!session) {
      outcomes.push({ action, error: `${describeAction(action)}: no connection to ${action.on}` });
      continue;
    }
    try {
      await send(action, session);
      outcomes.push({ action });
    } catch (e) {
      // Forgetting a node this one already dropped is the goal reached, not a failure.
      if (action.kind === 'forget' && e instanceof CommandError && /unknown node/i.test(e.message)) outcomes.push({ action });
      else outcomes.push({ action, error: `${describeAction(action)} failed: ${e instanceof Error ? e.message : String(e)}` });
    }
  }
  return outcomes;
}
