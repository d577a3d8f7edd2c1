// The fast acceptance of our kinds and render configs (src/menu/fast-accept.ts) against zod, the
// reference: on every input it accepts, zod must accept too and give the same value (keys in the
// same order, the same prototypes, undefined and -0 told apart); on everything zod refuses it must
// hand over (return undefined), so the messages stay zod's. The inputs are valid objects using
// every field, and each of them changed at every place (other values at each boundary, a key
// removed or added, odd keys and prototypes).
import { describe, expect, it } from 'vitest';
import {
  API_VERSION,
  objectMeta,
  aclBinding,
  aclPermission,
  clientCertificates,
  keyPermission,
  placement,
  renderConfig,
  renderConfigSpec,
  valkeyCluster,
  valkeyClusterSpec,
  valkeyConfig,
  valkeyConfigSpec,
  valkeyImage,
  valkeyImageSpec,
  valkeyRole,
  valkeyRoleSpec,
  roleCategory,
  roleCommand,
} from '../../src/api/index.js';
import {
  acceptCluster,
  acceptConfig,
  acceptImage,
  acceptRenderConfig,
  acceptRenderConfigSpec,
  acceptRole,
  FAST_SHAPES,
} from '../../src/menu/fast-accept.js';
import { clusterObjects, menuObjects, renderConfig as benchRenderConfig } from '../../bench/generate.js';

const HASH = 'a153ef84fde0607be195d513251bfcf51fe53ec5cadd6323b3f350c30d7348d8';
const HASH2 = 'b'.repeat(64);

/** A value with its structure spelled out: key order, prototypes, undefined, -0 and NaN count. */
function spelled(v: unknown): unknown {
  if (v === undefined) return ['undefined'];
  if (typeof v === 'number') return Object.is(v, -0) ? ['-0'] : Number.isNaN(v) ? ['NaN'] : v;
  if (Array.isArray(v)) return ['array', v.length, ...Array.from(v, spelled)];
  if (v !== null && typeof v === 'object') {
    const proto = Object.getPrototypeOf(v) === null ? 'null' : Object.getPrototypeOf(v) === Object.prototype ? 'object' : 'other';
    return ['object', proto, ...Object.keys(v).flatMap((k) => [k, spelled((v as Record<string, unknown>)[k])])];
  }
  return v;
}

const nullProto = <T extends object>(o: T): T => Object.assign(Object.create(null), o);

const clusters = (): unknown[] => [
  ...clusterObjects(3),
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyCluster',
    metadata: {
      annotations: { 'config.kubernetes.io/index': '0', 'internal.config.kubernetes.io/path': 'a.yaml' },
      name: 'full',
      uid: 'x',
      namespace: 'team-a',
      labels: { app: 'x', '1': 'y' },
      creationTimestamp: null,
      extra: { nested: [1, 2] },
    },
    spec: {
      podAnnotations: { 'example.com/team': 'a', 'prometheus.io/scrape': 'true' },
      placement: { nodeSelector: { 'node.kubernetes.io/pool': 'cache', disk: 'ssd' }, zoneSpread: 'required', zones: ['z1'] },
      tls: {
        secretRef: 'tls-secret',
        clientCertificates: { users: ['app', 'reader'], issuerRef: { name: 'ca.issuer', kind: 'ClusterIssuer' } },
      },
      acl: [
        {
          permissions: [
            { roleRef: 'app', keys: [], channels: ['news.*', 'x'] },
            {
              roleRef: 'admin.role',
              keys: [
                { access: 'read', pattern: 'a:*' },
                { pattern: '*', access: 'write' },
              ],
            },
          ],
          passwordHashes: [HASH, HASH2],
          username: 'App.user@x:1-2',
        },
      ],
      replicasPerShard: 0,
      shards: 1,
      configRef: 'small',
    },
    status: { state: 'Active' },
  },
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyCluster',
    metadata: nullProto({ name: 'bare', namespace: 'ns' }),
    spec: nullProto({ configRef: 'c', shards: 250, replicasPerShard: 1, acl: [] }),
    status: null,
  },
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyCluster',
    metadata: { name: 'scaled', namespace: 'ns' },
    spec: { configRef: 'c', shards: 2, replicasPerShard: 1, autoscaling: { minShards: 1, maxShards: 4, scaleOut: { memoryPercent: 80 } } },
  },
];

const configs = (): unknown[] => [
  ...menuObjects(1, 3).filter((o) => (o as { kind: string }).kind === 'ValkeyConfig'),
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyConfig',
    metadata: { name: 'full', labels: { tier: 'x' }, annotations: { a: 'b' }, uid: '1' },
    spec: {
      acl: [{ username: 'monitor', passwordHashes: [HASH], permissions: [{ roleRef: 'app', keys: [{ pattern: '*', access: 'read' }] }] }],
      valkey: {
        'maxmemory-policy': 'allkeys-lru',
        save: '',
        'client-output-buffer-limit': 'normal 0 0 0 replica 256mb 64mb 60',
        notify: '"a b" \'c\'',
        tabbed: 'a\tb',
        hex: '"\\x41"',
        Hz: '10',
      },
      resources: { memory: 1073741824, cpu: '+1.5' },
      imageRef: 'valkey-9',
      baseRef: 'base.config',
    },
    status: {},
  },
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyConfig',
    metadata: nullProto({ name: 'bare' }),
    spec: nullProto({ resources: {}, valkey: nullProto({}) }),
  },
];

const images = (): unknown[] => [
  ...menuObjects(1, 1).filter((o) => (o as { kind: string }).kind === 'ValkeyImage'),
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyImage',
    metadata: { name: 'mirror', annotations: { a: 'b' } },
    spec: { version: '10.0.12', tag: 'v9.1.2_build-7', repository: 'registry.example.com:5000/team/valkey__x' },
    status: 'x',
  },
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyImage',
    metadata: nullProto({ name: 'ip' }),
    spec: nullProto({ repository: '[::1]:5000/v', tag: 'x', version: '9.0.1' }),
  },
];

const roles = (): unknown[] => [
  ...menuObjects(1, 1).filter((o) => (o as { kind: string }).kind === 'ValkeyRole'),
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyRole',
    metadata: { name: 'ops' },
    spec: {
      commands: [
        { access: 'allow', name: 'config|get' },
        { name: 'FLUSHALL', access: 'deny' },
      ],
      categories: [{ name: 'dangerous', access: 'deny' }],
    },
  },
  { apiVersion: API_VERSION, kind: 'ValkeyRole', metadata: { name: 'none' }, spec: {} },
];

const renderConfigs = (): unknown[] => [
  benchRenderConfig,
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyRenderConfig',
    metadata: { name: 'render' },
    spec: {
      systemUsers: {
        controller: { namespaces: { 'team-a': [HASH], 'team-b': [HASH, HASH2] }, secretName: 'ctl' },
        replication: { secretName: 'repl.secret', passwordHash: HASH },
      },
      networkPolicy: {
        controller: { podLabels: { 'app.kubernetes.io/name': 'ctl', tier: 'x' }, namespace: 'ops' },
        clientNamespaces: {
          matchExpressions: [
            { key: 'team', operator: 'In', values: ['a', 'b'] },
            { operator: 'Exists', key: 'example.com/clients' },
            { key: 'x', operator: 'DoesNotExist', values: [] },
          ],
          matchLabels: { 'kubernetes.io/metadata.name': 'apps' },
        },
        enabled: false,
      },
      nodeSpread: 'bestEffort',
      defaultZoneSpread: 'required',
      clusterDomain: 'corp.example',
      outputDir: 'out/valkey_1',
    },
  },
  {
    apiVersion: API_VERSION,
    kind: 'ValkeyRenderConfig',
    metadata: { name: 'render', namespace: 'x', labels: {}, annotations: {} },
    spec: {
      networkPolicy: { controller: {} },
      systemUsers: { replication: { passwordHash: HASH }, controller: { passwordHash: HASH, namespaces: {} } },
    },
  },
];

/** Values tried in every place: each side of the schemas' bounds, patterns and types. */
const PROBES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  -1,
  1,
  1.5,
  10,
  11,
  167,
  250,
  251,
  1000,
  1001,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  '',
  'x',
  'X',
  '1',
  'a b',
  'a)',
  '"q"',
  'a\u0000b',
  '-a',
  'a-',
  'a.b',
  'a_b',
  '..',
  'x/../y',
  '/abs',
  '.hidden',
  'a'.repeat(63),
  'a'.repeat(64),
  'a'.repeat(128),
  'a'.repeat(129),
  'a'.repeat(253),
  'a'.repeat(254),
  'a'.repeat(257),
  'a'.repeat(4096),
  'a'.repeat(4097),
  '"unclosed',
  "'unclosed",
  '"a"b',
  'a\tb',
  'a\nb',
  '\u001b[31m',
  '\\',
  '500m',
  '2Gi',
  '-1',
  '1e3',
  'maxmemory',
  '9lives',
  'a'.repeat(129),
  HASH,
  HASH.toUpperCase(),
  'read',
  'readwrite',
  'required',
  'bestEffort',
  'In',
  'Exists',
  'Issuer',
  'valkey.gomomento.com/x',
  'example.com/x',
  '9.0',
  '9.0.0',
  '9.0.1',
  '09.1.0',
  'v9.1.0',
  '12.34.56789012345678901234567890',
  'Valkey/valkey',
  'a'.repeat(256),
  'allow',
  'deny',
  'get|x|y',
  [],
  [''],
  ['a', 'a'],
  [HASH],
  Array(17).fill('z'),
  {},
  { x: 1 },
  { 'valkey.gomomento.com/x': 'y' },
  { 'a b': 'c' },
  { k: 'a'.repeat(64) },
  { 'controller.kubernetes.io/pod-deletion-cost': 'x' },
  Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])),
  Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])),
  Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, 'v'])),
  { '1': 'v' },
  // Keys at each side of the bounds on keys.
  ...[63, 64, 128, 129].map((n) => ({ ['a'.repeat(n)]: 'v' })),
  ...[253, 254].map((n) => ({ [`${'a'.repeat(n)}/x`]: 'v' })),
  { Maxmemory: '"x' },
];

type Path = (string | number)[];

/** Every place in `v` (objects' keys and arrays' entries), the root included. */
function places(v: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(v)) for (const [i, x] of v.entries()) out.push(...places(x, [...at, i]));
  else if (v !== null && typeof v === 'object')
    for (const k of Object.keys(v)) out.push(...places((v as Record<string, unknown>)[k], [...at, k]));
  return out;
}

/** A copy of `v` (prototypes kept) with `change` applied to the value at `path`. */
function changed(v: unknown, path: Path, change: (x: unknown) => unknown): unknown {
  if (path.length === 0) return change(v);
  const [head, ...rest] = path;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? changed(x, rest, change) : x));
  const copy = Object.create(Object.getPrototypeOf(v));
  for (const k of Object.keys(v as object))
    copy[k] = k === head ? changed((v as Record<string, unknown>)[k], rest, change) : (v as Record<string, unknown>)[k];
  return copy;
}

/** Another shape for the value at a place: a key gone, added, odd, or entries repeated. */
const RESHAPES: ((x: unknown) => unknown)[] = [
  (x) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? { ...x, extra: 'x' } : x),
  (x) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).slice(1)) : x),
  (x) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x),
  (x) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.defineProperty({ ...x }, '__proto__', { value: 1, enumerable: true })
      : x,
  (x) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.assign({ ...x }, { [Symbol('s')]: 'v' }) : x),
  (x) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.defineProperty({ ...x }, 'hidden', { value: 'v' }) : x),
  (x) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.assign(new (class Thing {})(), x) : x),
  (x) =>
    x !== null && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length > 0
      ? { ...x, [Object.keys(x)[0] as string]: undefined }
      : x,
  (x) => (Array.isArray(x) && x.length > 0 ? [...x, x[0]] : x),
  (x) => (Array.isArray(x) && x.length > 0 ? Array(65).fill(x[0]) : x),
  (x) => (Array.isArray(x) && x.length > 0 ? Array(257).fill(x[0]) : x),
  (x) => (Array.isArray(x) && x.length > 0 ? Object.assign(Array(x.length), Object.fromEntries(x.slice(1).map((e, i) => [i + 1, e]))) : x), // a hole
];

type Zod = (v: unknown) => { success: boolean; data?: unknown };

/**
 * Holds each `fast` to its `zod` on every value and every change of it, then checks that the
 * changes reached both sides: many are refused, and most that zod accepts are accepted here.
 */
function holdToZod(name: string, runs: [values: unknown[], fast: (v: unknown) => unknown, zod: Zod][]): void {
  let [inputs, zodAccepted, fastAccepted] = [0, 0, 0];
  for (const [values, fast, zod] of runs) {
    for (const value of values) {
      for (const path of places(value)) {
        for (const change of [...PROBES.map((p) => () => p), ...RESHAPES]) {
          const input = changed(value, path, change);
          const f = fast(input);
          const z = zod(input);
          inputs++;
          if (z.success) zodAccepted++;
          if (f === undefined) continue;
          fastAccepted++;
          if (!z.success) throw new Error(`accepted what zod refuses, at ${path.join('.')}: ${JSON.stringify(input)}`);
          expect(spelled(f), `at ${path.join('.')}`).toEqual(spelled(z.data));
        }
      }
    }
  }
  expect(zodAccepted).toBeLessThan(inputs / 2);
  expect(fastAccepted).toBeGreaterThan(zodAccepted * 0.8);
  console.log(`${name}: ${inputs} inputs, zod accepted ${zodAccepted}, fast ${fastAccepted}`);
}

const renderConfigSpecs = () => renderConfigs().map((r) => (r as { spec: unknown }).spec);
const renderConfigZod: Zod = (v) => {
  const z = renderConfig().safeParse(v);
  return z.success ? { success: true, data: z.data.spec } : { success: false };
};

describe('fast acceptance agrees with zod', () => {
  it('every valid example is accepted (but autoscaling, left to zod), with the value zod gives', () => {
    const examples: [unknown[], (v: unknown) => unknown, Zod][] = [
      [clusters(), acceptCluster, (v) => valkeyCluster().safeParse(v)],
      [configs(), acceptConfig, (v) => valkeyConfig().safeParse(v)],
      [images(), acceptImage, (v) => valkeyImage().safeParse(v)],
      [roles(), acceptRole, (v) => valkeyRole().safeParse(v)],
      [renderConfigs(), acceptRenderConfig, renderConfigZod],
      [renderConfigSpecs(), acceptRenderConfigSpec, (v) => renderConfigSpec().safeParse(v)],
    ];
    for (const [values, fast, zod] of examples) {
      for (const x of values) {
        const z = zod(x);
        expect(z.success).toBe(true);
        if ((x as { spec?: { autoscaling?: unknown } }).spec?.autoscaling) expect(fast(x)).toBeUndefined();
        else expect(spelled(fast(x))).toEqual(spelled(z.data));
      }
    }
  });

  it.each([
    ['clusters', clusters, acceptCluster, (v: unknown) => valkeyCluster().safeParse(v)],
    ['configs', configs, acceptConfig, (v: unknown) => valkeyConfig().safeParse(v)],
    ['images', images, acceptImage, (v: unknown) => valkeyImage().safeParse(v)],
    ['roles', roles, acceptRole, (v: unknown) => valkeyRole().safeParse(v)],
  ] as const)('%s: on every change of them, accepted only what zod accepts, and as zod gives it', (name, examples, fast, zod) => {
    holdToZod(name, [[examples(), fast, zod]]);
  });

  it('render configs: on every change of them (and of their specs), accepted only what zod accepts, and as zod gives it', () => {
    holdToZod('render configs', [
      [renderConfigs(), acceptRenderConfig, renderConfigZod],
      [renderConfigSpecs(), acceptRenderConfigSpec, (v) => renderConfigSpec().safeParse(v)],
    ]);
  });
});

describe('the fast checks read the fields the schemas have', () => {
  // A field added to a schema, or taken out, must be added to or taken out of fast-accept.ts too.
  type Schema = { _zod: { def: { shape?: Record<string, Schema>; innerType?: Schema; element?: Schema; type: string } } };
  const object = (s: unknown): Schema => {
    let at = s as Schema;
    while (!at._zod.def.shape) at = (at._zod.def.innerType ?? at._zod.def.element) as Schema;
    return at;
  };
  const keys = (s: unknown) => Object.keys(object(s)._zod.def.shape as object);
  const field = (s: unknown, name: string) => object(object(s)._zod.def.shape?.[name]);
  const spec = renderConfigSpec();
  const networkPolicy = field(spec, 'networkPolicy');
  const systemUsers = field(spec, 'systemUsers');
  it.each([
    ['cluster', valkeyCluster()],
    ['metadata', objectMeta()],
    ['clusterSpec', valkeyClusterSpec()],
    ['aclBinding', aclBinding()],
    ['aclPermission', aclPermission()],
    ['keyPermission', keyPermission()],
    ['tls', field(valkeyClusterSpec(), 'tls')],
    ['clientCertificates', clientCertificates()],
    ['issuerRef', field(clientCertificates(), 'issuerRef')],
    ['placement', placement()],
    ['config', valkeyConfig()],
    ['configSpec', valkeyConfigSpec()],
    ['resources', field(valkeyConfigSpec(), 'resources')],
    ['image', valkeyImage()],
    ['imageSpec', valkeyImageSpec()],
    ['role', valkeyRole()],
    ['roleSpec', valkeyRoleSpec()],
    ['roleCategory', roleCategory()],
    ['roleCommand', roleCommand()],
    ['renderConfig', renderConfig()],
    ['renderConfigSpec', spec],
    ['networkPolicy', networkPolicy],
    ['networkPolicyController', field(networkPolicy, 'controller')],
    ['labelSelector', field(networkPolicy, 'clientNamespaces')],
    ['labelSelectorRequirement', field(field(networkPolicy, 'clientNamespaces'), 'matchExpressions')],
    ['systemUsers', systemUsers],
    ['systemUser', field(systemUsers, 'replication')],
    ['controllerUser', field(systemUsers, 'controller')],
  ] as const)('%s', (name, schema) => {
    expect([...FAST_SHAPES[name]]).toEqual(keys(schema));
  });
});
