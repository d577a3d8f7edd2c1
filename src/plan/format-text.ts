import { VERDICTS, type ClusterPlan, type Plan, type PlanProblem } from './plan-schema.js';
import { listSome, counted } from './words.js';

/** Unchanged clusters are named on one line, up to this many. */
const UNCHANGED_NAMED = 20;

/** The plan for a terminal: the summary, then each verdict's clusters with their reasons. */
export function formatPlanText(plan: Plan): string {
  const lines = [`valkey-krm plan: ${plan.summary}`];
  for (const { side, problems } of plan.invalid) {
    lines.push('', `The ${side} is invalid:`, ...problems.flatMap(problemLines));
  }
  for (const verdict of VERDICTS) {
    const group = plan.clusters.filter((c) => c.verdict === verdict);
    if (group.length === 0) continue;
    lines.push('', `${verdict} (${counted(group.length, 'cluster')}):`);
    if (verdict === 'unchanged') {
      lines.push(`  ${listSome(group.map(clusterName), UNCHANGED_NAMED)}`);
      continue;
    }
    for (const c of group) lines.push(`  ${clusterName(c)}`, ...c.reasons.map((r) => `    ${r}`));
  }
  if (plan.warnings.length > 0) lines.push('', 'Warnings in the change:', ...plan.warnings.flatMap(problemLines));
  return `${lines.join('\n')}\n`;
}

export const clusterName = (c: ClusterPlan) => `${c.namespace}/${c.name}`;

function problemLines(p: PlanProblem): string[] {
  const where = p.file ? `in ${p.file}` : p.object;
  return [`  ${p.severity}: ${p.message}`, ...(where ? [`    ${where}`] : [])];
}
