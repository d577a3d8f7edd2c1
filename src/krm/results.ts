import type { TextPosition } from './yaml/yaml-package.js';
import { visible } from '../api/visible.js';
import { sortProblems, type ObjectRef, type Problem, type Severity } from '../api/index.js';

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
