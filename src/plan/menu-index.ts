import { canonicalJson } from '../api/canonical-json.js';
import type { ValkeyCluster, ValkeyConfig, ValkeyImage } from '../api/index.js';
import type { ObjectEdit } from './plan-schema.js';

/**
 * The Valkey objects of one side as they were written, by kind and name. The plan reads them only
 * after that side rendered without errors, so they have their schema's shape. Only `spec` counts:
 * it is all the renderer reads besides names (labels, comments and kpt's annotations never matter).
 */
export class MenuIndex {
  private readonly objects = new Map<string, { kind: string; name: string; namespace?: string; spec: unknown; canonical: string }>();

  constructor(values: readonly unknown[]) {
    for (const value of values) {
      const v = value as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown }; spec?: unknown };
      if (typeof v?.kind !== 'string' || typeof v.metadata?.name !== 'string') continue;
      const namespace = typeof v.metadata.namespace === 'string' && v.metadata.namespace ? v.metadata.namespace : undefined;
      const entry = { kind: v.kind, name: v.metadata.name, spec: v.spec, canonical: canonicalJson(v.spec) };
      this.objects.set(key(v.kind, v.metadata.name, namespace), namespace ? { ...entry, namespace } : entry);
    }
  }

  spec<T>(kind: string, name: string, namespace?: string): T | undefined {
    return this.objects.get(key(kind, name, namespace))?.spec as T | undefined;
  }

  config = (name: string) => this.spec<ValkeyConfig['spec']>('ValkeyConfig', name);
  image = (name: string) => this.spec<ValkeyImage['spec']>('ValkeyImage', name);
  cluster = (namespace: string, name: string) => this.spec<ValkeyCluster['spec']>('ValkeyCluster', name, namespace);

  /** Every object whose spec differs between the two sides, in kind, namespace, name order. */
  static edits(base: MenuIndex, change: MenuIndex): ObjectEdit[] {
    const edits: ObjectEdit[] = [];
    for (const [k, b] of base.objects) {
      const c = change.objects.get(k);
      if (!c) edits.push(describeEdit(b, 'removed'));
      else if (c.canonical !== b.canonical) edits.push(describeEdit(c, 'changed'));
    }
    for (const [k, c] of change.objects) if (!base.objects.has(k)) edits.push(describeEdit(c, 'added'));
    return edits.sort((a, b) => compare(a.kind, b.kind) || compare(a.namespace ?? '', b.namespace ?? '') || compare(a.name, b.name));
  }
}

const key = (kind: string, name: string, namespace?: string) => `${kind}/${namespace ?? ''}/${name}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function describeEdit(o: { kind: string; name: string; namespace?: string }, change: ObjectEdit['change']): ObjectEdit {
  return o.namespace ? { kind: o.kind, name: o.name, namespace: o.namespace, change } : { kind: o.kind, name: o.name, change };
}

/** Do two sides' values of one field differ (by canonical JSON)? */
export const differs = (a: unknown, b: unknown): boolean => canonicalJson(a) !== canonicalJson(b);

/** "ValkeyConfig standard", "ValkeyCluster team-a/cache": how people name objects. */
export const objectName = (kind: string, name: string, namespace?: string) => `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
