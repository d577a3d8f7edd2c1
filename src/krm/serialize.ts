import { stringify } from 'yaml';
import type { KubeObject } from '../render/object.js';

/** Explicit, deterministic output: no line folding, no anchors (kpt cannot write them), compact lists like kubectl. */
export const YAML_OPTIONS = { lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false, indentSeq: false } as const;

export const toYaml = (value: unknown): string => stringify(value, YAML_OPTIONS);

/** A YAML document's text as an item of a block sequence whose `-` sits at column `indent`. */
export function asSequenceItem(documentText: string, indent: number): string {
  const pad = ' '.repeat(indent);
  const lines = documentText.replace(/\n$/, '').split('\n');
  return `${lines.map((line, i) => (i === 0 ? `${pad}- ${line}` : line === '' ? '' : `${pad}  ${line}`)).join('\n')}\n`;
}

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
