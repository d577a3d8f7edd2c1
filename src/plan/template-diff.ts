/**
 * The paths at which two pod templates differ, e.g. `spec.containers[0].image` or
 * `metadata.annotations["valkey.gomomento.com/config-hash"]`. Bounded: a template that differs
 * everywhere is reported by its first paths, which is enough to name the causes.
 */
export function differingPaths(a: unknown, b: unknown, limit = 64): string[] {
  const out: string[] = [];
  walk(a, b, '', out, limit);
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const child = (path: string, key: string) => (SIMPLE_KEY.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`);

function walk(a: unknown, b: unknown, path: string, out: string[], limit: number): void {
  if (out.length >= limit) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) {
      out.push(path);
      return;
    }
    for (let i = 0; i < a.length; i++) walk(a[i], b[i], `${path}[${i}]`, out, limit);
    return;
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of [...keys].sort()) walk(a[key], b[key], child(path, key), out, limit);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(path);
}
