/**
 * What a roll decides from, read off the StatefulSets, the pods and the nodes (cluster/roll.ts
 * plans from it): the observing half's translation of Kubernetes objects into the planner's
 * plain data. Pure.
 */
import { optInCovers, readDataLossOptIn } from '../../api/contract/data-loss-opt-in.js';
import { replicaInSync } from '../../api/contract/replica-sync.js';
import { ANNOTATIONS, ordinalOf, shardOf, STATEFULSET_REVISION_LABEL } from '../../api/index.js';
import { isMyself, isPrimary } from '../cluster/cluster-view.js';
import { primaryOffsetOf, type Answered, type NodeObservation } from '../cluster/observation.js';
import { startupProblemMessage, type RollNode, type RollPod, type RollShard } from '../cluster/roll.js';
import type { Pod, StatefulSet } from '../kube/types.js';
import { schedulerRefusal } from '../valkey/observe-node.js';

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

function rollNode(o: NodeObservation | undefined, answered: readonly Answered[]): RollNode {
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
  return { state: 'answered', role: 'replica', inSync: replicaInSync(o.replication, primaryOffsetOf(o, answered)) };
}

/** The opt-in on the ValkeyCluster, or as the renderer copied it onto the StatefulSet (api/contract/data-loss-opt-in.ts). */
function allowsDataLoss(clusterAnnotations: Record<string, string> | undefined, sts: StatefulSet): boolean {
  const restartHash = sts.spec?.template?.metadata?.annotations?.[ANNOTATIONS.restartHash];
  return [clusterAnnotations, sts.metadata.annotations].some((a) =>
    optInCovers(readDataLossOptIn(a?.[ANNOTATIONS.allowDataLossRoll]), restartHash),
  );
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
  const shards: RollShard[] = [];
  for (const sts of f.statefulSets) {
    const shard = shardOf(sts.metadata.labels);
    if (shard === undefined) continue;
    const pods: RollPod[] = f.pods
      .filter((p) => shardOf(p.metadata.labels) === shard)
      .flatMap((p) => {
        const ordinal = ordinalOf(p.metadata.name);
        if (ordinal === undefined) return [];
        const problem = containerProblem(p);
        const refused = schedulerRefusal(p);
        const revision = p.metadata.labels?.[STATEFULSET_REVISION_LABEL];
        return [
          {
            pod: p.metadata.name,
            shard,
            ordinal,
            ...(revision ? { revision } : {}),
            ready: ready(p),
            terminating: p.metadata.deletionTimestamp !== undefined,
            ...(problem ? { containerProblem: problem } : {}),
            ...(refused !== undefined ? { unschedulable: refused } : {}),
            node: rollNode(byPod.get(p.metadata.name), answered),
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
