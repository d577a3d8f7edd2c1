/**
 * Deeply frozen values the renderer shares between clusters: the parts every cluster's objects
 * have alike (probes, security contexts, ports, mounts). The YAML emitter and canonicalJson keep
 * the text of a frozen object and reuse it, so these parts are built, written and hashed once per
 * run instead of once per shard. Freezing is deep, so the text can never go stale; anything that
 * tried to change a shared part would throw instead of changing every cluster's copy.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/** One frozen value per key, made on first use. */
export function frozenMemo<K, V>(make: (key: K) => V): (key: K) => V {
  const made = new Map<K, V>();
  return (key) => {
    let v = made.get(key);
    if (v === undefined) {
      v = deepFreeze(make(key));
      made.set(key, v);
    }
    return v;
  };
}
