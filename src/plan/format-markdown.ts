import { VERDICTS, type ClusterPlan, type Plan, type PlanProblem } from './plan-schema.js';
import { clusterName } from './format-text.js';
import { listSome, num, counted } from './words.js';

/** The first line of every plan comment: how the CI recipe finds its own comment to update it. */
export const MARKDOWN_MARKER = '<!-- valkey-krm-plan -->';

/** GitHub refuses comments over 65,536 characters; leave room for the marker and the tail. */
const DEFAULT_MAX_CHARS = 60_000;
/** Groups longer than this are collapsed; held and risky never are. */
const OPEN_GROUP_MAX = 5;
const UNCHANGED_NAMED = 200;

/** Text from the package (values, names) must not become markup or HTML in a comment. */
export function escapeMarkdown(text: string): string {
  return text
    .replaceAll(' -> ', ' → ')
    .replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string)
    .replace(/([\\`*_[\]|#~])/g, '\\$1');
}

/**
 * The plan as a pull-request comment: the summary, then each verdict's clusters, long groups in
 * collapsible `<details>`. Past `maxChars` the lists stop with a count of what was left out.
 */
export function formatPlanMarkdown(plan: Plan, options: { maxChars?: number } = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const out: string[] = [MARKDOWN_MARKER, '### valkey-krm plan', '', `**${escapeMarkdown(plan.summary)}**`, ''];
  let size = out.join('\n').length;
  const push = (...lines: string[]) => {
    out.push(...lines);
    size += lines.reduce((n, l) => n + l.length + 1, 0);
  };
  for (const { side, problems } of plan.invalid) {
    push(`#### The ${side} is invalid`, '', ...problems.map(problemLine), '');
  }
  for (const verdict of VERDICTS) {
    const group = plan.clusters.filter((c) => c.verdict === verdict);
    if (group.length === 0) continue;
    const title = `${verdict}: ${counted(group.length, 'cluster')}`;
    const collapse = verdict !== 'held' && verdict !== 'risky' && group.length > OPEN_GROUP_MAX;
    push(collapse ? `<details><summary><b>${title}</b></summary>` : `#### ${title}`, '');
    if (verdict === 'unchanged') {
      push(escapeMarkdown(listSome(group.map(clusterName), UNCHANGED_NAMED)), '');
    } else {
      for (let i = 0; i < group.length; i++) {
        const lines = clusterLines(group[i] as ClusterPlan);
        const budget = maxChars - 200;
        if (size + lines.join('\n').length > budget) {
          push(`- ... and ${num(group.length - i)} more (the comment has a size limit; run \`render-valkey plan\` for the whole list)`);
          break;
        }
        push(...lines);
      }
      push('');
    }
    if (collapse) push('</details>', '');
  }
  if (plan.warnings.length > 0) push('#### Warnings in the change', '', ...plan.warnings.map(problemLine), '');
  return `${out.join('\n').trimEnd()}\n`;
}

function clusterLines(c: ClusterPlan): string[] {
  return [`- **${escapeMarkdown(clusterName(c))}**`, ...c.reasons.map((r) => `  - ${escapeMarkdown(r)}`)];
}

function problemLine(p: PlanProblem): string {
  const where = p.file ? ` (in \`${p.file.replaceAll('`', "'")}\`)` : p.object ? ` (${escapeMarkdown(p.object)})` : '';
  return `- ${p.severity}: ${escapeMarkdown(p.message)}${where}`;
}
