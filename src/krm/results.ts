import { describeRef, type ObjectRef, type Problem, type Severity } from '../api/index.js';

/** A KRM function result (the spec's field names). */
export interface KrmResult {
  message: string;
  severity: Severity;
  resourceRef?: ObjectRef;
  field?: { path: string };
  file?: { path: string; index?: number };
}

export type FileLookup = (ref: ObjectRef) => { path: string; index: number } | undefined;

export const refKey = (ref: { kind: string; name: string; namespace?: string }) => `${ref.kind}|${ref.namespace ?? ''}|${ref.name}`;

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export function sortProblems(problems: readonly Problem[]): Problem[] {
  const key = (p: Problem) => [RANK[p.severity], p.object?.kind ?? '', p.object?.namespace ?? '', p.object?.name ?? '', p.field ?? '', p.message] as const;
  return [...problems].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) {
      if (ka[i] !== kb[i]) return (ka[i] as string | number) < (kb[i] as string | number) ? -1 : 1;
    }
    return 0;
  });
}

export function toResults(problems: readonly Problem[], fileOf: FileLookup): KrmResult[] {
  return sortProblems(problems).map((p) => {
    const result: KrmResult = { message: p.message, severity: p.severity };
    if (p.object && p.object.kind) result.resourceRef = p.object;
    if (p.field) result.field = { path: p.field };
    const file = p.object ? fileOf(p.object) : undefined;
    if (file) result.file = file.index ? { path: file.path, index: file.index } : { path: file.path };
    return result;
  });
}

/** The report people read on stderr: one block per problem, then a count. */
export function formatReport(problems: readonly Problem[], fileOf: FileLookup, tool: string, outcome: string): string {
  const lines: string[] = [];
  for (const p of sortProblems(problems)) {
    lines.push(`${p.severity}: ${p.message}`);
    const file = p.object ? fileOf(p.object) : undefined;
    if (file) lines.push(`  in ${file.path}${file.index ? ` (document ${file.index + 1})` : ''}`);
    else if (p.object?.kind) lines.push(`  object: ${describeRef(p.object)}`);
  }
  const count = (s: Severity) => problems.filter((p) => p.severity === s).length;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  lines.push(`${tool}: ${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${plural(count('info'), 'info')}; ${outcome}`);
  return `${lines.join('\n')}\n`;
}
