/**
 * Reads that never reach Object.prototype. Input comes from readers and users: a key such as
 * `constructor` or `toString` must read as absent unless the input set it, and an own
 * `__proto__` key (JSON.parse and YAML readers make one) is data, never a prototype.
 */
export function own(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/** The same through a path of keys. */
export const ownPath = (value: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((v, k) => own(v, k), value);

/**
 * Where an input value has an own key `__proto__`, as dotted paths (at most `limit`). Schema
 * validation skips such keys silently (zod drops them so they cannot replace a prototype), so
 * without this check a `__proto__` annotation, label or setting would vanish without a word.
 * Walks with an explicit stack: the nesting depth is the input's, not ours to bound.
 */
export function protoKeyPaths(value: unknown, limit = 10): string[] {
  // Each entry links to its parent, and a path is spelled only when found: spelling every node's
  // path would cost the square of the nesting depth.
  interface Entry {
    v: unknown;
    key: string | number;
    parent?: Entry;
  }
  const spell = (e: Entry): string => {
    const parts: string[] = [];
    for (let at: Entry | undefined = e; at?.parent; at = at.parent)
      parts.push(typeof at.key === 'number' ? `[${at.key}]` : `${at.parent.parent ? '.' : ''}${at.key}`);
    return parts.reverse().join('');
  };
  const found: string[] = [];
  const stack: Entry[] = [{ v: value, key: '' }];
  while (stack.length > 0 && found.length < limit) {
    const entry = stack.pop() as Entry;
    const v = entry.v;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: i, parent: entry });
      continue;
    }
    if (Object.hasOwn(v, '__proto__')) {
      const here = spell(entry);
      found.push(here ? `${here}.__proto__` : '__proto__');
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      if (key !== '__proto__') stack.push({ v: (v as Record<string, unknown>)[key], key, parent: entry });
    }
  }
  return found.sort();
}
