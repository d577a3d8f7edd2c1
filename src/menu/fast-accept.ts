/**
 * The common valid Valkey objects (clusters, configs, images, roles) and ValkeyRenderConfig, accepted
 * without zod.
 *
 * zod's per-object cost was most of the input side of a render of 1,000 clusters, and building the
 * render config's schema (every run needs one) was the largest part of the KRM function's start-up
 * after Node's own; a config's schema (with the settings' admission rules) took longer still to
 * build. These functions check the same rules as the zod schemas (src/api/valkey-cluster.ts,
 * valkey-config.ts, valkey-image.ts, valkey-role.ts, acl.ts, common.ts, render-config.ts) and
 * return the very value zod returns:
 * the same keys in the same order (the schema's, then a loose object's other keys), defaults
 * filled in, leaves shared with the input as zod shares them.
 *
 * They never decide that something is wrong: on anything invalid or outside what they check (a
 * value that is undefined, a key that is not an own enumerable string, an object that is not
 * plain, `__proto__`, spec.autoscaling...) they return undefined and the caller runs zod, which
 * also writes every message. So an error reads exactly as before. test/menu/fast-accept.test.ts
 * holds them to zod on valid and invalid inputs, and pins their field lists to the schemas' shapes.
 */
import {
  API_VERSION,
  CONTROLLER_NAMESPACE_DEFAULT,
  CONTROLLER_POD_LABELS_DEFAULT,
  DNS1123_LABEL,
  DNS1123_SUBDOMAIN,
  IMAGE_REPOSITORY,
  IMAGE_TAG,
  ISSUER_KINDS,
  LABEL_VALUE_PATTERN,
  MAX_CLIENT_CERTIFICATES,
  MAX_PODS_PER_CLUSTER,
  MAX_VALKEY_SETTINGS,
  PASSWORD_HASH,
  RESOURCE_QUANTITY_PATTERN,
  ROLE_CATEGORY_NAME,
  ROLE_COMMAND_NAME,
  RENDER_CONFIG_KIND,
  RESERVED_ANNOTATION_PREFIX,
  TOKEN,
  USERNAME,
  VALKEY_KEY,
  VALKEY_VALUE,
  ZONE_SPREAD,
  isNamespaceName,
  isQualifiedName,
  meetsVersionFloor,
  parseVersion,
  podAnnotationFindings,
  type RenderConfig,
  type ValkeyCluster,
  type ValkeyConfig,
  type ValkeyImage,
  type ValkeyRole,
} from '../api/index.js';
import { valkeyArgsError } from '../api/valkey-args.js';

/** Thrown to hand the value to zod; never escapes this module. */
const NO: unique symbol = Symbol('not accepted here');
const no = (): never => {
  throw NO;
};

type Obj = Record<string, unknown>;
const LABEL_VALUE = new RegExp(LABEL_VALUE_PATTERN);

/** Own keys of each object these functions read, in the schema's order (the test pins them). */
export const FAST_SHAPES = {
  cluster: ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
  metadata: ['name', 'namespace', 'labels', 'annotations'],
  clusterSpec: ['configRef', 'shards', 'replicasPerShard', 'acl', 'tls', 'placement', 'podAnnotations', 'autoscaling'],
  aclBinding: ['username', 'passwordHashes', 'permissions'],
  aclPermission: ['roleRef', 'keys', 'channels'],
  keyPermission: ['pattern', 'access'],
  tls: ['secretRef', 'clientCertificates'],
  clientCertificates: ['issuerRef', 'users'],
  issuerRef: ['kind', 'name'],
  placement: ['zones', 'zoneSpread', 'nodeSelector'],
  config: ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
  configSpec: ['baseRef', 'imageRef', 'resources', 'valkey', 'acl'],
  resources: ['cpu', 'memory'],
  image: ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
  imageSpec: ['repository', 'tag', 'version'],
  role: ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
  roleSpec: ['categories', 'commands'],
  roleCategory: ['name', 'access'],
  roleCommand: ['name', 'access'],
  renderConfig: ['apiVersion', 'kind', 'metadata', 'spec'],
  renderConfigSpec: ['outputDir', 'clusterDomain', 'defaultZoneSpread', 'nodeSpread', 'networkPolicy', 'systemUsers'],
  networkPolicy: ['enabled', 'clientNamespaces', 'controller'],
  networkPolicyController: ['namespace', 'podLabels'],
  labelSelector: ['matchLabels', 'matchExpressions'],
  labelSelectorRequirement: ['key', 'operator', 'values'],
  systemUsers: ['replication', 'controller'],
  systemUser: ['passwordHash', 'secretName'],
  controllerUser: ['passwordHash', 'namespaces', 'secretName'],
} as const satisfies Record<string, readonly string[]>;

const KEYS: { readonly [K in keyof typeof FAST_SHAPES]: readonly string[] } = FAST_SHAPES;

/** Runs `accept`, or undefined when it hands the value to zod. */
function attempt<T>(accept: () => T): T | undefined {
  try {
    return accept();
  } catch (e) {
    if (e === NO) return undefined;
    throw e;
  }
}

/**
 * `v` as a plain object (prototype Object.prototype or null) whose own keys are all enumerable
 * strings, none `__proto__`: what a reader makes. Then zod's `key in input` and `for...in` see
 * exactly its own keys.
 */
function plain(v: unknown): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) no();
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) no();
  const keys = Object.keys(v as object);
  if (Reflect.ownKeys(v as object).length !== keys.length) no();
  return v as Obj;
}

/** A strict object's fields: no key but `allowed` and no value undefined (zod keeps such a key; left to it). */
function fields(v: unknown, allowed: readonly string[]): Obj {
  const o = plain(v);
  for (const k in o) if (!allowed.includes(k) || o[k] === undefined) no();
  return o;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : no());

/** A string of `min` to `max` characters (UTF-16 units, as zod counts) matching `pattern`. */
function text(v: unknown, min: number, max: number, pattern?: RegExp): string {
  const s = str(v);
  if (s.length < min || s.length > max || (pattern !== undefined && !pattern.test(s))) no();
  return s;
}

const oneOf = <T extends string>(v: unknown, values: readonly T[]): T => (values.includes(v as T) ? (v as T) : no());

/** A whole number from `min` to `max` (zod's number: finite; int: a safe integer). */
const whole = (v: unknown, min: number, max: number): number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max ? v : no();

/** An array of `min` to `max` entries, each accepted by `each`, as a new array. */
function list<T>(v: unknown, min: number, max: number, each: (x: unknown) => T): T[] {
  if (!Array.isArray(v) || v.length < min || v.length > max) no();
  const a = v as unknown[];
  const out: T[] = [];
  for (let i = 0; i < a.length; i++) out.push(each(a[i]));
  return out;
}

const unique = <T>(a: T[]): T[] => (new Set(a).size === a.length ? a : no());

/** A record of string keys (each passing `key`) to values accepted by `value`, as a new object in the input's key order. */
function record<T>(v: unknown, value: (x: unknown) => T, key?: (k: string) => boolean): Record<string, T> {
  const o = plain(v);
  const out: Record<string, T> = {};
  for (const k of Object.keys(o)) {
    if (k === '__proto__' || (key !== undefined && !key(k))) no();
    out[k] = value(o[k]);
  }
  return out;
}

// common.ts
const refName = (v: unknown): string => text(v, 1, 253, DNS1123_SUBDOMAIN);

/** objectMeta: a loose object, so its other keys follow the schema's, values as they are. */
function metadata(v: unknown): Obj {
  const o = plain(v);
  const out: Obj = { name: text(o.name, 1, Number.POSITIVE_INFINITY) };
  if (o.namespace !== undefined) out.namespace = str(o.namespace);
  if (o.labels !== undefined) out.labels = record(o.labels, str);
  if (o.annotations !== undefined) out.annotations = record(o.annotations, str);
  for (const k in o) {
    if (KEYS.metadata.includes(k)) {
      if (o[k] === undefined) no();
    } else if (k === '__proto__') no();
    else out[k] = o[k];
  }
  return out;
}

// acl.ts
const passwordHash = (v: unknown): string => text(v, 0, Number.POSITIVE_INFINITY, PASSWORD_HASH);
function token(v: unknown): string {
  const s = text(v, 1, 256, TOKEN);
  return s.endsWith(')') ? no() : s;
}

function keyPermission(v: unknown): Obj {
  const o = fields(v, KEYS.keyPermission);
  return { pattern: token(o.pattern), access: oneOf(o.access, ['read', 'write', 'readwrite']) };
}

function aclPermission(v: unknown): Obj {
  const o = fields(v, KEYS.aclPermission);
  const out: Obj = { roleRef: refName(o.roleRef), keys: list(o.keys, 0, 64, keyPermission) };
  if (o.channels !== undefined) out.channels = list(o.channels, 0, 64, token);
  return out;
}

function aclBinding(v: unknown): Obj {
  const o = fields(v, KEYS.aclBinding);
  return {
    username: text(o.username, 1, 128, USERNAME),
    passwordHashes: list(o.passwordHashes, 1, 16, passwordHash),
    permissions: list(o.permissions, 1, 32, aclPermission),
  };
}

// valkey-cluster.ts
const zone = (v: unknown): string => text(v, 1, 63, LABEL_VALUE);
const labelValue = (v: unknown): string => text(v, 0, 63, LABEL_VALUE);

function placement(v: unknown): Obj {
  const o = fields(v, KEYS.placement);
  const out: Obj = {};
  if (o.zones !== undefined) out.zones = unique(list(o.zones, 1, 16, zone));
  if (o.zoneSpread !== undefined) out.zoneSpread = oneOf(o.zoneSpread, ZONE_SPREAD);
  if (o.nodeSelector !== undefined) {
    const selector = record(o.nodeSelector, labelValue, isQualifiedName);
    if (Object.keys(selector).length > 32) no();
    out.nodeSelector = selector;
  }
  return out;
}

function podAnnotations(v: unknown): Record<string, string> {
  const map = record(v, str, (k) => !k.startsWith(RESERVED_ANNOTATION_PREFIX) && isQualifiedName(k));
  if (Object.keys(map).length > 64 || podAnnotationFindings(map).length > 0) no();
  return map;
}

function tls(v: unknown): Obj {
  const o = fields(v, KEYS.tls);
  const out: Obj = { secretRef: refName(o.secretRef) };
  if (o.clientCertificates !== undefined) {
    const c = fields(o.clientCertificates, KEYS.clientCertificates);
    const issuer = fields(c.issuerRef, KEYS.issuerRef);
    out.clientCertificates = {
      issuerRef: { kind: oneOf(issuer.kind, ISSUER_KINDS), name: refName(issuer.name) },
      users: unique(list(c.users, 1, MAX_CLIENT_CERTIFICATES, (u) => text(u, 1, 63, DNS1123_LABEL))),
    };
  }
  return out;
}

function clusterSpec(v: unknown): Obj {
  const o = fields(v, KEYS.clusterSpec);
  // Autoscaling (rare, and checked against shards) is left to zod.
  if (o.autoscaling !== undefined) no();
  const shards = whole(o.shards, 1, 1000);
  const replicasPerShard = whole(o.replicasPerShard, 0, 10);
  if (shards * (replicasPerShard + 1) > MAX_PODS_PER_CLUSTER) no();
  const out: Obj = { configRef: refName(o.configRef), shards, replicasPerShard };
  if (o.acl !== undefined) out.acl = list(o.acl, 0, 256, aclBinding);
  if (o.tls !== undefined) out.tls = tls(o.tls);
  if (o.placement !== undefined) out.placement = placement(o.placement);
  if (o.podAnnotations !== undefined) out.podAnnotations = podAnnotations(o.podAnnotations);
  return out;
}

/** What `valkeyCluster().safeParse(value)` gives when it succeeds; undefined: ask zod. */
export const acceptCluster = (value: unknown): ValkeyCluster | undefined =>
  attempt(() => kindObject(value, KEYS.cluster, 'ValkeyCluster', clusterSpec) as ValkeyCluster);

// valkey-config.ts
const RESOURCE_QUANTITY = new RegExp(RESOURCE_QUANTITY_PATTERN);
/** A quantity: zod's union takes the first that fits, a string of the pattern or a whole number from 0. */
const quantity = (v: unknown): string | number =>
  typeof v === 'string' ? text(v, 0, Number.POSITIVE_INFINITY, RESOURCE_QUANTITY) : whole(v, 0, Number.MAX_SAFE_INTEGER);

/** A setting's value: a string Valkey reads as written (valkeyArgsError finds nothing). */
function settingValue(v: unknown): string {
  const s = text(v, 0, 4096, VALKEY_VALUE);
  return valkeyArgsError(s) === undefined ? s : no();
}

function configSpec(v: unknown): Obj {
  const o = fields(v, KEYS.configSpec);
  const out: Obj = {};
  if (o.baseRef !== undefined) out.baseRef = refName(o.baseRef);
  if (o.imageRef !== undefined) out.imageRef = refName(o.imageRef);
  if (o.resources !== undefined) {
    const r = fields(o.resources, KEYS.resources);
    const resources: Obj = {};
    if (r.cpu !== undefined) resources.cpu = quantity(r.cpu);
    if (r.memory !== undefined) resources.memory = quantity(r.memory);
    out.resources = resources;
  }
  if (o.valkey !== undefined) {
    const settings = record(o.valkey, settingValue, (k) => k.length <= 128 && VALKEY_KEY.test(k));
    if (Object.keys(settings).length > MAX_VALKEY_SETTINGS) no();
    out.valkey = settings;
  }
  if (o.acl !== undefined) out.acl = list(o.acl, 0, 256, aclBinding);
  return out;
}

/** What `valkeyConfig().safeParse(value)` gives when it succeeds; undefined: ask zod. */
export const acceptConfig = (value: unknown): ValkeyConfig | undefined =>
  attempt(() => kindObject(value, KEYS.config, 'ValkeyConfig', configSpec) as ValkeyConfig);

/** One of our kinds: its apiVersion and kind, metadata, `spec` as `spec` accepts it, and a status as it is. */
function kindObject(value: unknown, shape: readonly string[], kind: string, spec: (v: unknown) => Obj): Obj {
  const o = fields(value, shape);
  if (o.apiVersion !== API_VERSION || o.kind !== kind) no();
  const out: Obj = { apiVersion: o.apiVersion, kind: o.kind, metadata: metadata(o.metadata), spec: spec(o.spec) };
  if (o.status !== undefined) out.status = o.status;
  return out;
}

// valkey-image.ts
function imageSpec(v: unknown): Obj {
  const o = fields(v, KEYS.imageSpec);
  const version = text(o.version, 0, 32);
  const parsed = parseVersion(version);
  if (!parsed || !meetsVersionFloor(parsed)) no();
  return { repository: text(o.repository, 1, 255, IMAGE_REPOSITORY), tag: text(o.tag, 1, 128, IMAGE_TAG), version };
}

/** What `valkeyImage().safeParse(value)` gives when it succeeds; undefined: ask zod. */
export const acceptImage = (value: unknown): ValkeyImage | undefined =>
  attempt(() => kindObject(value, KEYS.image, 'ValkeyImage', imageSpec) as ValkeyImage);

// valkey-role.ts
const roleEntry = (shape: readonly string[], name: RegExp) => (v: unknown) => {
  const o = fields(v, shape);
  return { name: text(o.name, 0, Number.POSITIVE_INFINITY, name), access: oneOf(o.access, ['allow', 'deny']) };
};
const roleCategory = roleEntry(KEYS.roleCategory, ROLE_CATEGORY_NAME);
const roleCommand = roleEntry(KEYS.roleCommand, ROLE_COMMAND_NAME);

function roleSpec(v: unknown): Obj {
  const o = fields(v, KEYS.roleSpec);
  const out: Obj = {};
  if (o.categories !== undefined) out.categories = list(o.categories, 0, 64, roleCategory);
  if (o.commands !== undefined) out.commands = list(o.commands, 0, 256, roleCommand);
  return out;
}

/** What `valkeyRole().safeParse(value)` gives when it succeeds; undefined: ask zod. */
export const acceptRole = (value: unknown): ValkeyRole | undefined =>
  attempt(() => kindObject(value, KEYS.role, 'ValkeyRole', roleSpec) as ValkeyRole);

// render-config.ts
const OUTPUT_DIR = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
const secretName = (v: unknown, fallback: string): string =>
  v === undefined ? fallback : text(v, 0, Number.POSITIVE_INFINITY, DNS1123_SUBDOMAIN);
const labelMap = (v: unknown): Record<string, string> => record(v, labelValue, isQualifiedName);

function labelSelector(v: unknown): Obj {
  const o = fields(v, KEYS.labelSelector);
  const out: Obj = {};
  if (o.matchLabels !== undefined) out.matchLabels = labelMap(o.matchLabels);
  if (o.matchExpressions !== undefined)
    out.matchExpressions = list(o.matchExpressions, 0, Number.POSITIVE_INFINITY, (e) => {
      const r = fields(e, KEYS.labelSelectorRequirement);
      if (!isQualifiedName(str(r.key))) no();
      const operator = oneOf(r.operator, ['In', 'NotIn', 'Exists', 'DoesNotExist']);
      const req: Obj = { key: r.key, operator };
      const values = r.values === undefined ? undefined : list(r.values, 0, Number.POSITIVE_INFINITY, labelValue);
      if (values !== undefined) req.values = values;
      if ((operator === 'In' || operator === 'NotIn') !== (values ?? []).length > 0) no();
      return req;
    });
  return out;
}

function networkPolicy(v: unknown): Obj {
  const o = fields(v, KEYS.networkPolicy);
  const out: Obj = { enabled: o.enabled === undefined ? true : typeof o.enabled === 'boolean' ? o.enabled : no() };
  if (o.clientNamespaces !== undefined) out.clientNamespaces = labelSelector(o.clientNamespaces);
  const c = fields(o.controller === undefined ? {} : o.controller, KEYS.networkPolicyController);
  let podLabels: Record<string, string> = { ...CONTROLLER_POD_LABELS_DEFAULT };
  if (c.podLabels !== undefined) {
    podLabels = labelMap(c.podLabels);
    if (Object.keys(podLabels).length === 0) no();
  }
  const namespace = c.namespace === undefined ? CONTROLLER_NAMESPACE_DEFAULT : str(c.namespace);
  if (!isNamespaceName(namespace)) no();
  out.controller = { namespace, podLabels };
  return out;
}

function controllerUser(v: unknown): Obj {
  const o = fields(v, KEYS.controllerUser);
  const out: Obj = {};
  if (o.passwordHash !== undefined) out.passwordHash = passwordHash(o.passwordHash);
  if (o.namespaces !== undefined) {
    const namespaces = record(o.namespaces, (hashes) => list(hashes, 1, 2, passwordHash), isNamespaceName);
    if (Object.keys(namespaces).length > 10_000) no();
    out.namespaces = namespaces;
  }
  out.secretName = secretName(o.secretName, 'valkey-controller');
  if (out.passwordHash === undefined && Object.keys(out.namespaces ?? {}).length === 0) no();
  return out;
}

function renderConfigSpec(v: unknown): RenderConfig {
  const o = fields(v, KEYS.renderConfigSpec);
  let outputDir = 'rendered';
  if (o.outputDir !== undefined) {
    outputDir = text(o.outputDir, 1, Number.POSITIVE_INFINITY, OUTPUT_DIR);
    if (outputDir.split('/').includes('..')) no();
  }
  const users = fields(o.systemUsers, KEYS.systemUsers);
  const replication = fields(users.replication, KEYS.systemUser);
  return {
    outputDir,
    clusterDomain: o.clusterDomain === undefined ? 'cluster.local' : text(o.clusterDomain, 0, Number.POSITIVE_INFINITY, DNS1123_SUBDOMAIN),
    defaultZoneSpread: o.defaultZoneSpread === undefined ? 'bestEffort' : oneOf(o.defaultZoneSpread, ZONE_SPREAD),
    nodeSpread: o.nodeSpread === undefined ? 'required' : oneOf(o.nodeSpread, ['required', 'bestEffort']),
    networkPolicy: networkPolicy(o.networkPolicy === undefined ? {} : o.networkPolicy),
    systemUsers: {
      replication: {
        passwordHash: passwordHash(replication.passwordHash),
        secretName: secretName(replication.secretName, 'valkey-replication'),
      },
      controller: controllerUser(users.controller),
    },
  } as RenderConfig;
}

/** What `renderConfigSpec().safeParse(spec)` gives when it succeeds; undefined: ask zod. */
export const acceptRenderConfigSpec = (spec: unknown): RenderConfig | undefined => attempt(() => renderConfigSpec(spec));

/** The spec of what `renderConfig().safeParse(value)` gives when it succeeds; undefined: ask zod. */
export function acceptRenderConfig(value: unknown): RenderConfig | undefined {
  return attempt(() => {
    const o = fields(value, KEYS.renderConfig);
    if (o.apiVersion !== API_VERSION || o.kind !== RENDER_CONFIG_KIND) no();
    metadata(o.metadata);
    return renderConfigSpec(o.spec);
  });
}
