import type { KubeObject } from '../render/object.js';

/** The path and index annotations kpt needs to write each generated object to a file. */
export function withPath(object: KubeObject, path: string, index: number): KubeObject {
  const annotations = {
    ...object.metadata.annotations,
    'config.kubernetes.io/path': path,
    'config.kubernetes.io/index': String(index),
    'internal.config.kubernetes.io/path': path,
    'internal.config.kubernetes.io/index': String(index),
  };
  return { ...object, metadata: { ...object.metadata, annotations } };
}
