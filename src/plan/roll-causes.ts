import { RESERVED_ANNOTATION_PREFIX } from '../api/index.js';
import { differs, objectName } from './menu-index.js';
import type { PlanContext } from './plan-context.js';
import type { RenderedCluster } from './rendered-cluster.js';
import type { RollCause, SettingChange } from './plan-schema.js';

type CauseKind = RollCause['kind'];

const PLACEMENT_PATHS = ['spec.affinity', 'spec.nodeSelector', 'spec.topologySpreadConstraints'];

/** Which input a differing pod-template path comes from. Hash annotations are derived, not causes. */
function classify(path: string, tlsChanged: boolean): CauseKind | 'derived' {
  if (path === 'spec.containers[0].image') return 'image';
  if (path.startsWith('spec.containers[0].resources')) return 'resources';
  if (PLACEMENT_PATHS.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`))) return 'placement';
  if (path.startsWith('metadata.annotations')) {
    return path.startsWith(`metadata.annotations[${JSON.stringify(RESERVED_ANNOTATION_PREFIX).slice(0, -1)}`) ? 'derived' : 'annotations';
  }
  return tlsChanged ? 'tls' : 'other';
}

/**
 * Why the pod template changes, each cause named with the edited objects behind it. The paths say
 * which parts of the template differ; the two menus say which object in the chain changed them.
 */
export function rollCauses(
  base: RenderedCluster,
  change: RenderedCluster,
  paths: readonly string[],
  settings: readonly SettingChange[],
  ctx: PlanContext,
): RollCause[] {
  const tlsChanged = base.tlsSecret !== change.tlsSecret;
  const kinds = new Map<CauseKind | 'derived', string[]>();
  for (const path of paths) {
    const kind = classify(path, tlsChanged);
    kinds.set(kind, [...(kinds.get(kind) ?? []), path]);
  }
  const causes: RollCause[] = [];
  const clusterObject = objectName('ValkeyCluster', change.name, change.namespace);
  const clusterEdited = (field: string) =>
    differs(
      ctx.base.cluster(base.namespace, base.name)?.[field as 'placement'],
      ctx.change.cluster(change.namespace, change.name)?.[field as 'placement'],
    );
  const chainText = (c: RenderedCluster) => c.chain.join(' -> ');
  const chainChanged = chainText(base) !== chainText(change);
  const editedConfigs = (pick: (spec: NonNullable<ReturnType<PlanContext['base']['config']>>) => unknown) =>
    [...new Set([...change.chain, ...base.chain])]
      .filter((c) => differs(pickOf(ctx.base.config(c), pick), pickOf(ctx.change.config(c), pick)))
      .map((c) => `ValkeyConfig ${c}`);

  if (chainChanged) {
    causes.push({
      kind: 'chain',
      detail: `config chain ${chainText(base)} -> ${chainText(change)}`,
      objects: clusterEdited('configRef') ? [clusterObject] : editedConfigs((s) => s.baseRef),
    });
  }
  if (base.image !== change.image || kinds.has('image')) {
    const objects =
      base.imageRef !== change.imageRef
        ? editedConfigs((s) => s.imageRef)
        : differs(ctx.base.image(change.imageRef), ctx.change.image(change.imageRef))
          ? [`ValkeyImage ${change.imageRef}`]
          : [];
    causes.push({ kind: 'image', detail: `image ${base.image} -> ${change.image}`, objects });
  } else if (base.imageVersion !== change.imageVersion) {
    causes.push({
      kind: 'image',
      detail: `ValkeyImage ${change.imageRef} declares version ${base.imageVersion} -> ${change.imageVersion} (same image ${change.image}; valkey.conf names the version)`,
      objects: [`ValkeyImage ${change.imageRef}`],
    });
  }
  if (kinds.has('resources')) {
    causes.push({
      kind: 'resources',
      detail: `resources ${resourcesText(base)} -> ${resourcesText(change)}`,
      objects: editedConfigs((s) => s.resources),
    });
  }
  if (tlsChanged) {
    const detail =
      base.tlsSecret === undefined
        ? `TLS off -> on (Secret ${change.tlsSecret})`
        : change.tlsSecret === undefined
          ? `TLS on -> off (was Secret ${base.tlsSecret})`
          : `TLS Secret ${base.tlsSecret} -> ${change.tlsSecret}`;
    causes.push({ kind: 'tls', detail, objects: [clusterObject] });
  }
  // Settings forced because of TLS are explained by the TLS cause; a live setting never changes
  // the pod template (the renderer hashes only restart-relevant lines), so it causes no roll.
  const ownSettings = settings.filter((s) => s.applies !== 'live' && !(tlsChanged && s.setBy === 'forced'));
  if (ownSettings.length > 0 && (kinds.has('derived') || kinds.has('other'))) {
    const kind = { live: 'a live setting', restart: 'a restart setting', unknown: 'not in the settings table' } as const;
    const text = ownSettings.map((s) => `${s.name} ${s.from ?? '(unset)'} -> ${s.to ?? '(unset)'} (${kind[s.applies]})`).join(', ');
    const forced = ownSettings.some((s) => s.setBy === 'forced') && ctx.renderConfigChanged ? ['ValkeyRenderConfig'] : [];
    causes.push({ kind: 'settings', detail: `valkey.conf: ${text}`, objects: [...editedConfigs((s) => s.valkey), ...forced] });
  }
  if (kinds.has('placement')) {
    const objects = clusterEdited('placement') ? [clusterObject] : [];
    if (
      ctx.baseRender.defaultZoneSpread !== ctx.changeRender.defaultZoneSpread ||
      ctx.baseRender.nodeSpread !== ctx.changeRender.nodeSpread
    )
      objects.push('ValkeyRenderConfig');
    causes.push({ kind: 'placement', detail: `placement (${shortPaths(kinds.get('placement') ?? [])})`, objects });
  }
  if (kinds.has('annotations')) {
    causes.push({
      kind: 'annotations',
      detail: `pod annotations (${shortPaths(kinds.get('annotations') ?? [])})`,
      objects: clusterEdited('podAnnotations') ? [clusterObject] : [],
    });
  }
  const other = tlsChanged ? [] : (kinds.get('other') ?? []);
  if (other.length > 0 || causes.length === 0) {
    const shown = other.length > 0 ? other : (kinds.get('derived') ?? []);
    const objects = ctx.renderConfigChanged ? ['ValkeyRenderConfig'] : [];
    causes.push({ kind: 'other', detail: `pod template ${shortPaths(shown)}`, objects });
  }
  return causes;
}

function pickOf<T, R>(spec: T | undefined, pick: (spec: T) => R): R | undefined {
  return spec === undefined ? undefined : pick(spec);
}

function resourcesText(c: RenderedCluster): string {
  const container = (c.shards[0]?.template as { spec?: { containers?: { resources?: { limits?: Record<string, unknown> } }[] } })?.spec
    ?.containers?.[0];
  const limits = container?.resources?.limits ?? {};
  const parts = Object.entries(limits).map(([k, v]) => `${k} ${String(v)}`);
  return parts.length ? parts.join(', ') : '(none)';
}

function shortPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(', ');
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}
