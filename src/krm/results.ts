import type { TextPosition } from './yaml/yaml-package.js';
import { visible } from '../api/visible.js';
import { compareKeys, type ObjectRef, type Problem, type Severity } from '../api/index.js';

/** A KRM function result (the spec's field names). */
export interface KrmResult {
  message: string;
  severity: Severity;
  resourceRef?: ObjectRef;
  field?: { path: string };
  file?: { path: string; index?: number };
}

/** Where an object came from: a file and the document's position in it. */
export interface FileLocation {
  path: string;
  index: number;
  /**
   * Where a field of the object is in the file (plain-files mode, which read the file itself; a
   * ResourceList from kpt or kustomize carries no positions).
   */
  at?: (field?: string) => TextPosition | undefined;
}

/**
 * Where a problem's object came from, when known: by its positions in the input where the problem
 * gives them (two objects with one name), else by its reference. Sorted, so the first is the same
 * whatever the input order.
 */
export type FileLookup = (ref: ObjectRef, inputs?: readonly number[]) => FileLocation[];

/**
 * `images.yaml:14:5` where the field (or the object) is, when the file's positions are known; else
 * `images.yaml (document 2)`: document numbers count from 1, and the first goes unsaid.
 */
export const describeLocation = (file: FileLocation, field?: string): string => {
  const at = file.at?.(field);
  if (at) return `${file.path}:${at.line}:${at.column}`;
  return `${file.path}${file.index ? ` (document ${file.index + 1})` : ''}`;
};

export const refKey = (ref: { kind: string; name: string; namespace?: string }) => `${ref.kind}|${ref.namespace ?? ''}|${ref.name}`;

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * The menu's kinds in the order they depend on each other: an image before the configs that run
 * it, a config before the clusters on it. Problems about anything else (the input itself, the
 * render config) come first, since they can make every other problem moot.
 */
const KIND_ORDER = ['ValkeyImage', 'ValkeyRole', 'ValkeyConfig', 'ValkeyCluster'];
const kindRank = (kind: string | undefined) => KIND_ORDER.indexOf(kind ?? '') + 1;

const ownKey = (p: Problem) => [
  kindRank(p.object?.kind),
  p.object?.kind ?? '',
  p.object?.namespace ?? '',
  p.object?.name ?? '',
  p.field ?? '',
  p.message,
];

/**
 * Errors first; within a severity, a cause before what follows from it (each dependent right under
 * the first problem of the object that causes it, however deep the chain), then by kind in
 * dependency order, object, field and message: the same order whatever the input order.
 */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  // The first problem on each object (errors before warnings) is what a dependent points at.
  const firstOn = new Map<string, Problem>();
  const firstKey = (p: Problem) => [RANK[p.severity], ...ownKey(p)];
  for (const p of problems) {
    if (!p.object) continue;
    const key = refKey(p.object);
    const known = firstOn.get(key);
    if (!known || compareKeys(firstKey(p), firstKey(known)) < 0) firstOn.set(key, p);
  }
  const rootOf = (p: Problem): { root: Problem; depth: number } => {
    let current = p;
    const seen = new Set<Problem>([p]);
    for (;;) {
      const cause = current.causedBy && firstOn.get(refKey(current.causedBy));
      if (!cause || seen.has(cause)) return { root: current, depth: seen.size - 1 };
      seen.add(cause);
      current = cause;
    }
  };
  const keyed = problems.map((p) => {
    const { root, depth } = rootOf(p);
    return { p, key: [RANK[p.severity], ...ownKey(root), depth, ...ownKey(p)] };
  });
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  return keyed.map((k) => k.p);
}

export function toResults(problems: readonly Problem[], fileOf: FileLookup): KrmResult[] {
  return sortProblems(problems).map((p) => {
    const places = p.object ? fileOf(p.object, p.inputs) : [];
    // A result has one file: a problem about several objects (one name defined twice) names the rest.
    const message = places.length > 1 ? `${p.message} (in ${places.map((f) => describeLocation(f, p.field)).join(' and ')})` : p.message;
    // kpt prints each result's message to the terminal as it is: no raw control character in it.
    const result: KrmResult = { message: visible(message), severity: p.severity };
    if (p.object?.kind) result.resourceRef = p.object;
    if (p.field) result.field = { path: p.field };
    const file = places[0];
    if (file) result.file = file.index ? { path: file.path, index: file.index } : { path: file.path };
    return result;
  });
}
