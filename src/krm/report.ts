import { describeRef, type Problem, type Severity } from '../api/index.js';
import { sortProblems, type FileLookup } from './results.js';
import type { Tool } from './tool.js';

/** What a run that found an error says it did: it wrote no render (or found the input invalid). */
export const failureText = (tool: Tool): string => (tool === 'render-valkey' ? 'nothing was rendered' : 'invalid');

export interface RunCounts {
  images: number;
  configs: number;
  roles: number;
  clusters: number;
  objects: number;
}

/**
 * What a successful run says it did. The plain-files validator counts what it checked, since its
 * report is all it prints; in a ResourceList the items speak for themselves.
 */
export function successText(tool: Tool, counts: RunCounts, mode: 'resource-list' | 'plain-files'): string {
  if (tool === 'render-valkey') return `rendered ${counts.clusters} clusters into ${counts.objects} objects`;
  return mode === 'plain-files'
    ? `valid: ${counts.images} images, ${counts.configs} configs, ${counts.roles} roles, ${counts.clusters} clusters`
    : 'valid';
}

/** The report people read on stderr: one block per problem, then a count. */
export function formatReport(problems: readonly Problem[], fileOf: FileLookup, tool: Tool, outcome: string): string {
  const lines: string[] = [];
  for (const p of sortProblems(problems)) {
    lines.push(`${p.severity}: ${p.message}`);
    const file = p.object ? fileOf(p.object) : undefined;
    if (file) lines.push(`  in ${file.path}${file.index ? ` (document ${file.index + 1})` : ''}`);
    else if (p.object?.kind) lines.push(`  object: ${describeRef(p.object)}`);
  }
  const count = (s: Severity) => problems.filter((p) => p.severity === s).length;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  lines.push(
    `${tool}: ${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${plural(count('info'), 'info')}; ${outcome}`,
  );
  return `${lines.join('\n')}\n`;
}
