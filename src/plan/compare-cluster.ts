import { optInCovers, readDataLossOptIn } from '../api/contract/data-loss-opt-in.js';
import { ANNOTATIONS, SYSTEM_USERNAMES, compareVersions, parseVersion } from '../api/index.js';
import { lookupSetting } from '../api/valkey-table.js';
import { diffUsers } from './acl-diff.js';
import { jsonEqual } from './json-equal.js';
import { compareMetering, meteringFigure, meteringReason } from './metering.js';
import type { PlanContext } from './plan-context.js';
import type { ClusterPlan, ClusterShape, Risk, SettingChange, UserChange } from './plan-schema.js';
import type { RenderedCluster } from './rendered-cluster.js';
import { predictRoll, type RollPlan } from './roll.js';
import { planScale } from './scale.js';
import { diffSettings } from './settings-diff.js';
import { listSome, num, counted } from './words.js';

/** One cluster's verdict and reasons, from its render on each side (either may be missing). */
export function compareCluster(base: RenderedCluster | undefined, change: RenderedCluster | undefined, ctx: PlanContext): ClusterPlan {
  if (!base || !change) {
    const only = (change ?? base) as RenderedCluster;
    const cluster = shapeOf(only);
    const reasons = change
      ? [
          `new: ${counted(cluster.shards, 'shard')} x ${counted(1 + cluster.replicasPerShard, 'pod')} (${counted(cluster.pods, 'pod')}), config chain ${cluster.configChain.join(' -> ')}, image ${cluster.image}${cluster.tls ? ', TLS' : ''}`,
        ]
      : [
          `retired: git stops rendering its ${counted(cluster.pods, 'pod')}; the StatefulSets are prune-protected, so they keep running with their data until someone deletes them`,
        ];
    if (change?.autoscaling) reasons.push(autoscalingReason(change.autoscaling, change.shards.length));
    const metering = { before: base ? meteringFigure(base) : null, after: change ? meteringFigure(change) : null };
    reasons.push(meteringReason(metering));
    return { namespace: only.namespace, name: only.name, verdict: change ? 'new' : 'retired', reasons, cluster, metering };
  }
  const settings = diffSettings(base, change, ctx);
  const users = diffUsers(base, change, ctx);
  // Compared as JSON values (the renderer's objects are plain data), without making their text.
  const objectsChanged = !jsonEqual(base.objects, change.objects);
  const roll = predictRoll(base, change, settings, ctx, objectsChanged);
  const scale = planScale(base, change);
  const risks = risksOf(base, change, settings, roll);
  const autoscalingChanged = rangeText(base.autoscaling) !== rangeText(change.autoscaling);
  const otherChange = objectsChanged || autoscalingChanged;

  const verdict: ClusterPlan['verdict'] = risks.some((r) => r.level === 'held')
    ? 'held'
    : risks.length > 0
      ? 'risky'
      : roll
        ? 'roll'
        : scale
          ? 'scale'
          : settings.length > 0 || users.length > 0 || otherChange
            ? 'live'
            : 'unchanged';

  const reasons: string[] = risks.map((r) => `${r.level}: ${r.message}`);
  if (roll) reasons.push(...rollReasons(roll));
  if (scale) {
    if (scale.shards.from !== scale.shards.to) {
      const where =
        scale.shards.to > scale.shards.from
          ? `to the new ${scale.shardsAdded.length === 1 ? 'shard' : 'shards'} ${listSome(scale.shardsAdded)}`
          : `off ${listSome(scale.shardsRemoved)}, which the controller drains and then deletes`;
      reasons.push(`shards ${scale.shards.from} -> ${scale.shards.to}: about ${num(scale.slotsToMove)} of 16,384 slots move ${where}`);
    }
    if (scale.replicasPerShard.from !== scale.replicasPerShard.to) {
      const down = scale.replicasPerShard.to < scale.replicasPerShard.from;
      reasons.push(
        `replicas per shard ${scale.replicasPerShard.from} -> ${scale.replicasPerShard.to}${down ? ': the highest ordinals go; the controller keeps primaries at ordinal 0, so merge while the cluster is Active' : ': new replicas sync in full from their primary'}`,
      );
    }
    reasons.push(`${counted(scale.podsAdded, 'pod')} added, ${counted(scale.podsRemoved, 'pod')} removed`);
  }
  // Settings valkey-krm forces because TLS was switched follow from the TLS cause: one line for all.
  const tlsSwitched = base.tlsSecret !== change.tlsSecret;
  const followTls = settings.filter((s) => tlsSwitched && s.setBy === 'forced');
  for (const s of settings) if (!followTls.includes(s)) reasons.push(settingReason(s, roll !== undefined));
  if (followTls.length > 0)
    reasons.push(
      `${counted(followTls.length, 'forced setting')} follow TLS: ${listSome(
        followTls.map((s) => s.name),
        8,
      )}`,
    );
  for (const u of users) reasons.push(userReason(u));
  if (change.autoscaling) reasons.push(autoscalingReason(change.autoscaling, change.shards.length));
  if (autoscalingChanged)
    reasons.push(
      change.autoscaling
        ? `autoscaling ${rangeText(base.autoscaling)} -> ${rangeText(change.autoscaling)}: the controller proposes shard counts in the new range from its next decision; nothing restarts`
        : `autoscaling ${rangeText(base.autoscaling)} -> off: the controller stops proposing shard counts; git's ${change.shards.length} stays`,
    );
  if (verdict === 'live' && settings.length === 0 && users.length === 0 && !autoscalingChanged) {
    reasons.push('rendered objects change, but no pod restarts and no setting or user changes');
  }
  const metering = compareMetering(base, change);
  if (metering) reasons.push(meteringReason(metering));
  const plan: ClusterPlan = { namespace: change.namespace, name: change.name, verdict, reasons };
  if (settings.length) plan.settings = settings;
  if (users.length) plan.users = users;
  if (roll) plan.roll = roll;
  if (scale) plan.scale = scale;
  if (risks.length) plan.risks = risks;
  if (metering) plan.metering = metering;
  return plan;
}

function risksOf(base: RenderedCluster, change: RenderedCluster, settings: readonly SettingChange[], roll: RollPlan | undefined): Risk[] {
  const risks: Risk[] = [];
  const alone = roll?.shards.filter((s) => !s.failover).map((s) => s.statefulSet) ?? [];
  const optedIn = optInCovers(readDataLossOptIn(change.dataLossOptIn), change.restartHash);
  if (alone.length > 0 && optedIn) {
    risks.push({
      level: 'risky',
      message: `${counted(alone.length, 'shard')} (${listSome(alone)}) will roll with no replica and lose their data: the ValkeyCluster opts in (${ANNOTATIONS.allowDataLossRoll}: "${change.dataLossOptIn}")`,
    });
  } else if (alone.length > 0) {
    risks.push({
      level: 'held',
      message: `${counted(alone.length, 'shard')} (${listSome(alone)}) would roll with no replica: restarting a primary with no replica loses its data, so the controller waits for an explicit opt-in`,
    });
  }
  if ((base.tlsSecret === undefined) !== (change.tlsSecret === undefined)) {
    risks.push({
      level: 'risky',
      message:
        change.tlsSecret !== undefined
          ? 'TLS switched on for a running cluster: it becomes TLS-only on port 6379, so every client must switch to TLS, and during the roll nodes on the old and new templates cannot reach each other'
          : 'TLS switched off for a running cluster: it becomes plaintext-only, so every client must drop TLS, and during the roll nodes on the old and new templates cannot reach each other',
    });
  }
  if (!roll) {
    const pending = settings.filter((s) => s.applies !== 'live' && s.to !== null);
    if (pending.length > 0) {
      risks.push({
        level: 'risky',
        message: `${listSome(pending.map((s) => s.name))} need a restart, but no pod template changes: they take effect only when the pods next restart`,
      });
    }
  }
  const [from, to] = [parseVersion(base.imageVersion), parseVersion(change.imageVersion)];
  if (from && to && compareVersions(to, from) < 0) {
    risks.push({
      level: 'risky',
      message: `Valkey version goes down ${base.imageVersion} -> ${change.imageVersion}: replicas on the older version may not sync from a newer primary`,
    });
  }
  risks.push(...systemUserRisks(base, change));
  // A shape check's warning the change brings (a setting that makes this cluster refuse writes
  // while a replica is down, a memory limit a full sync can exceed): risky, with the render's reason.
  const known = new Set(base.shapeWarnings);
  for (const message of change.shapeWarnings) if (!known.has(message)) risks.push({ level: 'risky', message });
  if (base.replicasPerShard > 0 && change.replicasPerShard === 0) {
    risks.push({
      level: 'risky',
      message: 'replicas per shard lowered to 0: each shard then keeps its data on one pod, and losing that pod loses the data',
    });
  }
  return risks;
}

/**
 * Replacing every password hash of a system user in one step is no live change: the controller
 * holds the old namespace password (or the replicas run with the old masterauth) until its Secret
 * and the pods follow, so the load would cut it off; the controller refuses such a load
 * (controller/cluster/acl-users.ts). Risky, with the reason and the two-step way.
 */
function systemUserRisks(base: RenderedCluster, change: RenderedCluster): Risk[] {
  const risks: Risk[] = [];
  const who = {
    [SYSTEM_USERNAMES.controller]: 'the controller, which holds only the passwords of its Secret, would be locked out of every node',
    [SYSTEM_USERNAMES.replication]:
      'the replicas, which run with the password they started with (masterauth), would be cut off until each restarts',
  };
  for (const [username, effect] of Object.entries(who)) {
    const before = base.users.get(username);
    const after = change.users.get(username);
    if (!before || before.hashes.size === 0) continue;
    const kept = after ? [...before.hashes].filter((h) => after.hashes.has(h)).length : 0;
    if (kept > 0) continue;
    risks.push({
      level: 'risky',
      message: `every password hash of ${username} is replaced in one step: ${effect}, so the controller refuses to load this users.acl; keep the old hash next to the new one, and remove it once the Secret and the pods have the new password`,
    });
  }
  return risks;
}

function rollReasons(roll: RollPlan): string[] {
  const order = roll.shards.map((s) => `${s.statefulSet} (${[...s.replicas, ...(s.failover ? ['failover'] : []), s.primary].join(', ')})`);
  return [
    `roll: ${counted(roll.pods, 'pod')} restart, ${counted(roll.failovers, 'failover')}; shard by shard, replicas first: ${listSome(order)}`,
    ...roll.causes.map((c) => `cause: ${c.kind}: ${c.detail}${c.objects.length ? ` (${c.objects.join(', ')})` : ''}`),
  ];
}

/** The release that reads a setting and ignores it (a deprecated one, such as dynamic-hz), if any. */
const ignoredBy = (name: string) => lookupSetting(name)?.facts.ignoredBy;

function settingReason(s: SettingChange, rolls: boolean): string {
  const value = (v: string | null) => (v === null ? '(unset)' : v === '' ? '""' : v);
  const how =
    s.applies === 'live'
      ? rolls
        ? 'live-capable, applied by the roll'
        : 'applied live with CONFIG SET'
      : s.applies === 'restart'
        ? ignoredBy(s.name)
          ? `needs a restart, for nothing: Valkey ${ignoredBy(s.name)} ignores it`
          : 'needs a restart'
        : 'not in the settings table: treated as needing a restart';
  return `setting ${s.name}: ${value(s.from)} -> ${value(s.to)} (${how}; ${s.setBy})`;
}

function userReason(u: UserChange): string {
  const what =
    u.change === 'added'
      ? 'added'
      : u.change === 'removed'
        ? 'removed'
        : [
            u.change.includes('passwords')
              ? `passwords ${u.passwordsAdded && u.passwordsRemoved ? 'rotated' : 'changed'} (+${u.passwordsAdded}, -${u.passwordsRemoved})`
              : '',
            u.change.includes('permissions')
              ? `permissions changed${u.editedRoles.length ? ` (${u.editedRoles.join(', ')} edited)` : ''}`
              : '',
          ]
            .filter(Boolean)
            .join(', ');
  return `ACL user ${u.username}: ${what} (${u.level}, ${u.boundBy}; applied live with ACL LOAD)`;
}

function shapeOf(c: RenderedCluster): ClusterShape {
  return {
    shards: c.shards.length,
    replicasPerShard: c.replicasPerShard,
    pods: c.shards.reduce((n, s) => n + s.pods, 0),
    configChain: c.chain,
    image: c.image,
    tls: c.tlsSecret !== undefined,
  };
}

const rangeText = (a: RenderedCluster['autoscaling']): string => (a ? `${a.minShards}–${a.maxShards}` : 'off');

/** An autoscaled cluster, honestly: the count the controller may propose, and whose count runs. */
const autoscalingReason = (a: NonNullable<RenderedCluster['autoscaling']>, shards: number): string =>
  `shards owned by the autoscaler within ${rangeText(a)}; git's count applies (${shards} in this change; the controller's decisions arrive as commits)`;
