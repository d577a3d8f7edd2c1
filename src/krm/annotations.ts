import { LABELS, MANAGED_BY } from '../api/index.js';
import { own, ownPath } from '../menu/own.js';
import type { KubeObject } from '../render/object.js';

/** The annotations kpt and kustomize use to say where an item came from or goes, and which items are local config. */
export const PATH = 'internal.config.kubernetes.io/path';
export const INDEX = 'internal.config.kubernetes.io/index';
export const LEGACY_PATH = 'config.kubernetes.io/path';
export const LEGACY_INDEX = 'config.kubernetes.io/index';
export const LOCAL_CONFIG = 'config.kubernetes.io/local-config';
/** Set by kustomize with `buildMetadata: [originAnnotations]`: a YAML mapping whose `path` is the source file. */
export const ORIGIN = 'config.kubernetes.io/origin';

const annotationsOf = (value: unknown) => {
  const a = ownPath(value, 'metadata', 'annotations');
  return {
    get: (key: string): unknown => own(a, key),
  };
};

/** Our own earlier output: replaced on every run, so re-rendering is idempotent. */
export const isGenerated = (value: unknown): boolean => ownPath(value, 'metadata', 'labels', LABELS.managedBy) === MANAGED_BY;

export const isLocalConfig = (value: unknown): boolean => {
  const v = annotationsOf(value).get(LOCAL_CONFIG);
  return v !== undefined && v !== 'false' && v !== false;
};

export const isKptfile = (value: unknown): boolean => own(value, 'kind') === 'Kptfile';

/**
 * kpt's inventory object (`kpt live init` writes resourcegroup.yaml): kpt live reads it, but it is
 * not a resource of the package, and Argo CD would apply it (as a CR of a CRD it lacks) if the
 * plain-files mode passed it on.
 */
export const isKptInventory = (value: unknown): boolean =>
  own(value, 'kind') === 'ResourceGroup' && own(value, 'apiVersion') === 'kpt.dev/v1alpha1';

/** Where kpt (or kustomize) says an item came from. */
export function fileOf(value: unknown): { path: string; index: number } | undefined {
  const a = annotationsOf(value);
  const path = a.get(PATH) ?? a.get(LEGACY_PATH);
  if (typeof path !== 'string') return undefined;
  const raw = a.get(INDEX) ?? a.get(LEGACY_INDEX);
  const index = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : 0;
  return { path, index };
}

/**
 * The file kustomize says an object was read from (its origin annotation), relative to the
 * kustomization. Only for messages: kustomize does not pass kpt's path annotations.
 */
export function originOf(value: unknown): { path: string; index: number } | undefined {
  const origin = annotationsOf(value).get(ORIGIN);
  if (typeof origin !== 'string') return undefined;
  const path = /^path:[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\n#]*?))[ \t]*$/m.exec(origin);
  const found = path?.[1] ?? path?.[2] ?? path?.[3];
  return found ? { path: found, index: 0 } : undefined;
}

/** The path and index annotations kpt needs to write a generated object to its file (both generations of keys), in order. */
export function fileAnnotations(path: string, index: number): [key: string, value: string][] {
  const i = String(index);
  return [
    [LEGACY_PATH, path],
    [LEGACY_INDEX, i],
    [PATH, path],
    [INDEX, i],
  ];
}

/** `object` with its file annotations (fileAnnotations) after its own. */
export function withFileAnnotations(object: KubeObject, path: string, index: number): KubeObject {
  const annotations = { ...object.metadata.annotations, ...Object.fromEntries(fileAnnotations(path, index)) };
  return { ...object, metadata: { ...object.metadata, annotations } };
}
