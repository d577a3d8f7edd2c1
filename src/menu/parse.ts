import type * as z from 'zod/mini';
import {
  API_VERSION,
  CLUSTER_NAME_MAX,
  DNS1035_LABEL,
  DNS1123_SUBDOMAIN,
  GROUP,
  compareStrings,
  error,
  isNamespaceName,
  warning,
  valkeyCluster,
  valkeyConfig,
  valkeyImage,
  valkeyRole,
  valkeySettings,
  valkeyRoleSpec,
  type ObjectRef,
  type Problem,
  type ValkeyCluster,
  type ValkeyConfig,
  type ValkeyImage,
  type ValkeyRole,
} from '../api/index.js';
import { invalidKey, type Menu, type ValkeyKind } from './menu.js';
import { own, ownPath, protoKeyPaths } from './own.js';
import { issuesToProblems } from './zod-problems.js';
import { checkValkeySettings } from './check-settings.js';
import { checkRoleNames } from './check-role.js';
import { acceptCluster, acceptConfig, acceptImage, acceptRole } from './fast-accept.js';

/** Each kind's schema, built on first use. */
const SCHEMAS: Record<ValkeyKind, () => z.ZodMiniType> = {
  ValkeyImage: valkeyImage,
  ValkeyConfig: valkeyConfig,
  ValkeyRole: valkeyRole,
  ValkeyCluster: valkeyCluster,
};

/** Each kind's fast acceptance (fast-accept.ts): zod's value, or undefined to ask zod. */
const ACCEPT: Record<ValkeyKind, (value: unknown) => unknown> = {
  ValkeyImage: acceptImage,
  ValkeyConfig: acceptConfig,
  ValkeyRole: acceptRole,
  ValkeyCluster: acceptCluster,
};

const CLUSTER_SPEC_HINT =
  'a ValkeyCluster may only set configRef, shards, replicasPerShard, acl, tls, placement and podAnnotations. ' +
  'The image, resources and Valkey settings come from the ValkeyConfig named in configRef: pick another config from the menu ' +
  '(kubectl get valkeyconfigs) or ask the platform team for one';

/** Is this object one of ours (by group), whatever its version? */
export const isValkeyObject = (apiVersion: unknown, kind: unknown): kind is ValkeyKind =>
  typeof apiVersion === 'string' && apiVersion.split('/')[0] === GROUP && typeof kind === 'string' && Object.hasOwn(SCHEMAS, kind);

export function objectRefOf(value: unknown): ObjectRef {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const ref: ObjectRef = {
    apiVersion: str(own(value, 'apiVersion')),
    kind: str(own(value, 'kind')),
    name: str(ownPath(value, 'metadata', 'name')),
  };
  const namespace = str(ownPath(value, 'metadata', 'namespace'));
  if (namespace) ref.namespace = namespace;
  return ref;
}

/**
 * Parses every Valkey object against its schema and indexes the valid ones. Invalid objects are
 * left out of the menu, so later checks do not pile follow-up errors on top of the real one.
 */
export function parseMenu(values: readonly unknown[]): { menu: Menu; problems: Problem[] } {
  const problems: Problem[] = [];
  const images = new Map<string, ValkeyImage>();
  const configs = new Map<string, ValkeyConfig>();
  const roles = new Map<string, ValkeyRole>();
  const clusters = new Map<string, ValkeyCluster>();
  const invalid = new Set<string>();

  // Positions of the valid objects under each name: a name defined twice is an error on both.
  const definitions = new Map<string, { kind: ValkeyKind; ref: ObjectRef; inputs: number[]; data: unknown }>();
  values.forEach((value, input) => {
    const ref = objectRefOf(value);
    const kind = ref.kind as ValkeyKind;
    const located = (found: Problem[]) => found.map((p) => ({ ...p, inputs: [input] }));
    if (ref.apiVersion !== API_VERSION) {
      problems.push(
        ...located([
          error(`${ref.kind} ${ref.name}: apiVersion: "${ref.apiVersion}" is not served; use ${API_VERSION}`, ref, 'apiVersion'),
        ]),
      );
      return;
    }
    const protoKeys = protoKeyPaths(value);
    if (protoKeys.length > 0) {
      for (const path of protoKeys)
        problems.push(
          ...located([
            error(`${ref.kind} ${ref.name}: ${path}: "__proto__" is not a valid key anywhere in a ${ref.kind}; remove it`, ref, path),
          ]),
        );
      if (ref.name) invalid.add(invalidKey(kind, ref.name));
      return;
    }
    // The common valid object is checked without zod (fast-accept.ts); anything else goes to zod.
    const accepted = ACCEPT[kind](value);
    const parsed = accepted ? { success: true as const, data: accepted } : SCHEMAS[kind]().safeParse(value, { reportInput: true });
    if (!parsed.success) {
      problems.push(
        ...located(
          issuesToProblems(parsed.error.issues, {
            object: ref,
            unknownFieldHints: kind === 'ValkeyCluster' ? { spec: CLUSTER_SPEC_HINT } : {},
          }),
        ),
      );
      // One pass: a schema error elsewhere does not hide what is wrong with the settings.
      if (kind === 'ValkeyConfig' && ref.name) problems.push(...located(settingsOfInvalidConfig(ref.name, value, parsed.error.issues)));
      if (kind === 'ValkeyRole' && ref.name) problems.push(...located(namesOfInvalidRole(ref.name, value, parsed.error.issues)));
      if (ref.name) invalid.add(invalidKey(kind, ref.name));
      return;
    }
    const nameProblem = checkName(kind, ref);
    if (nameProblem) {
      problems.push(...located([nameProblem]));
      if (ref.name) invalid.add(invalidKey(kind, ref.name));
      return;
    }
    if (kind !== 'ValkeyCluster' && ref.namespace) {
      problems.push(
        ...located([
          warning(`${kind} ${ref.name}: metadata.namespace is ignored: ${kind} is cluster-scoped; remove it`, ref, 'metadata.namespace'),
        ]),
      );
    }
    const key = `${kind}/${kind === 'ValkeyCluster' ? `${ref.namespace}/${ref.name}` : ref.name}`;
    const known = definitions.get(key);
    if (known) known.inputs.push(input);
    else definitions.set(key, { kind, ref, inputs: [input], data: parsed.data });
  });

  for (const { kind, ref, inputs, data } of definitions.values()) {
    const name = kind === 'ValkeyCluster' ? `${ref.namespace}/${ref.name}` : ref.name;
    if (inputs.length > 1) {
      // Keeping either copy would make the result depend on the input order: keep neither.
      problems.push({
        ...error(
          `${kind} ${name} is defined ${inputs.length} times; names must be unique, so keep one and remove or rename the others`,
          ref,
          'metadata.name',
        ),
        inputs,
      });
      invalid.add(invalidKey(kind, ref.name));
      continue;
    }
    const index = { ValkeyImage: images, ValkeyConfig: configs, ValkeyRole: roles, ValkeyCluster: clusters }[kind] as Map<string, unknown>;
    index.set(name, data);
  }

  const sortedClusters = [...clusters.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, c]) => c);
  return { menu: { images, configs, roles, clusters: sortedClusters, invalid }, problems };
}

function checkName(kind: ValkeyKind, ref: ObjectRef): Problem | undefined {
  if (kind === 'ValkeyCluster') {
    if (!ref.namespace) {
      return error(
        `ValkeyCluster ${ref.name}: metadata.namespace is required: the rendered objects, pod DNS names and TLS names depend on it. Set it in the file (or run set-namespace before this function)`,
        ref,
        'metadata.namespace',
      );
    }
    if (!isNamespaceName(ref.namespace)) {
      return error(
        `ValkeyCluster ${JSON.stringify(ref.namespace)}/${ref.name}: metadata.namespace must be a namespace name: a DNS-1123 label (lowercase letters, digits and '-', a letter or digit at each end) of at most 63 characters`,
        ref,
        'metadata.namespace',
      );
    }
    if (!DNS1035_LABEL.test(ref.name) || ref.name.length > CLUSTER_NAME_MAX) {
      return error(
        `ValkeyCluster ${ref.namespace}/${ref.name}: metadata.name must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter) of at most ${CLUSTER_NAME_MAX} characters, since it names the Service, StatefulSets and pods`,
        ref,
        'metadata.name',
      );
    }
    return undefined;
  }
  if (!DNS1123_SUBDOMAIN.test(ref.name) || ref.name.length > 253) {
    return error(
      `${kind} ${ref.name}: metadata.name must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`,
      ref,
      'metadata.name',
    );
  }
  return undefined;
}

/**
 * One field of an object's `spec` that failed its schema elsewhere, parsed alone: its value when
 * no issue touches it (nor `spec` itself) and it is well formed on its own, else undefined.
 */
function wellFormedSpecField<T>(
  value: unknown,
  issues: readonly { path: readonly PropertyKey[] }[],
  field: string,
  schema: { safeParse(v: unknown): { success: boolean; data?: T } },
): T | undefined {
  if (issues.some((i) => i.path[0] === 'spec' && (i.path.length === 1 || i.path[1] === field))) return undefined;
  const spec = (value as { spec?: unknown }).spec;
  if (!spec || typeof spec !== 'object') return undefined;
  const own = (spec as Record<string, unknown>)[field];
  if (own === undefined) return undefined;
  const r = schema.safeParse(own);
  return r.success ? r.data : undefined;
}

/**
 * The settings checks of a ValkeyConfig that failed its schema elsewhere (its resources, its
 * ACL bindings), when its `spec.valkey` is itself well formed: so one pass reports both.
 */
function settingsOfInvalidConfig(name: string, value: unknown, issues: readonly { path: readonly PropertyKey[] }[]): Problem[] {
  const valkey = wellFormedSpecField(value, issues, 'valkey', valkeySettings());
  return valkey ? checkValkeySettings({ metadata: { name }, spec: { valkey } } as ValkeyConfig) : [];
}

/**
 * The command and category checks of a ValkeyRole that failed its schema: each list that is well
 * formed on its own is checked, so a bad entry in one does not hide a misspelt name in the other.
 */
function namesOfInvalidRole(name: string, value: unknown, issues: readonly { path: readonly PropertyKey[] }[]): Problem[] {
  const categories = wellFormedSpecField(value, issues, 'categories', valkeyRoleSpec().shape.categories);
  const commands = wellFormedSpecField(value, issues, 'commands', valkeyRoleSpec().shape.commands);
  if (!categories && !commands) return [];
  return checkRoleNames({
    metadata: { name },
    spec: { ...(categories ? { categories } : {}), ...(commands ? { commands } : {}) },
  } as ValkeyRole);
}
