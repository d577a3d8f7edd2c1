import { visible, visibleOneLine } from '../api/index.js';
import { VERDICTS, type ClusterPlan, type Plan, type PlanProblem } from './plan-schema.js';
import { METERING_HEADING, namespaceMeteringLine } from './metering.js';
import { listSome, counted } from './words.js';

/** Unchanged clusters are named on one line, up to this many. */
const UNCHANGED_NAMED = 20;

/**
 * Text from the package, indented under a line of ours: control characters as escapes and every
 * continuation line indented, so no name or message can repaint a line or pass for the summary.
 */
const block = (text: string, indent: string): string => `${indent}${visible(text).replaceAll('\n', `\n${indent}  `)}`;

/** The plan for a terminal: the summary, then each verdict's clusters with their reasons. */
export function formatPlanText(plan: Plan): string {
  const lines = [`valkey-krm plan: ${visibleOneLine(plan.summary)}`];
  for (const { side, problems } of plan.invalid) {
    lines.push('', `The ${side} is invalid:`, ...problems.flatMap(problemLines));
  }
  for (const verdict of VERDICTS) {
    const group = plan.clusters.filter((c) => c.verdict === verdict);
    if (group.length === 0) continue;
    lines.push('', `${verdict} (${counted(group.length, 'cluster')}):`);
    if (verdict === 'unchanged') {
      lines.push(`  ${visibleOneLine(listSome(group.map(clusterName), UNCHANGED_NAMED))}`);
      continue;
    }
    for (const c of group) lines.push(`  ${visibleOneLine(clusterName(c))}`, ...c.reasons.map((r) => block(r, '    ')));
  }
  if (plan.metering)
    lines.push('', `${METERING_HEADING}:`, ...plan.metering.namespaces.map((n) => `  ${visibleOneLine(namespaceMeteringLine(n))}`));
  if (plan.warnings.length > 0) lines.push('', 'Warnings in the change:', ...plan.warnings.flatMap(problemLines));
  return `${lines.join('\n')}\n`;
}

export const clusterName = (c: ClusterPlan) => `${c.namespace}/${c.name}`;

function problemLines(p: PlanProblem): string[] {
  const where = p.file ? `in ${p.file}${p.line !== undefined ? `:${p.line}:${p.column}` : ''}` : p.object;
  return [block(`${p.severity}: ${p.message}`, '  '), ...(where ? [`    ${visibleOneLine(where)}`] : [])];
}
