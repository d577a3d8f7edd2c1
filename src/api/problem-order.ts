import { compareKeys } from './order.js';
import type { Problem, Severity } from './problem.js';

/**
 * The one order of problems in every report (render-valkey's results, the plan's errors and
 * warnings), the same whatever the order of the input documents.
 */

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
