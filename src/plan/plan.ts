import { ANNOTATIONS, describeRef, hasErrors, sortProblems, type ObjectRef, type Problem, type RenderConfig } from '../api/index.js';
import { ownPath } from '../menu/own.js';
import { type RenderConfigCheck, validateRenderConfig } from '../menu/render-config.js';
import type { KubeObject } from '../render/object.js';
import { renderAll } from '../render/render-all.js';
import { compareCluster } from './compare-cluster.js';
import { liveSettingFromTable as defaultLiveSetting, type LiveSettingLookup } from './live-settings.js';
import { differs, MenuIndex } from './menu-index.js';
import { namespaceMetering } from './metering.js';
import type { PlanContext } from './plan-context.js';
import { PLAN_SCHEMA_ID, VERDICTS, type ClusterPlan, type Plan, type PlanCounts, type PlanProblem } from './plan-schema.js';
import { readRenderedCluster, type RenderedCluster } from './rendered-cluster.js';
import { summarize } from './summary.js';

/** One state of the package: its Valkey objects and its render config, as read. */
export interface PlanSide {
  objects: readonly unknown[];
  /** A ValkeyRenderConfig or a ConfigMap, as for render-valkey; undefined is an error. */
  renderConfig: unknown;
  /** Problems found while reading (invalid YAML, several render configs...). */
  problems?: readonly Problem[];
  /** Where an object was read from, for the report. */
  /** Where an object was read from, and where the field is in that file when it is known. */
  fileOf?: (ref: ObjectRef, field?: string) => { path: string; line?: number; column?: number } | undefined;
  /**
   * What another release of the function rendered from these same objects (`plan --base-rendered`):
   * each cluster's objects are taken from here, grouped by their rendered-for annotation, instead
   * of this release's render. The menu, provenance and warnings still come from `objects`.
   */
  rendered?: readonly unknown[];
}

export interface PlanOptions {
  isLiveSetting?: LiveSettingLookup;
  /**
   * Reads a side's render config. The default takes a ValkeyRenderConfig; the plan command passes
   * the KRM reader, which also knows kpt's ConfigMap form (src/krm/function-config.ts).
   */
  readRenderConfig?: (value: unknown) => RenderConfigCheck;
}

interface RenderedSide {
  render?: RenderConfig;
  clusters: Map<string, RenderedCluster>;
  problems: Problem[];
}

/**
 * What the change does to every cluster either side knows. Renders both sides with the same pure
 * renderer as render-valkey, so the plan predicts the objects git will hold, and compares them.
 */
export function planChange(base: PlanSide, change: PlanSide, options: PlanOptions = {}): Plan {
  const read = options.readRenderConfig ?? validateRenderConfig;
  const sides = { base: renderSide(base, read), change: renderSide(change, read) };
  const invalid = (['base', 'change'] as const)
    .filter((side) => hasErrors(sides[side].problems))
    .map((side) => ({
      side,
      problems: toPlanProblems(
        sides[side].problems.filter((p) => p.severity === 'error'),
        (side === 'base' ? base : change).fileOf,
      ),
    }));
  // Only what the change brings: a warning the base already had is not news in a review.
  const known = new Set(sides.base.problems.map((p) => p.message));
  const warnings = toPlanProblems(
    sides.change.problems.filter((p) => p.severity === 'warning' && !known.has(p.message)),
    change.fileOf,
  );
  if (invalid.length > 0) {
    const clusters: ClusterPlan[] = [];
    return {
      schema: PLAN_SCHEMA_ID,
      ok: false,
      summary: summarize([], false, clusters, countOf(clusters), invalid),
      edits: [],
      renderConfigChanged: false,
      counts: countOf(clusters),
      clusters,
      invalid,
      warnings,
    };
  }
  const ctx: PlanContext = {
    base: new MenuIndex(base.objects),
    change: new MenuIndex(change.objects),
    baseRender: (sides.base.render ?? sides.change.render) as RenderConfig,
    changeRender: (sides.change.render ?? sides.base.render) as RenderConfig,
    isLiveSetting: options.isLiveSetting ?? defaultLiveSetting,
    renderConfigChanged:
      sides.base.render !== undefined && sides.change.render !== undefined && differs(sides.base.render, sides.change.render),
  };
  const keys = [...new Set([...sides.base.clusters.keys(), ...sides.change.clusters.keys()])];
  const clusters = keys.map((key) => compareCluster(sides.base.clusters.get(key), sides.change.clusters.get(key), ctx));
  const rank = (c: ClusterPlan) => VERDICTS.indexOf(c.verdict);
  clusters.sort((a, b) => rank(a) - rank(b) || compareText(a.namespace, b.namespace) || compareText(a.name, b.name));
  const edits = MenuIndex.edits(ctx.base, ctx.change);
  const counts = countOf(clusters);
  const metering = namespaceMetering(sides.base.clusters, sides.change.clusters);
  return {
    schema: PLAN_SCHEMA_ID,
    ok: true,
    summary: summarize(edits, ctx.renderConfigChanged, clusters, counts, []),
    edits,
    renderConfigChanged: ctx.renderConfigChanged,
    counts,
    clusters,
    invalid: [],
    warnings,
    ...(metering ? { metering } : {}),
  };
}

function renderSide(side: PlanSide, readRenderConfig: (value: unknown) => RenderConfigCheck): RenderedSide {
  const problems: Problem[] = [...(side.problems ?? [])];
  // A package new in the change has nothing at all in its base: no clusters, and nothing wrong.
  if (side.objects.length === 0 && side.renderConfig === undefined && problems.length === 0) return { clusters: new Map(), problems };
  const parsed = readRenderConfig(side.renderConfig);
  problems.push(...parsed.problems);
  const rendered = renderAll(side.objects, parsed.config);
  problems.push(...rendered.problems);
  const clusters = new Map<string, RenderedCluster>();
  if (!hasErrors(problems)) {
    const other = side.rendered ? objectsByCluster(side.rendered) : undefined;
    for (const c of rendered.clusters) {
      const key = `${c.namespace}/${c.name}`;
      const objects = other ? other.get(key) : c.objects;
      // A cluster the other release did not render is new to it: the plan says "new".
      if (objects) clusters.set(key, readRenderedCluster(c.namespace, c.name, objects, c.provenance, c.autoscaling, c.shapeWarnings));
    }
  }
  return parsed.config ? { render: parsed.config, clusters, problems } : { clusters, problems };
}

/** Rendered objects by the cluster they were rendered for (`<namespace>/<name>`, the rendered-for annotation). */
function objectsByCluster(objects: readonly unknown[]): Map<string, KubeObject[]> {
  const byCluster = new Map<string, KubeObject[]>();
  for (const object of objects) {
    const owner = ownPath(object, 'metadata', 'annotations', ANNOTATIONS.renderedFor);
    if (typeof owner !== 'string' || !owner.includes('/')) continue;
    const list = byCluster.get(owner) ?? [];
    list.push(object as KubeObject);
    byCluster.set(owner, list);
  }
  return byCluster;
}

function toPlanProblems(problems: readonly Problem[], fileOf: PlanSide['fileOf']): PlanProblem[] {
  // In render-valkey's order (causes first), the same whatever the order of the documents.
  return sortProblems(problems).map((p) => {
    const out: PlanProblem = { severity: p.severity, message: p.message };
    if (p.object?.kind) out.object = describeRef(p.object);
    if (p.field) out.field = p.field;
    const file = p.object ? fileOf?.(p.object, p.field) : undefined;
    if (file) {
      out.file = file.path;
      if (file.line !== undefined && file.column !== undefined) {
        out.line = file.line;
        out.column = file.column;
      }
    }
    return out;
  });
}

function countOf(clusters: readonly ClusterPlan[]): PlanCounts {
  const counts: PlanCounts = {
    clusters: clusters.length,
    held: 0,
    risky: 0,
    roll: 0,
    scale: 0,
    live: 0,
    new: 0,
    retired: 0,
    unchanged: 0,
    podsRestarted: 0,
    failovers: 0,
    slotsToMove: 0,
  };
  for (const c of clusters) {
    counts[c.verdict]++;
    counts.podsRestarted += c.roll?.pods ?? 0;
    counts.failovers += c.roll?.failovers ?? 0;
    counts.slotsToMove += c.scale?.slotsToMove ?? 0;
  }
  return counts;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
