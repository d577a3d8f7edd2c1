import {
  API_VERSION, FLAT_RENDER_CONFIG_KEYS, RENDER_CONFIG_KIND, SYSTEM_USERS_HINT, error, renderConfig, renderConfigSpec,
  type ObjectRef, type Problem, type RenderConfig,
} from '../api/index.js';
import { objectRefOf } from './parse.js';
import { issuesToProblems } from './zod-problems.js';

export const isRenderConfig = (value: unknown): boolean => {
  const v = value as { apiVersion?: unknown; kind?: unknown } | null;
  return typeof v?.apiVersion === 'string' && v.apiVersion.startsWith('valkey.gomomento.com/') && v.kind === RENDER_CONFIG_KIND;
};

const MISSING = `No render config: pass a ${RENDER_CONFIG_KIND} (apiVersion ${API_VERSION}) as the function config. It needs spec.systemUsers:\n${SYSTEM_USERS_HINT}`;

/**
 * The render config arrives as a ValkeyRenderConfig, or as a ConfigMap (kpt `configMap:`) whose
 * data uses the same field names flattened with dots, e.g. `systemUsers.replication.passwordHash`.
 */
export function parseRenderConfig(value: unknown): { config?: RenderConfig; problems: Problem[] } {
  if (value === undefined || value === null) return { problems: [error(MISSING)] };
  const ref = objectRefOf(value);
  let spec: unknown;
  if (isRenderConfig(value)) {
    const parsed = renderConfig().safeParse(value, { reportInput: true });
    if (!parsed.success) return { problems: withHint(issuesToProblems(parsed.error.issues, { object: ref }), ref) };
    return { config: parsed.data.spec, problems: [] };
  }
  if (ref.kind === 'ConfigMap' && (ref.apiVersion === 'v1' || ref.apiVersion === '')) {
    const data = ((value as { data?: unknown }).data ?? {}) as Record<string, unknown>;
    const problems: Problem[] = [];
    spec = {};
    for (const [key, v] of Object.entries(data)) {
      const path = FLAT_RENDER_CONFIG_KEYS[key as keyof typeof FLAT_RENDER_CONFIG_KEYS];
      if (!path) {
        problems.push(error(`ConfigMap ${ref.name}: data.${key}: not a render config setting; use one of ${Object.keys(FLAT_RENDER_CONFIG_KEYS).join(', ')}`, ref, `data.${key}`));
        continue;
      }
      setPath(spec as Record<string, unknown>, path, v);
    }
    const parsed = renderConfigSpec().safeParse(spec, { reportInput: true });
    if (!parsed.success) problems.push(...withHint(issuesToProblems(parsed.error.issues, { object: ref }).map((p) => flatten(p)), ref));
    return problems.length ? { problems } : { config: parsed.data, problems };
  }
  return { problems: [error(`The function config is a ${ref.kind || 'document without a kind'}; expected a ${RENDER_CONFIG_KIND} (apiVersion ${API_VERSION}) or a ConfigMap. ${MISSING}`, ref.kind ? ref : undefined)] };
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    node[part] = (node[part] as Record<string, unknown> | undefined) ?? {};
    node = node[part] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

/** In the ConfigMap form, `(object): systemUsers...` reads better as `data.systemUsers...`. */
const flatten = (p: Problem): Problem => ({ ...p, field: p.field ? `data.${p.field}` : 'data' });

function withHint(problems: Problem[], ref: ObjectRef): Problem[] {
  return problems.map((p) =>
    p.field?.includes('systemUsers') || p.message.includes('systemUsers') ? { ...p, message: `${p.message}\n${SYSTEM_USERS_HINT}`, object: p.object ?? ref } : p,
  );
}
