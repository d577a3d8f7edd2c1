import { API_VERSION } from './group.js';

/**
 * The one shape every finding takes in the core. The KRM layer translates these into
 * ResourceList results; the plain-files mode prints them. The core never throws at users.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export interface Problem {
  severity: Severity;
  /** Names the object and field and says how to fix it. */
  message: string;
  object?: ObjectRef;
  /** Dotted path inside the object, e.g. `spec.placement.zones[1]`. */
  field?: string;
  /**
   * The object whose own problem this one follows from (an invalid image under a cluster's
   * config, a config chain that fails further up). Reports put the cause first and this problem
   * after it, and the message says "caused by"; fixing the cause fixes this one.
   */
  causedBy?: ObjectRef;
  /**
   * Where in the input each object this problem is about sits, as positions in the list the core
   * was given, when the object's reference cannot tell them apart (two objects with one name).
   */
  inputs?: readonly number[];
}

export const error = (message: string, object?: ObjectRef, field?: string): Problem => ({ severity: 'error', message, object, field });
export const warning = (message: string, object?: ObjectRef, field?: string): Problem => ({ severity: 'warning', message, object, field });
export const info = (message: string, object?: ObjectRef, field?: string): Problem => ({ severity: 'info', message, object, field });

/** `problem`, marked as following from a problem on `cause`. */
export const causedBy = (problem: Problem, cause: ObjectRef): Problem => ({ ...problem, causedBy: cause });

export const hasErrors = (problems: readonly Problem[]): boolean => problems.some((p) => p.severity === 'error');

/** A reference to one of this project's objects. */
export const valkeyRef = (kind: string, name: string, namespace?: string): ObjectRef =>
  namespace ? { apiVersion: API_VERSION, kind, name, namespace } : { apiVersion: API_VERSION, kind, name };

/** "1 cluster", "2 clusters": counts in messages read as sentences. */
export const plural = (n: number, singular: string, several = `${singular}s`): string => `${n} ${n === 1 ? singular : several}`;

/** `Kind namespace/name` or `Kind name`, the way kubectl users read object names. */
export function describeRef(ref: ObjectRef): string {
  const name = ref.name || '(unnamed)';
  return ref.namespace ? `${ref.kind} ${ref.namespace}/${name}` : `${ref.kind} ${name}`;
}
