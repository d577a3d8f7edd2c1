// The per-cluster rules on their own. The renderer's pod-template hash covers only restart-relevant
// inputs, so a live-only setting leaves every template byte-identical and the plan says "live";
// some rules below take templates from another render to reach cases a menu edit alone cannot.
import { describe, expect, it } from 'vitest';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { renderAll } from '../../src/render/render-all.js';
import type { RenderConfig } from '../../src/api/index.js';
import { compareCluster } from '../../src/plan/compare-cluster.js';
import { liveSettingFromTable as isLiveSetting } from '../../src/plan/live-settings.js';
import { MenuIndex } from '../../src/plan/menu-index.js';
import type { PlanContext } from '../../src/plan/plan-context.js';
import { planChange } from '../../src/plan/plan.js';
import { readRenderedCluster, type RenderedCluster } from '../../src/plan/rendered-cluster.js';
import { binding, cluster, config, image, renderConfigObject, role } from '../support/objects.js';

const render = validateRenderConfig(renderConfigObject()).config as RenderConfig;
const menu = (valkey: Record<string, string> = {}) => [
  image('valkey-9-0'),
  role('reader'),
  config('standard', { imageRef: 'valkey-9-0', resources: { cpu: '1', memory: '2Gi' }, valkey: { maxmemory: '1000mb', ...valkey } }),
];
const clusterSpec = { shards: 2, replicasPerShard: 1, acl: [binding('app')] };

function renderOne(objects: unknown[]): RenderedCluster {
  const out = renderAll(objects, render);
  expect(out.problems.filter((p) => p.severity === 'error')).toEqual([]);
  const c = out.clusters[0] as (typeof out.clusters)[number];
  return readRenderedCluster(c.namespace, c.name, c.objects, c.provenance);
}

const context = (base: unknown[], change: unknown[]): PlanContext => ({
  base: new MenuIndex(base),
  change: new MenuIndex(change),
  baseRender: render,
  changeRender: render,
  isLiveSetting,
  renderConfigChanged: false,
});

/** A render with another render's pod templates. */
const withTemplatesOf = (from: RenderedCluster, to: RenderedCluster): RenderedCluster => ({ ...to, shards: from.shards });

describe('compareCluster', () => {
  const baseObjects = [...menu(), cluster('cache', clusterSpec)];

  it('rolls a live setting while the pod template changes: the renderer is the truth', () => {
    const changeObjects = [...menu({ maxmemory: '1200mb' }), cluster('cache', clusterSpec)];
    const restarted = [...menu({ 'tcp-backlog': '1024' }), cluster('cache', clusterSpec)];
    const change = withTemplatesOf(renderOne(restarted), renderOne(changeObjects));
    const plan = compareCluster(renderOne(baseObjects), change, context(baseObjects, changeObjects));
    expect(plan.verdict).toBe('roll');
    expect(plan.settings).toEqual([{ name: 'maxmemory', from: '1000mb', to: '1200mb', applies: 'live', setBy: 'ValkeyConfig standard' }]);
  });

  it('applies a live setting live when no pod template changes', () => {
    const changeObjects = [...menu({ maxmemory: '1200mb' }), cluster('cache', clusterSpec)];
    const base = renderOne(baseObjects);
    const plan = compareCluster(base, withTemplatesOf(base, renderOne(changeObjects)), context(baseObjects, changeObjects));
    expect(plan.verdict).toBe('live');
    expect(plan.roll).toBeUndefined();
    expect(plan.reasons).toContain('setting maxmemory: 1000mb -> 1200mb (applied live with CONFIG SET; ValkeyConfig standard)');
  });

  it('calls a restart setting risky when no pod template changes: it would wait for the next restart', () => {
    const changeObjects = [...menu({ 'tcp-backlog': '1024' }), cluster('cache', clusterSpec)];
    const base = renderOne(baseObjects);
    const plan = compareCluster(base, withTemplatesOf(base, renderOne(changeObjects)), context(baseObjects, changeObjects));
    expect(plan.verdict).toBe('risky');
    expect(plan.risks?.[0]?.message).toMatch(/^tcp-backlog need a restart, but no pod template changes/);
  });

  it('asks the settings table it is given, not a list of its own', () => {
    const changeObjects = [...menu({ maxmemory: '1200mb' }), cluster('cache', clusterSpec)];
    const base = renderOne(baseObjects);
    const ctx = { ...context(baseObjects, changeObjects), isLiveSetting: () => false };
    const plan = compareCluster(base, withTemplatesOf(base, renderOne(changeObjects)), ctx);
    expect(plan.settings?.[0]?.applies).toBe('restart');
    expect(plan.verdict).toBe('risky');
  });

  it('holds a zero-replica roll until the ValkeyCluster opts in, then calls it risky', () => {
    const single = { shards: 1, replicasPerShard: 0, acl: [binding('app')] };
    const optedIn = cluster('cache', single);
    const withOptIn = {
      ...optedIn,
      metadata: { ...optedIn.metadata, annotations: { 'valkey.gomomento.com/allow-data-loss-roll': 'true' } },
    };
    const before = [...menu(), cluster('cache', single)];
    const held = [...menu({ 'tcp-backlog': '1024' }), cluster('cache', single)];
    const allowed = [...menu({ 'tcp-backlog': '1024' }), withOptIn];
    expect(compareCluster(renderOne(before), renderOne(held), context(before, held)).verdict).toBe('held');
    const plan = compareCluster(renderOne(before), renderOne(allowed), context(before, allowed));
    expect(plan.verdict).toBe('risky');
    expect(plan.risks?.[0]?.message).toMatch(/will roll with no replica and lose their data: the ValkeyCluster opts in/);
  });

  it('names the platform binding and the edited role of a changed user', () => {
    const platform = (roleSpec: Record<string, unknown>) => [
      image('valkey-9-0'),
      role('reader'),
      role('ops', roleSpec),
      config('root', { imageRef: 'valkey-9-0', resources: { cpu: '1', memory: '2Gi' }, acl: [binding('oncall', 'ops')] }),
      config('standard', { baseRef: 'root' }),
      cluster('cache', clusterSpec),
    ];
    const before = platform({ categories: [{ name: 'read', access: 'allow' }] });
    const after = platform({
      categories: [
        { name: 'read', access: 'allow' },
        { name: 'admin', access: 'deny' },
      ],
    });
    const plan = compareCluster(renderOne(before), renderOne(after), context(before, after));
    expect(plan.verdict).toBe('live');
    expect(plan.users).toEqual([
      {
        username: 'oncall',
        level: 'platform',
        change: 'permissions',
        passwordsAdded: 0,
        passwordsRemoved: 0,
        boundBy: 'ValkeyConfig root',
        editedRoles: ['ValkeyRole ops'],
      },
    ]);
  });
});

describe('planChange', () => {
  const side = (objects: unknown[]) => ({ objects, renderConfig: renderConfigObject() });

  it('says which side is broken and shows its errors', () => {
    const plan = planChange(
      side([...menu(), cluster('cache', { ...clusterSpec, configRef: 'missing' })]),
      side([...menu(), cluster('cache', clusterSpec)]),
    );
    expect(plan.ok).toBe(false);
    expect(plan.invalid.map((i) => i.side)).toEqual(['base']);
    expect(plan.invalid[0]?.problems[0]?.message).toMatch(/ValkeyConfig "missing" does not exist/);
    expect(plan.summary).toBe('the base is invalid (1 error): nothing to compare');
  });

  it('plans an empty base (a new package) as all new', () => {
    const plan = planChange({ objects: [], renderConfig: undefined }, side([...menu(), cluster('cache', clusterSpec)]));
    expect(plan.ok).toBe(true);
    expect(plan.clusters.map((c) => c.verdict)).toEqual(['new']);
  });

  it('notices a render config edit that reaches every pod template', () => {
    const objects = [...menu(), cluster('cache', clusterSpec)];
    const plan = planChange(side(objects), { objects, renderConfig: renderConfigObject({ clusterDomain: 'example.internal' }) });
    expect(plan.renderConfigChanged).toBe(true);
    expect(plan.summary).toMatch(/^render config edited: 1 cluster, 1 roll/);
    expect(plan.clusters[0]?.roll?.causes.map((c) => [c.kind, c.objects])).toEqual([['other', ['ValkeyRenderConfig']]]);
  });
});

describe('an autoscaled cluster in the plan (issue 26)', () => {
  const side = (objects: unknown[]) => ({ objects, renderConfig: renderConfigObject() });
  const autoscaling = { minShards: 2, maxShards: 8, scaleOut: { memoryPercent: 80 } };
  const autoscaled = (shards: number, a: Record<string, unknown> = autoscaling) =>
    cluster('cache', { ...clusterSpec, shards, autoscaling: a });

  it('the job’s commit (shards 2 -> 3): a scale, with the range the autoscaler owns and git’s count', () => {
    const plan = planChange(side([...menu(), autoscaled(2)]), side([...menu(), autoscaled(3)]));
    expect(plan.clusters[0]?.verdict).toBe('scale');
    expect(plan.clusters[0]?.reasons).toContain(
      "shards owned by the autoscaler within 2–8; git's count applies (3 in this change; the controller's decisions arrive as commits)",
    );
  });

  it('autoscaling switched on or its range changed: live (nothing restarts), said in words', () => {
    const on = planChange(side([...menu(), cluster('cache', clusterSpec)]), side([...menu(), autoscaled(2)]));
    expect(on.clusters[0]?.verdict).toBe('live');
    expect(on.clusters[0]?.reasons).toContain(
      'autoscaling off -> 2–8: the controller proposes shard counts in the new range from its next decision; nothing restarts',
    );
    const off = planChange(side([...menu(), autoscaled(2)]), side([...menu(), cluster('cache', clusterSpec)]));
    expect(off.clusters[0]?.reasons).toContain("autoscaling 2–8 -> off: the controller stops proposing shard counts; git's 2 stays");
  });

  it('a new autoscaled cluster says its range; a cluster without autoscaling says nothing of it', () => {
    const added = planChange({ objects: [], renderConfig: undefined }, side([...menu(), autoscaled(2)]));
    // The metering line comes last, as on every cluster whose figure changes.
    expect(added.clusters[0]?.reasons.at(-2)).toMatch(/^shards owned by the autoscaler within 2–8/);
    expect(added.clusters[0]?.reasons.at(-1)).toMatch(/^metering: none -> /);
    const plain = planChange(
      side([...menu(), cluster('cache', clusterSpec)]),
      side([...menu(), cluster('cache', { ...clusterSpec, shards: 3 })]),
    );
    expect(plain.clusters[0]?.reasons.join('\n')).not.toContain('autoscal');
  });
  it("a setting back on valkey-krm's rendered default says so, and is live", () => {
    const optedOut = [...menu({ 'shutdown-on-sigterm': 'default' }), cluster('cache', clusterSpec)];
    const back = [...menu(), cluster('cache', clusterSpec)];
    const plan = compareCluster(renderOne(optedOut), renderOne(back), context(optedOut, back));
    expect(plan.settings).toEqual([
      { name: 'shutdown-on-sigterm', from: 'default', to: 'failover', applies: 'live', setBy: 'valkey-krm default' },
    ]);
  });
});
