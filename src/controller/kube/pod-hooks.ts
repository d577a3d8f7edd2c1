import type { Pod } from './types.js';

/**
 * Whether the pod's preStop hook is the rendered handover hold (render/probes.ts renderLifecycle:
 * `sh <conf>/probe.sh handover`): while such a pod is being deleted, a primary with replicas keeps
 * serving for up to HANDOVER_HOLD_SECONDS, waiting for the controller to hand its shard over.
 */
export const holdsForHandover = (pod: Pod): boolean =>
  (pod.spec?.containers ?? []).some((c) => {
    const cmd = c.lifecycle?.preStop?.exec?.command ?? [];
    return cmd.length === 3 && cmd[0] === 'sh' && cmd[1]?.endsWith('/probe.sh') === true && cmd[2] === 'handover';
  });
