import type { PlanContext } from './plan-context.js';
import { podName } from '../api/index.js';
import { jsonEqual } from './json-equal.js';
import type { RenderedCluster } from './rendered-cluster.js';
import { rollCauses } from './roll-causes.js';
import { differingPaths } from './template-diff.js';
import type { ShardRollPlan, SettingChange } from './plan-schema.js';

export interface RollPlan {
  pods: number;
  failovers: number;
  shards: ShardRollPlan[];
  causes: ReturnType<typeof rollCauses>;
}

/**
 * Which existing pods restart. The renderer is the truth: a shard rolls exactly when its pod
 * template differs, whatever the settings table says. The controller rolls failover-first, one
 * shard after another; in a shard the replicas go first, then a replica on the new revision takes
 * over and the primary (ordinal 0) restarts. A shard with no replica has nobody to fail over to.
 */
export function predictRoll(
  base: RenderedCluster,
  change: RenderedCluster,
  settings: readonly SettingChange[],
  ctx: PlanContext,
  objectsChanged: boolean,
): RollPlan | undefined {
  // Equal objects, equal pod templates: nothing restarts (most clusters of a menu edit).
  if (!objectsChanged) return undefined;
  const shards: ShardRollPlan[] = [];
  const paths: string[] = [];
  let pods = 0;
  for (const after of change.shards) {
    const before = base.shards.find((s) => s.index === after.index);
    if (!before || jsonEqual(before.template, after.template)) continue;
    if (paths.length < 64) paths.push(...differingPaths(before.template, after.template).filter((p) => !paths.includes(p)));
    // Pods added by a scale-up start on the new template; pods removed by a scale-down just go.
    const restarting = Math.min(before.pods, after.pods);
    pods += restarting;
    const replicas: string[] = [];
    for (let ordinal = restarting - 1; ordinal >= 1; ordinal--) replicas.push(podName(after.statefulSet, ordinal));
    shards.push({
      statefulSet: after.statefulSet,
      replicas,
      failover: change.replicasPerShard >= 1,
      primary: podName(after.statefulSet, 0),
    });
  }
  if (shards.length === 0) return undefined;
  return { pods, failovers: shards.filter((s) => s.failover).length, shards, causes: rollCauses(base, change, paths, settings, ctx) };
}
