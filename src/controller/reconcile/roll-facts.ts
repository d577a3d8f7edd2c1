/**
 * What a roll decides from, read off the StatefulSets, the pods and the nodes (cluster/roll.ts
 * plans from it): the observing half's translation of Kubernetes objects into the planner's
 * plain data. Pure.
 */
import { LABELS } from '../../api/index.js';
import { isMyself, isPrimary } from '../cluster/cluster-view.js';
import type { Answered, NodeObservation } from '../cluster/observation.js';
import { startupProblemMessage, type RollNode, type RollPod, type RollShard } from '../cluster/roll.js';
import type { Pod, StatefulSet } from '../kube/types.js';

/** The StatefulSet controller's label naming the revision a pod was created from. */
export const REVISION_LABEL = 'controller-revision-hash';

/**
 * The reviewer's opt-in to roll a shard that has no replica (its data goes): on the ValkeyCluster
 * (kept in git) or copied by the renderer onto its StatefulSets. `"true"` allows every such roll;
 * any other value allows only the revision it names (the pod template's restart hash, or the
 * StatefulSet's update revision), so an opt-in given for one change does not carry over to the next.
 */
export const ALLOW_DATA_LOSS_ANNOTATION = 'valkey.gomomento.com/allow-data-loss-roll';
const RESTART_HASH_ANNOTATION = 'valkey.gomomento.com/restart-hash';

/** A replica further behind its primary than this is not in sync (offsets are read a moment apart). */
const SYNC_TOLERANCE_BYTES = 1024 * 1024;

const ready = (p: Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Why the container is not running, from its last termination (FallbackToLogsOnError gives the log). */
export function containerProblem(pod: Pod): string | undefined {
  const status = pod.status?.containerStatuses?.[0];
  if (!status || status.state?.running) return undefined;
  const terminated = status.state?.terminated ?? status.lastState?.terminated;
  if (terminated && terminated.exitCode !== 0) {
    const said = terminated.message ?? terminated.reason ?? `exit code ${String(terminated.exitCode)}`;
    return startupProblemMessage(pod.metadata.name, said);
  }
  const waiting = status.state?.waiting;
  if (waiting && waiting.reason !== undefined && waiting.reason !== 'ContainerCreating' && waiting.reason !== 'PodInitializing')
    return `pod ${pod.metadata.name} cannot start: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
  return undefined;
}

function rollNode(o: NodeObservation | undefined, primaryOffset: (o: Answered) => number | undefined): RollNode {
  if (!o) return { state: 'absent', reason: 'has not been asked yet' };
  if (o.state === 'rejected') return { state: 'rejected', found: o.verdict.found };
  if (o.state !== 'answered')
    return {
      state: 'absent',
      reason: o.state === 'pending' ? o.reason : o.state === 'loading' ? 'is loading its dataset' : 'does not answer',
    };
  const self = o.view.find(isMyself);
  if (!self) return { state: 'absent', reason: 'has no myself line' };
  if (isPrimary(self)) return { state: 'answered', role: 'primary', inSync: true };
  const r = o.replication;
  const target = primaryOffset(o);
  const inSync = r?.linkUp === true && !r.syncing && (target === undefined || target - r.offset <= SYNC_TOLERANCE_BYTES);
  return { state: 'answered', role: 'replica', inSync };
}

function allowsDataLoss(clusterAnnotations: Record<string, string> | undefined, sts: StatefulSet): boolean {
  const allowed = [clusterAnnotations?.[ALLOW_DATA_LOSS_ANNOTATION], sts.metadata.annotations?.[ALLOW_DATA_LOSS_ANNOTATION]];
  const revisions = [sts.spec?.template?.metadata?.annotations?.[RESTART_HASH_ANNOTATION], sts.status?.updateRevision].filter(
    (r): r is string => r !== undefined,
  );
  return allowed.some((a) => a === 'true' || (a !== undefined && revisions.includes(a)));
}

export interface RollFacts {
  statefulSets: readonly StatefulSet[];
  pods: readonly Pod[];
  observations: readonly NodeObservation[];
  clusterAnnotations?: Record<string, string>;
}

/** The roll planner's shards from what the API server and the nodes say now. Pure. */
export function rollShards(f: RollFacts): RollShard[] {
  const byPod = new Map(f.observations.map((o) => [o.pod, o]));
  const answered = f.observations.filter((o): o is Answered => o.state === 'answered');
  const offsetOfNode = new Map<string, number>();
  for (const o of answered) {
    const self = o.view.find(isMyself);
    if (self && o.replication) offsetOfNode.set(self.id, o.replication.offset);
  }
  const primaryOffset = (o: Answered): number | undefined => {
    const id = o.view.find(isMyself)?.primaryId;
    return id === undefined ? undefined : offsetOfNode.get(id);
  };
  const shards: RollShard[] = [];
  for (const sts of f.statefulSets) {
    const shard = Number(sts.metadata.labels?.[LABELS.shard]);
    if (!Number.isInteger(shard)) continue;
    const pods: RollPod[] = f.pods
      .filter((p) => p.metadata.labels?.[LABELS.shard] === String(shard))
      .flatMap((p) => {
        const ordinal = Number(/-(\d+)$/.exec(p.metadata.name)?.[1]);
        if (!Number.isInteger(ordinal)) return [];
        const problem = containerProblem(p);
        const revision = p.metadata.labels?.[REVISION_LABEL];
        return [
          {
            pod: p.metadata.name,
            shard,
            ordinal,
            ...(revision ? { revision } : {}),
            ready: ready(p),
            terminating: p.metadata.deletionTimestamp !== undefined,
            ...(problem ? { containerProblem: problem } : {}),
            node: rollNode(byPod.get(p.metadata.name), primaryOffset),
          },
        ];
      });
    shards.push({
      shard,
      ...(sts.status?.updateRevision ? { updateRevision: sts.status.updateRevision } : {}),
      observed: (sts.status?.observedGeneration ?? 0) >= (sts.metadata.generation ?? 0),
      allowDataLoss: allowsDataLoss(f.clusterAnnotations, sts),
      replicas: sts.spec?.replicas ?? pods.length,
      pods,
    });
  }
  return shards;
}
