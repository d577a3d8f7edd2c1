import { API_VERSION, RENDER_CONFIG_KIND, SYSTEM_USERS_HINT, compareStrings, error, isNamespaceName, type Problem } from '../api/index.js';
import { own, protoKeyPaths } from '../menu/own.js';
import { objectRefOf } from '../menu/parse.js';
import { isRenderConfig, validateRenderConfig, validateRenderConfigSpec, type RenderConfigCheck } from '../menu/render-config.js';

/** kpt's `configMap:` form of the render config: the spec's field names flattened with dots. */
const FLAT_RENDER_CONFIG_KEYS = {
  outputDir: ['outputDir'],
  clusterDomain: ['clusterDomain'],
  defaultZoneSpread: ['defaultZoneSpread'],
  nodeSpread: ['nodeSpread'],
  'systemUsers.replication.passwordHash': ['systemUsers', 'replication', 'passwordHash'],
  'systemUsers.replication.secretName': ['systemUsers', 'replication', 'secretName'],
  'systemUsers.controller.passwordHash': ['systemUsers', 'controller', 'passwordHash'],
  'systemUsers.controller.secretName': ['systemUsers', 'controller', 'secretName'],
} as const;

/** `systemUsers.controller.namespaces.<namespace>`: that namespace's controller password hash(es), comma separated. */
const NAMESPACE_HASH_PREFIX = 'systemUsers.controller.namespaces.';

const MISSING = `No render config: pass a ${RENDER_CONFIG_KIND} (apiVersion ${API_VERSION}) as the function config. It needs spec.systemUsers:\n${SYSTEM_USERS_HINT}`;

/** A candidate render config found among the items, with where it came from for messages. */
export interface RenderConfigItem {
  value: unknown;
  file?: { path: string };
}

/**
 * The run's render config: the function config, else the one ValkeyRenderConfig among the items.
 * `kpt fn eval` without --fn-config sends an empty `ConfigMap function-input`: that is no config.
 */
export function chooseRenderConfig(functionConfig: unknown, items: readonly RenderConfigItem[]): RenderConfigCheck {
  let config = isEmptyConfigMap(functionConfig) ? undefined : functionConfig;
  if (config === undefined && items.length === 1) config = items[0]?.value;
  if (config === undefined && items.length > 1) {
    // Sorted: the message must read the same whatever order the items came in.
    const where = items
      .map((r) => r.file?.path ?? objectRefOf(r.value).name)
      .sort(compareStrings)
      .join(', ');
    return {
      problems: [
        error(
          `found ${items.length} ${RENDER_CONFIG_KIND} objects (${where}) and no function config to choose between them; keep one, or name one explicitly (--config FILE, or the Kptfile's configPath)`,
        ),
      ],
    };
  }
  return readFunctionConfig(config);
}

/**
 * Reads the function config: a ValkeyRenderConfig, or a ConfigMap (kpt `configMap:`) whose data
 * uses the same field names flattened with dots, e.g. `systemUsers.replication.passwordHash`.
 */
export function readFunctionConfig(value: unknown): RenderConfigCheck {
  if (value === undefined || value === null) return { problems: [error(MISSING)] };
  const protoKeys = protoKeyPaths(value);
  if (protoKeys.length > 0) {
    const ref = objectRefOf(value);
    return {
      problems: protoKeys.map((path) =>
        error(
          `The function config (${ref.kind || 'no kind'} ${ref.name}): ${path}: "__proto__" is not a valid key; remove it`,
          undefined,
          path,
        ),
      ),
    };
  }
  if (isRenderConfig(value)) return validateRenderConfig(value);
  const ref = objectRefOf(value);
  if (ref.kind === 'ConfigMap' && (ref.apiVersion === 'v1' || ref.apiVersion === '')) {
    const data = (own(value, 'data') ?? {}) as Record<string, unknown>;
    const problems: Problem[] = [];
    const spec: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(data)) {
      // An own-key lookup: `constructor` or `toString` in data is an unknown key, not Object's.
      const path = Object.hasOwn(FLAT_RENDER_CONFIG_KEYS, key)
        ? FLAT_RENDER_CONFIG_KEYS[key as keyof typeof FLAT_RENDER_CONFIG_KEYS]
        : undefined;
      const namespace = key.startsWith(NAMESPACE_HASH_PREFIX) ? key.slice(NAMESPACE_HASH_PREFIX.length) : '';
      // Only a namespace name becomes a key (never `__proto__` or `constructor`).
      if (!path && isNamespaceName(namespace)) {
        setPath(
          spec,
          ['systemUsers', 'controller', 'namespaces', namespace],
          typeof v === 'string' ? v.split(',').map((h) => h.trim()) : v,
        );
        continue;
      }
      if (!path) {
        problems.push(
          error(
            `ConfigMap ${ref.name}: data.${key}: not a render config setting; use one of ${Object.keys(FLAT_RENDER_CONFIG_KEYS).join(', ')}, ${NAMESPACE_HASH_PREFIX}<namespace>`,
            ref,
            `data.${key}`,
          ),
        );
        continue;
      }
      setPath(spec, path, v);
    }
    const checked = validateRenderConfigSpec(spec, ref, underData);
    problems.push(...checked.problems);
    return problems.length ? { problems } : checked;
  }
  return {
    problems: [
      error(
        `The function config is a ${ref.kind || 'document without a kind'}; expected a ${RENDER_CONFIG_KIND} (apiVersion ${API_VERSION}) or a ConfigMap. ${MISSING}`,
        ref.kind ? ref : undefined,
      ),
    ],
  };
}

function isEmptyConfigMap(value: unknown): boolean {
  const v = value as { apiVersion?: unknown; kind?: unknown; data?: unknown } | null;
  if (v?.kind !== 'ConfigMap' || v.apiVersion !== 'v1') return false;
  return v.data === undefined || v.data === null || (typeof v.data === 'object' && Object.keys(v.data).length === 0);
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
const underData = (p: Problem): Problem => ({ ...p, field: p.field ? `data.${p.field}` : 'data' });
