import type { ClusterPlan, ObjectEdit, PlanCounts } from './plan-schema.js';
import { listSome, num, counted } from './words.js';

const MENU_KINDS = ['ValkeyImage', 'ValkeyConfig', 'ValkeyRole'];

/**
 * The one line people read first: what was edited, then what it does, e.g. "menu edit to
 * ValkeyConfig standard: 214 clusters, 38 roll (684 pods, 114 failovers), 176 live, 0 held".
 */
export function summarize(
  edits: readonly ObjectEdit[],
  renderConfigChanged: boolean,
  clusters: readonly ClusterPlan[],
  counts: PlanCounts,
  invalid: readonly { side: 'base' | 'change'; problems: readonly unknown[] }[],
): string {
  if (invalid.length > 0) {
    return invalid
      .map((i) => `the ${i.side} is invalid (${counted(i.problems.length, 'error')})`)
      .join(' and ')
      .concat(': nothing to compare');
  }
  return `${describeEdits(edits, renderConfigChanged)}: ${describeCounts(clusters, counts)}`;
}

function describeEdits(edits: readonly ObjectEdit[], renderConfigChanged: boolean): string {
  const name = (e: ObjectEdit) =>
    `${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}${e.change === 'changed' ? '' : ` (${e.change === 'added' ? 'new' : 'removed'})`}`;
  const menu = edits.filter((e) => MENU_KINDS.includes(e.kind));
  const clusters = edits.filter((e) => !MENU_KINDS.includes(e.kind));
  const parts: string[] = [];
  if (menu.length > 0) parts.push(`menu ${menu.length === 1 ? 'edit' : 'edits'} to ${listSome(menu.map(name))}`);
  if (clusters.length > 0) parts.push(`${clusters.length === 1 ? 'edit' : 'edits'} to ${listSome(clusters.map(name))}`);
  if (renderConfigChanged) parts.push('render config edited');
  return parts.length > 0 ? parts.join('; ') : 'no edit to any Valkey object';
}

function describeCounts(clusters: readonly ClusterPlan[], counts: PlanCounts): string {
  const rolling = clusters.filter((c) => c.verdict === 'roll');
  const pods = rolling.reduce((n, c) => n + (c.roll?.pods ?? 0), 0);
  const failovers = rolling.reduce((n, c) => n + (c.roll?.failovers ?? 0), 0);
  const parts = [counted(counts.clusters, 'cluster')];
  if (counts.roll) parts.push(`${num(counts.roll)} roll (${counted(pods, 'pod')}, ${counted(failovers, 'failover')})`);
  if (counts.scale) parts.push(`${num(counts.scale)} scale${counts.slotsToMove ? ` (about ${num(counts.slotsToMove)} slots move)` : ''}`);
  for (const verdict of ['live', 'new', 'retired', 'risky', 'unchanged'] as const)
    if (counts[verdict]) parts.push(`${num(counts[verdict])} ${verdict}`);
  parts.push(`${num(counts.held)} held`);
  return parts.join(', ');
}
