import { compareKeys, type ObjectRef, type Problem, type Severity } from '../api/index.js';

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

/** Errors first, then by object, field and message: the same order whatever the input order. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  const key = (p: Problem) => [
    RANK[p.severity],
    p.object?.kind ?? '',
    p.object?.namespace ?? '',
    p.object?.name ?? '',
    p.field ?? '',
    p.message,
  ];
  return [...problems].sort((a, b) => compareKeys(key(a), key(b)));
}

export function toResults(problems: readonly Problem[], fileOf: FileLookup): KrmResult[] {
  return sortProblems(problems).map((p) => {
    const result: KrmResult = { message: p.message, severity: p.severity };
    if (p.object?.kind) result.resourceRef = p.object;
    if (p.field) result.field = { path: p.field };
    const file = p.object ? fileOf(p.object) : undefined;
    if (file) result.file = file.index ? { path: file.path, index: file.index } : { path: file.path };
    return result;
  });
}
