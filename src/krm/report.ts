import { describeRef, plural, sortProblems, visible, visibleOneLine, type Problem, type Severity } from '../api/index.js';
import { describeLocation, type FileLocation, type FileLookup } from './results.js';
import type { Tool } from './tool.js';

/** The path plain-files mode gives what it read from stdin (`-`). */
export const STDIN_PATH = '<stdin>';

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
  if (tool === 'render-valkey') return `rendered ${plural(counts.clusters, 'cluster')} into ${plural(counts.objects, 'object')}`;
  return mode === 'plain-files'
    ? `valid: ${plural(counts.images, 'image')}, ${plural(counts.configs, 'config')}, ${plural(counts.roles, 'role')}, ${plural(counts.clusters, 'cluster')}`
    : 'valid';
}

/** The report people read on stderr: one block per problem, causes before what they cause, then a count. */
export function formatReport(problems: readonly Problem[], fileOf: FileLookup, tool: Tool, outcome: string): string {
  const lines: string[] = [];
  for (const p of sortProblems(problems)) {
    // Continuation lines are indented: no text from the input can stand at the start of a line.
    lines.push(`${p.severity}: ${visible(p.message).replaceAll('\n', '\n  ')}`);
    lines.push(...whereLines(p, p.object ? fileOf(p.object, p.inputs) : []).map(visibleOneLine));
  }
  const count = (s: Severity) => problems.filter((p) => p.severity === s).length;
  lines.push(
    `${tool}: ${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${plural(count('info'), 'info')}; ${outcome}`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * Where to look: the file and document when one is known. A document number on stdin means little
 * when a tool (kustomize's exec plugin) wrote the stream, so there the object is named as well.
 */
function whereLines(p: Problem, places: readonly FileLocation[]): string[] {
  const object = p.object?.kind ? describeRef(p.object) : undefined;
  if (places.length === 0) return object ? [`  object: ${object}`] : [];
  return places.map((place) =>
    place.path === STDIN_PATH && object
      ? `  object: ${object} (document ${place.index + 1} on stdin)`
      : `  in ${describeLocation(place, p.field)}`,
  );
}
