import { VERDICTS, type ClusterPlan, type Plan, type PlanProblem } from './plan-schema.js';
import { clusterName } from './format-text.js';
import { METERING_HEADING, namespaceMeteringLine } from './metering.js';
import { listSome, num, counted } from './words.js';
import { visibleOneLine } from '../api/index.js';

/** The first line of every plan comment: how the CI recipe finds its own comment to update it. */
export const MARKDOWN_MARKER = '<!-- valkey-krm-plan -->';

/** GitHub refuses comments over 65,536 characters; leave room for the marker and the tail. */
const DEFAULT_MAX_CHARS = 60_000;
/** Groups longer than this are collapsed; held and risky never are. */
const OPEN_GROUP_MAX = 5;
const UNCHANGED_NAMED = 200;
/** One problem's message is cut here in a comment (the whole of it is in the plan's text and JSON). */
const ERROR_MAX = 2000;

/**
 * Text from the package (values, names, messages that quote them) must not become structure,
 * markup, HTML or a notification in a comment: line breaks and control characters are shown as
 * escapes (so nothing can start a line: no heading, list, quote or fake "all clear"), HTML is
 * entity-encoded, Markdown's punctuation and GitHub's math are backslash-escaped, and a word
 * joiner (U+2060) breaks @mentions, #references and autolinks (https://, www.).
 */
export function escapeMarkdown(text: string): string {
  return visibleOneLine(text)
    .replaceAll(' -> ', ' → ')
    .replace(/([\\`*_[\]|#~$!])/g, '\\$1')
    .replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string)
    .replace(/([@#])/g, '$1\u2060')
    .replace(/:\/\//g, ':\u2060//')
    .replace(/(www)\./gi, '$1\u2060.');
}

/** A file name in a code span: nothing in it renders, but a backtick or line break would end it. */
const codeSpan = (text: string): string => `\`${visibleOneLine(text).replaceAll('`', "'")}\``;

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
  // Errors come first and have the first claim on the size limit: the long lists give way to
  // them, never the other way round. One message is cut at ERROR_MAX characters.
  const bounded = (lines: string[], what: string, reserve: number) => {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (size + line.length > maxChars - reserve) {
        push(`- ... and ${num(lines.length - i)} more ${what} (the comment has a size limit; run \`render-valkey plan\` for all of them)`);
        return;
      }
      push(line);
    }
  };
  for (const { side, problems } of plan.invalid) {
    push(`#### The ${side} is invalid`, '');
    bounded(problems.map(problemLine), 'errors', 300);
    push('');
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
  if (plan.metering) {
    push(`#### ${METERING_HEADING}`, '');
    bounded(
      plan.metering.namespaces.map((n) => `- ${escapeMarkdown(namespaceMeteringLine(n))}`),
      'namespaces',
      200,
    );
    push('');
  }
  if (plan.warnings.length > 0) {
    push('#### Warnings in the change', '');
    bounded(plan.warnings.map(problemLine), 'warnings', 200);
    push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function clusterLines(c: ClusterPlan): string[] {
  return [`- **${escapeMarkdown(clusterName(c))}**`, ...c.reasons.map((r) => `  - ${escapeMarkdown(r)}`)];
}

function problemLine(p: PlanProblem): string {
  const where = p.file
    ? ` (in ${codeSpan(`${p.file}${p.line !== undefined ? `:${p.line}:${p.column}` : ''}`)})`
    : p.object
      ? ` (${escapeMarkdown(p.object)})`
      : '';
  const message = p.message.length > ERROR_MAX ? `${p.message.slice(0, ERROR_MAX)}…` : p.message;
  return `- ${p.severity}: ${escapeMarkdown(message)}${where}`;
}
