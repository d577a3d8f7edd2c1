import { Informer, type InformerOptions } from './informer.js';
import type { ApiObject } from './types.js';

/**
 * One namespaced resource watched in every namespace at once (one informer, cluster-wide RBAC), or
 * in each of a list of namespaces (one informer per namespace, so a namespaced install needs only
 * a Role in each). Read like one informer: keys are `namespace/name`.
 */
export class NamespacedInformers<T extends ApiObject> {
  private readonly byNamespace = new Map<string | undefined, Informer<T>>();

  /**
   * @param namespaces the namespaces to watch; absent or empty: all of them
   * @param options the informer's options, with its collection path for a namespace (undefined: all)
   */
  constructor(namespaces: readonly string[] | undefined, options: (namespace: string | undefined) => InformerOptions<T>) {
    const list = namespaces && namespaces.length > 0 ? [...new Set(namespaces)] : [undefined];
    for (const ns of list) this.byNamespace.set(ns, new Informer<T>(options(ns)));
  }

  informers(): Informer<T>[] {
    return [...this.byNamespace.values()];
  }

  list(): T[] {
    return this.informers().flatMap((i) => i.list());
  }

  /** The object `namespace/name`, from the informer of its namespace. */
  get(key: string): T | undefined {
    const namespace = key.slice(0, key.indexOf('/'));
    return (this.byNamespace.get(namespace) ?? this.byNamespace.get(undefined))?.get(key);
  }

  /** The objects in `namespace` (none from a namespace that is not watched). */
  inNamespace(namespace: string): T[] {
    const own = this.byNamespace.get(namespace);
    if (own) return own.list();
    const all = this.byNamespace.get(undefined);
    return all ? all.list().filter((o) => o.metadata.namespace === namespace) : [];
  }
}
