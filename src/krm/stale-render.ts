import { compareKeys, describeRef, error, hasErrors, type Problem } from '../api/index.js';
import { objectRefOf } from '../menu/parse.js';
import { renderAll } from '../render/render-all.js';
import { readFunctionConfig } from './function-config.js';
import type { GeneratedObject, InputItem } from './run-function.js';

/**
 * Committed output that a fresh render of the same package would not write: an image bump
 * committed without `kpt fn render`, a hand edit of a rendered file, a cluster removed but its
 * file kept. `validate-valkey` reports each such object as an error with what differs, so a CI
 * step needs no `kpt fn render && git diff --exit-code` of its own.
 */
export function staleRenderProblems(previous: readonly InputItem[], fresh: readonly GeneratedObject[]): Problem[] {
  const before = new Map(previous.map((item) => [identity(item.value), item.value]));
  const after = new Map(fresh.map((g) => [identity(g.object), g.object]));
  const problems: Problem[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const [old, now] = [before.get(key), after.get(key)];
    const ref = objectRefOf(old ?? now);
    const where = describeRef(ref);
    if (old === undefined) {
      problems.push(error(`${where}: a fresh render writes it, but the committed output lacks it; ${RERENDER}`, ref));
      continue;
    }
    if (now === undefined) {
      problems.push(error(`${where}: committed as rendered output, but a fresh render no longer writes it; ${RERENDER}`, ref));
      continue;
    }
    const changes = differences(comparable(old), comparable(now), '');
    if (changes.length === 0) continue;
    const shown = changes.slice(0, MAX_SHOWN).join('; ');
    const more = changes.length > MAX_SHOWN ? `; and ${changes.length - MAX_SHOWN} more` : '';
    problems.push(
      error(`${where}: the committed output differs from a fresh render: ${shown}${more}; ${RERENDER}`, ref, changes[0]?.split(':')[0]),
    );
  }
  return problems;
}

/**
 * The same check for `plan`, which reads a package as kubectl apply -R or a GitOps tool does: its
 * committed output is what reaches the API server, so output that is not what this render writes
 * (a hand-edited connection ConfigMap pointing applications at another host, a NetworkPolicy opened
 * up in place) is an error of the change, not an "unchanged" plan. Nothing to check (and no second
 * render) when the package commits no output; a side that does not render is reported elsewhere.
 */
export function committedOutputProblems(objects: readonly unknown[], renderConfig: unknown, committed: readonly InputItem[]): Problem[] {
  if (committed.length === 0) return [];
  const { config } = readFunctionConfig(renderConfig);
  if (!config) return [];
  const fresh = renderAll(objects, config, { previous: committed.map((item) => item.value) });
  if (hasErrors(fresh.problems)) return [];
  return staleRenderProblems(
    committed,
    fresh.clusters.flatMap((c) => c.objects.map((object, index) => ({ object, path: '', index }))),
  );
}

const RERENDER = 'run kpt fn render (or render-valkey over the package) and commit what it writes';
const MAX_SHOWN = 5;
/** Annotations kpt and kustomize add to say where an object sits; they are not what was rendered. */
const POSITION_ANNOTATION = /^(internal\.config\.kubernetes\.io\/.+|config\.kubernetes\.io\/(path|index|origin)|config\.k8s\.io\/id)$/;

const identity = (value: unknown): string => {
  const r = objectRefOf(value);
  return JSON.stringify([r.apiVersion, r.kind, r.namespace ?? '', r.name]);
};

/** The object without the position annotations (and without an annotations map they leave empty). */
function comparable(value: unknown): unknown {
  const v = value as { metadata?: { annotations?: Record<string, unknown> } };
  const annotations = v.metadata?.annotations;
  if (annotations === undefined) return value;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([k]) => !POSITION_ANNOTATION.test(k)));
  const { annotations: _, ...metadata } = v.metadata as Record<string, unknown>;
  return { ...v, metadata: Object.keys(kept).length ? { ...metadata, annotations: kept } : metadata };
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? 'nothing';
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

/** Each place where `a` and `b` differ, as `path: committed -> fresh`, in a stable order. */
function differences(a: unknown, b: unknown, path: string): string[] {
  if (Object.is(a, b)) return [];
  const bothObjects = typeof a === 'object' && typeof b === 'object' && a !== null && b !== null;
  if (bothObjects && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b)) {
      const out: string[] = [];
      for (let i = 0; i < Math.max(a.length, b.length); i++) out.push(...differences(a[i], b[i], `${path}[${i}]`));
      return out;
    }
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort((x, y) => compareKeys([x], [y]));
    return keys.flatMap((k) => differences(ao[k], bo[k], path ? `${path}.${k}` : k));
  }
  if (typeof a === 'string' && typeof b === 'string' && (a.includes('\n') || b.includes('\n'))) return [lineDifference(path, a, b)];
  return [`${path || '(the object)'}: ${show(a)} -> ${show(b)}`];
}

/** A file inside a value (valkey.conf, users.acl): its first line that differs. */
function lineDifference(path: string, a: string, b: string): string {
  const [al, bl] = [a.split('\n'), b.split('\n')];
  let i = 0;
  while (i < al.length && i < bl.length && al[i] === bl[i]) i++;
  return `${path} line ${i + 1}: ${show(al[i])} -> ${show(bl[i])}`;
}
