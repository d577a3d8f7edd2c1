import { visible } from '../../api/visible.js';

/**
 * Text a node said, made inert before it reaches status, Events, logs or metric labels: control
 * characters (ESC, CR, BEL, C1, bidi overrides...) as visible escapes, line breaks as `\n`, and at
 * most `max` characters, with a count of the rest. A node is any program in a pod; a terminal that
 * shows `kubectl get -o jsonpath`, `jq -r` or a log tail must never act on what it wrote.
 */
export function inert(text: string, max = 1024): string {
  const shown = visible(text).replaceAll('\n', '\\n');
  if (shown.length <= max) return shown;
  // Never cut between the halves of a surrogate pair (a lone surrogate is not UTF-8).
  const cut = /[\ud800-\udbff]/.test(shown.charAt(max - 1)) ? max - 1 : max;
  return `${shown.slice(0, cut)}… (${shown.length - cut} more characters)`;
}

/**
 * Every string in a JSON value through `visible` (line breaks kept: a status message the
 * controller writes may span lines) and bounded to `max`: the single door of status and Events.
 */
export function inertStrings<T>(value: T, max = 32_768): T {
  const walk = (given: unknown): unknown => {
    const toJSON = (given as { toJSON?: unknown } | null | undefined)?.toJSON;
    const v = typeof toJSON === 'function' ? (toJSON as () => unknown).call(given) : given;
    if (typeof v === 'string') {
      const shown = visible(v);
      return shown.length <= max ? shown : inert(v, max);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
