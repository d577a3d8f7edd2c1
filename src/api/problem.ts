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
}

export const error = (message: string, object?: ObjectRef, field?: string): Problem => ({ severity: 'error', message, object, field });
export const warning = (message: string, object?: ObjectRef, field?: string): Problem => ({ severity: 'warning', message, object, field });
export const info = (message: string, object?: ObjectRef, field?: string): Problem => ({ severity: 'info', message, object, field });

export const hasErrors = (problems: readonly Problem[]): boolean => problems.some((p) => p.severity === 'error');

/** A reference to one of this project's objects. */
export const valkeyRef = (kind: string, name: string, namespace?: string): ObjectRef =>
  namespace ? { apiVersion: API_VERSION, kind, name, namespace } : { apiVersion: API_VERSION, kind, name };

/** `Kind namespace/name` or `Kind name`, the way kubectl users read object names. */
export function describeRef(ref: ObjectRef): string {
  const name = ref.name || '(unnamed)';
  return ref.namespace ? `${ref.kind} ${ref.namespace}/${name}` : `${ref.kind} ${name}`;
}
