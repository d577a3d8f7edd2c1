// The agreement table (issue #4, item 6): resources that render-valkey's validation and the API
// server (the generated CRDs) must judge alike. Each row is YAML text, so both read the same
// bytes; JSON where the value's type must not depend on the YAML version, raw YAML where it does.
import { API, HASH_A, binding, cluster, config, image, role } from '../support/objects.js';
import type { KubeObject } from '../support/objects.js';

export const AGREEMENT_NAMESPACE = 'agreement';

export interface AgreementRow {
  name: string;
  verdict: 'reject' | 'accept';
  /** The resource under test, exactly as both kubectl and the function read it. */
  text: string;
  /** For rejections: the field both verdicts must name (a prefix of the function's field path, and in kubectl's message). */
  field?: string;
  /** What the function needs around the subject to judge it (kubectl judges the subject alone). */
  context: KubeObject[];
}

type Obj = Record<string, unknown>;

const json = (o: unknown): string => `${JSON.stringify(o, null, 2)}\n`;

/** Every subject gets a cluster that uses it, so accepted rows are also rendered and dry-run. */
const probe = (spec: Obj): KubeObject => cluster('row-probe', spec, AGREEMENT_NAMESPACE) as KubeObject;
const probeBinding = (roleRef: string) => binding('probe', roleRef, [{ pattern: 'probe:*', access: 'read' }]);
const CONTEXT = {
  ValkeyImage: [
    config('row-image-config', { imageRef: 'row-image', resources: { cpu: '1', memory: '2Gi' } }) as KubeObject,
    probe({ configRef: 'row-image-config' }),
  ],
  ValkeyConfig: [probe({ configRef: 'row-config' })],
  ValkeyRole: [probe({ acl: [probeBinding('row-role')] })],
  ValkeyCluster: [],
} as const;

const kindOf = (text: string): keyof typeof CONTEXT =>
  (/"?kind"?:\s*"?(Valkey\w+)/.exec(text)?.[1] ?? 'ValkeyCluster') as keyof typeof CONTEXT;

const reject = (name: string, subject: Obj | string, field: string): AgreementRow => {
  const text = typeof subject === 'string' ? subject : json(subject);
  return { name, verdict: 'reject', text, field, context: [...CONTEXT[kindOf(text)]] };
};
const accept = (name: string, subject: Obj | string): AgreementRow => {
  const text = typeof subject === 'string' ? subject : json(subject);
  return { name, verdict: 'accept', text, context: [...CONTEXT[kindOf(text)]] };
};

const rowImage = (spec: Obj): Obj => image('row-image', spec);
const imageWithout = (field: string): Obj => {
  const o = image('row-image') as { spec: Obj };
  delete o.spec[field];
  return o;
};
const rowConfig = (spec: Obj): Obj => config('row-config', { imageRef: 'valkey-9-0', resources: { cpu: '1', memory: '2Gi' }, ...spec });
const rowRole = (spec: Obj): Obj => role('row-role', spec);
const rowCluster = (spec: Obj, name = 'row-cluster'): Obj => cluster(name, spec, AGREEMENT_NAMESPACE);
const clusterWithout = (field: string): Obj => {
  const o = rowCluster({}) as { spec: Obj };
  delete o.spec[field];
  return o;
};
/** A spec with one acl binding for user `app` (role reader, readwrite on app:*), with `overrides` over it. */
const aclWith = (overrides: Obj): Obj => ({ acl: [{ ...binding('app'), ...overrides }] });
const keyRule = (key: Obj): Obj => aclWith(binding('app', 'reader', [{ pattern: 'app:*', access: 'readwrite', ...key }]));
const annotations = (n: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`example.com/a${i}`, `v${i}`]));

const KEY = 'spec.acl[0].permissions[0].keys[0]';
/** spec.autoscaling within 1-8 shards, out at 80% memory, with `overrides` over it. */
const autoscale = (overrides: Obj): Obj => ({ autoscaling: { minShards: 1, maxShards: 8, scaleOut: { memoryPercent: 80 }, ...overrides } });

export const ROWS: readonly AgreementRow[] = [
  // ValkeyImage: the version rule of the ValkeyImage reference, and the required fields.
  ...['9.0.0', '9.0', '9.0.1-rc1', 'v9.0.1', '09.0.1', '8.1.4', '9.0.01', ' 9.0.1'].map((v) =>
    reject(`ValkeyImage version "${v}"`, rowImage({ version: v }), 'spec.version'),
  ),
  reject(
    'ValkeyImage version as a YAML number (9.1)',
    `apiVersion: ${API}\nkind: ValkeyImage\nmetadata:\n  name: row-image\nspec:\n  repository: valkey/valkey\n  tag: "9.1"\n  version: 9.1\n`,
    'spec.version',
  ),
  reject('ValkeyImage without repository', imageWithout('repository'), 'spec.repository'),
  reject('ValkeyImage without tag', imageWithout('tag'), 'spec.tag'),
  reject('ValkeyImage without version', imageWithout('version'), 'spec.version'),
  reject('ValkeyImage with an empty repository', rowImage({ repository: '' }), 'spec.repository'),
  reject('ValkeyImage without spec', { apiVersion: API, kind: 'ValkeyImage', metadata: { name: 'row-image' } }, 'spec'),
  reject('ValkeyImage with an unknown spec field', rowImage({ digest: 'sha256:0123' }), 'spec.digest'),
  reject('ValkeyImage with an invalid name', { ...rowImage({}), metadata: { name: 'Valkey_9' } }, 'metadata.name'),
  ...['9.0.1', '9.0.10', '9.1.0', '10.0.0'].map((v) => accept(`ValkeyImage version "${v}"`, rowImage({ version: v }))),

  // ValkeyConfig
  reject('ValkeyConfig with an unknown spec field (image)', rowConfig({ image: 'valkey/valkey:9.0.1' }), 'spec.image'),
  reject('ValkeyConfig imageRef that is no object name', rowConfig({ imageRef: 'Valkey_9' }), 'spec.imageRef'),
  reject('ValkeyConfig cpu "lots"', rowConfig({ resources: { cpu: 'lots' } }), 'spec.resources.cpu'),
  reject('ValkeyConfig cpu "-1"', rowConfig({ resources: { cpu: '-1', memory: '2Gi' } }), 'spec.resources.cpu'),
  reject('ValkeyConfig memory -1', rowConfig({ resources: { cpu: '1', memory: -1 } }), 'spec.resources.memory'),
  reject('ValkeyConfig cpu 0.5 (a number)', rowConfig({ resources: { cpu: 0.5, memory: '2Gi' } }), 'spec.resources.cpu'),
  reject('ValkeyConfig setting value as a number', rowConfig({ valkey: { maxmemory: 5 } }), 'spec.valkey'),
  reject(
    'ValkeyConfig setting value yes, unquoted (a boolean to kubectl)',
    `apiVersion: ${API}\nkind: ValkeyConfig\nmetadata:\n  name: row-config\nspec:\n  imageRef: valkey-9-0\n  valkey:\n    appendonly: yes\n`,
    'spec.valkey',
  ),
  reject('ValkeyConfig setting value with a line break', rowConfig({ valkey: { maxmemory: '1gb\nrequirepass x' } }), 'spec.valkey'),
  reject('ValkeyConfig setting name with a space', rowConfig({ valkey: { 'max memory': '1gb' } }), 'spec.valkey'),
  reject(
    'ValkeyConfig acl password hash in upper case',
    rowConfig(aclWith({ passwordHashes: [HASH_A.toUpperCase()] })),
    'spec.acl[0].passwordHashes[0]',
  ),
  reject('ValkeyConfig acl password hash too short', rowConfig(aclWith({ passwordHashes: ['abc123'] })), 'spec.acl[0].passwordHashes[0]'),
  reject('ValkeyConfig acl without password hashes', rowConfig(aclWith({ passwordHashes: [] })), 'spec.acl[0].passwordHashes'),
  reject('ValkeyConfig acl key access admin', rowConfig(keyRule({ access: 'admin' })), `${KEY}.access`),
  reject('ValkeyConfig acl key pattern with a space', rowConfig(keyRule({ pattern: 'app: *' })), `${KEY}.pattern`),
  reject('ValkeyConfig acl key pattern with a vertical tab', rowConfig(keyRule({ pattern: 'app:\u000b*' })), `${KEY}.pattern`),
  reject(
    'ValkeyConfig acl key pattern with a quote (Valkey would parse it away)',
    rowConfig(keyRule({ pattern: "it's:*" })),
    `${KEY}.pattern`,
  ),
  // Valkey 9.1.2 crashes loading a selector with a NUL in it (test/valkey/acl-bytes.integration.test.ts).
  reject('ValkeyConfig acl key pattern with a NUL', rowConfig(keyRule({ pattern: 'app:\u0000*' })), `${KEY}.pattern`),
  reject('ValkeyConfig acl key pattern with an ESC', rowConfig(keyRule({ pattern: 'app:\u001b[2J*' })), `${KEY}.pattern`),
  reject('ValkeyConfig acl key pattern with a DEL', rowConfig(keyRule({ pattern: 'app:\u007f*' })), `${KEY}.pattern`),
  reject('ValkeyConfig acl key pattern with a C1 control', rowConfig(keyRule({ pattern: 'app:\u009b*' })), `${KEY}.pattern`),
  reject(
    'ValkeyConfig acl channel pattern with a NUL',
    rowConfig(aclWith({ permissions: [{ roleRef: 'reader', keys: [], channels: ['ch\u0000'] }] })),
    'spec.acl[0].permissions[0].channels[0]',
  ),
  reject(
    'ValkeyCluster acl key pattern with a NUL',
    rowCluster(aclWith({ permissions: [{ roleRef: 'reader', keys: [{ pattern: 'k\u0000', access: 'read' }] }] })),
    `${KEY}.pattern`,
  ),
  reject('ValkeyConfig setting value with a NUL', rowConfig({ valkey: { maxmemory: '1gb\u0000' } }), 'spec.valkey'),
  reject('ValkeyConfig setting value with an ESC', rowConfig({ valkey: { 'tcp-backlog': '\u001b]0;x\u0007511' } }), 'spec.valkey'),
  accept('ValkeyConfig setting value with a tab between arguments', rowConfig({ valkey: { save: '3600\t1' } })),
  // Settings that decide who can connect or how: errors in the function and at admission, any spelling.
  reject('ValkeyConfig setting requirepass', rowConfig({ valkey: { requirepass: 's3cret' } }), 'spec.valkey'),
  reject('ValkeyConfig setting MasterAuth (an alias, mixed case)', rowConfig({ valkey: { MasterAuth: 's3cret' } }), 'spec.valkey'),
  reject('ValkeyConfig setting tls-port', rowConfig({ valkey: { 'tls-port': '6380' } }), 'spec.valkey'),
  reject('ValkeyConfig setting rename-command', rowConfig({ valkey: { 'rename-command': 'CONFIG ""' } }), 'spec.valkey'),
  reject('ValkeyConfig setting include', rowConfig({ valkey: { include: '/etc/other.conf' } }), 'spec.valkey'),
  accept('ValkeyConfig setting tcp-keepalive (not a security setting)', rowConfig({ valkey: { 'tcp-keepalive': '60' } })),
  // Bool and enum values, from the same tables (a key in another case is the function's alone).
  reject('ValkeyConfig setting appendfsync: evrysec', rowConfig({ valkey: { appendfsync: 'evrysec' } }), 'spec.valkey'),
  accept('ValkeyConfig setting appendfsync: EverySec (values are case-insensitive)', rowConfig({ valkey: { appendfsync: 'EverySec' } })),
  reject('ValkeyConfig setting slave-read-only (an alias): maybe', rowConfig({ valkey: { 'slave-read-only': 'maybe' } }), 'spec.valkey'),
  reject(
    'ValkeyConfig setting activedefrag: true (a bool takes yes or no)',
    rowConfig({ valkey: { activedefrag: 'true' } }),
    'spec.valkey',
  ),
  accept(
    'ValkeyConfig setting shutdown-on-sigint: "nosave now" (several values)',
    rowConfig({ valkey: { 'shutdown-on-sigint': 'nosave now' } }),
  ),
  reject(
    'ValkeyConfig setting shutdown-on-sigint: "nosave later"',
    rowConfig({ valkey: { 'shutdown-on-sigint': 'nosave later' } }),
    'spec.valkey',
  ),
  reject('ValkeyConfig acl username with a space', rowConfig(aclWith({ username: 'my app' })), 'spec.acl[0].username'),
  reject('ValkeyConfig acl binding with an unknown field', rowConfig(aclWith({ password: 'hunter2' })), 'spec.acl[0].password'),
  accept('ValkeyConfig with cpu "500m" and memory in bytes', rowConfig({ resources: { cpu: '500m', memory: 2147483648 } })),
  accept(
    'ValkeyConfig with settings and an acl',
    rowConfig({ valkey: { 'maxmemory-policy': 'allkeys-lru', appendonly: 'yes' }, ...aclWith({}) }),
  ),
  accept('ValkeyConfig acl key pattern with a non-breaking space', rowConfig(keyRule({ pattern: 'app:\u00a0*' }))),
  accept('ValkeyConfig acl key pattern in Unicode', rowConfig(keyRule({ pattern: 'ключ:*' }))),

  // ValkeyRole
  reject('ValkeyRole category access maybe', rowRole({ categories: [{ name: 'read', access: 'maybe' }] }), 'spec.categories[0].access'),
  reject('ValkeyRole command access maybe', rowRole({ commands: [{ name: 'get', access: 'maybe' }] }), 'spec.commands[0].access'),
  reject('ValkeyRole category written with @', rowRole({ categories: [{ name: '@read', access: 'allow' }] }), 'spec.categories[0].name'),
  reject('ValkeyRole command with a space', rowRole({ commands: [{ name: 'get key', access: 'allow' }] }), 'spec.commands[0].name'),
  reject('ValkeyRole with an unknown spec field', rowRole({ users: ['app'] }), 'spec.users'),
  accept(
    'ValkeyRole with categories and subcommands',
    rowRole({
      categories: [{ name: 'read', access: 'allow' }],
      commands: [
        { name: 'config|get', access: 'allow' },
        { name: 'keys', access: 'deny' },
      ],
    }),
  ),

  // ValkeyCluster: what product teams write.
  reject('ValkeyCluster without configRef', clusterWithout('configRef'), 'spec.configRef'),
  reject('ValkeyCluster without shards', clusterWithout('shards'), 'spec.shards'),
  reject('ValkeyCluster without replicasPerShard', clusterWithout('replicasPerShard'), 'spec.replicasPerShard'),
  reject('ValkeyCluster shards 0', rowCluster({ shards: 0 }), 'spec.shards'),
  reject('ValkeyCluster shards 1001', rowCluster({ shards: 1001 }), 'spec.shards'),
  reject('ValkeyCluster shards "3" (a string)', rowCluster({ shards: '3' }), 'spec.shards'),
  reject('ValkeyCluster shards 1.5', rowCluster({ shards: 1.5 }), 'spec.shards'),
  reject('ValkeyCluster replicasPerShard -1', rowCluster({ replicasPerShard: -1 }), 'spec.replicasPerShard'),
  reject('ValkeyCluster replicasPerShard 11', rowCluster({ replicasPerShard: 11 }), 'spec.replicasPerShard'),
  // At most 500 pods per cluster (the controller's memory per pass; contributing/benchmarks.md).
  reject('ValkeyCluster 251 shards x 2 pods (502 pods)', rowCluster({ shards: 251, replicasPerShard: 1 }), 'spec.shards'),
  reject('ValkeyCluster 46 shards x 11 pods (506 pods)', rowCluster({ shards: 46, replicasPerShard: 10 }), 'spec.shards'),
  // (500 pods exactly is accepted by both: test/apiserver/crds.test.ts, without rendering 250 StatefulSets here.)
  reject('ValkeyCluster configRef that is no object name', rowCluster({ configRef: 'Standard' }), 'spec.configRef'),
  reject('ValkeyCluster zoneSpread sometimes', rowCluster({ placement: { zoneSpread: 'sometimes' } }), 'spec.placement.zoneSpread'),
  reject('ValkeyCluster empty zones list', rowCluster({ placement: { zones: [] } }), 'spec.placement.zones'),
  reject('ValkeyCluster zone listed twice', rowCluster({ placement: { zones: ['eu-west-1a', 'eu-west-1a'] } }), 'spec.placement.zones'),
  reject('ValkeyCluster zone that is no label value', rowCluster({ placement: { zones: ['eu west 1a'] } }), 'spec.placement.zones[0]'),
  reject(
    'ValkeyCluster nodeSelector key that is no label key',
    rowCluster({ placement: { nodeSelector: { 'node pool': 'caches' } } }),
    'spec.placement.nodeSelector',
  ),
  reject(
    'ValkeyCluster nodeSelector value that is no label value',
    rowCluster({ placement: { nodeSelector: { pool: 'fast caches' } } }),
    'spec.placement.nodeSelector',
  ),
  reject('ValkeyCluster unknown placement field', rowCluster({ placement: { affinity: {} } }), 'spec.placement.affinity'),
  reject(
    'ValkeyCluster reserved podAnnotation',
    rowCluster({ podAnnotations: { 'valkey.gomomento.com/config-hash': 'x' } }),
    'spec.podAnnotations',
  ),
  reject(
    'ValkeyCluster podAnnotation key that is no annotation key',
    rowCluster({ podAnnotations: { 'scrape me': 'true' } }),
    'spec.podAnnotations',
  ),
  reject('ValkeyCluster 65 podAnnotations', rowCluster({ podAnnotations: annotations(65) }), 'spec.podAnnotations'),
  reject(
    'ValkeyCluster podAnnotation value as a YAML number',
    `apiVersion: ${API}\nkind: ValkeyCluster\nmetadata:\n  name: row-cluster\n  namespace: ${AGREEMENT_NAMESPACE}\nspec:\n  configRef: standard\n  shards: 1\n  replicasPerShard: 0\n  podAnnotations:\n    prometheus.io/port: 9121\n`,
    'spec.podAnnotations',
  ),
  reject('ValkeyCluster with an image (unknown spec field)', rowCluster({ image: 'valkey/valkey:9.0.1' }), 'spec.image'),
  reject('ValkeyCluster with resources (unknown spec field)', rowCluster({ resources: { cpu: '8' } }), 'spec.resources'),
  reject('ValkeyCluster with Valkey settings (unknown spec field)', rowCluster({ valkey: { maxmemory: '1gb' } }), 'spec.valkey'),
  reject('ValkeyCluster tls without secretRef', rowCluster({ tls: {} }), 'spec.tls.secretRef'),
  reject(
    'ValkeyCluster acl password hash malformed',
    rowCluster(aclWith({ passwordHashes: ['not-a-hash'] })),
    'spec.acl[0].passwordHashes[0]',
  ),
  reject('ValkeyCluster acl key access admin', rowCluster(keyRule({ access: 'admin' })), `${KEY}.access`),
  reject('ValkeyCluster name of 41 characters', rowCluster({}, `c${'a'.repeat(40)}`), 'metadata.name'),
  reject('ValkeyCluster name starting with a digit', rowCluster({}, '1cache'), 'metadata.name'),
  reject('ValkeyCluster name with a dot', rowCluster({}, 'sessions.eu'), 'metadata.name'),
  // spec.autoscaling (issue 26): ranges, min <= shards <= max, scale-in below scale-out.
  reject('ValkeyCluster shards below autoscaling.minShards', rowCluster({ shards: 2, ...autoscale({ minShards: 3 }) }), 'spec.shards'),
  reject('ValkeyCluster shards above autoscaling.maxShards', rowCluster({ shards: 9, ...autoscale({}) }), 'spec.shards'),
  reject(
    'ValkeyCluster autoscaling minShards above maxShards',
    rowCluster({ shards: 3, ...autoscale({ minShards: 3, maxShards: 2 }) }),
    'spec.autoscaling.maxShards',
  ),
  reject(
    'ValkeyCluster autoscaling without maxShards',
    rowCluster({ shards: 3, autoscaling: { minShards: 1, scaleOut: { memoryPercent: 80 } } }),
    'spec.autoscaling.maxShards',
  ),
  reject(
    'ValkeyCluster autoscaling without scaleOut',
    rowCluster({ shards: 3, autoscaling: { minShards: 1, maxShards: 8 } }),
    'spec.autoscaling.scaleOut',
  ),
  reject(
    'ValkeyCluster autoscaling scaleOut with no threshold',
    rowCluster({ shards: 3, ...autoscale({ scaleOut: {} }) }),
    'spec.autoscaling.scaleOut',
  ),
  reject(
    'ValkeyCluster autoscaling memoryPercent 101',
    rowCluster({ shards: 3, ...autoscale({ scaleOut: { memoryPercent: 101 } }) }),
    'spec.autoscaling.scaleOut.memoryPercent',
  ),
  reject(
    'ValkeyCluster autoscaling cpuPercent 0',
    rowCluster({ shards: 3, ...autoscale({ scaleOut: { cpuPercent: 0 } }) }),
    'spec.autoscaling.scaleOut.cpuPercent',
  ),
  reject(
    'ValkeyCluster autoscaling bandwidthMbps 2.5',
    rowCluster({ shards: 3, ...autoscale({ scaleOut: { bandwidthMbps: 2.5 } }) }),
    'spec.autoscaling.scaleOut.bandwidthMbps',
  ),
  reject(
    'ValkeyCluster autoscaling scaleInWindowSeconds 10',
    rowCluster({ shards: 3, ...autoscale({ scaleInWindowSeconds: 10 }) }),
    'spec.autoscaling.scaleInWindowSeconds',
  ),
  reject(
    'ValkeyCluster autoscaling scaleInCooldownSeconds -1',
    rowCluster({ shards: 3, ...autoscale({ scaleInCooldownSeconds: -1 }) }),
    'spec.autoscaling.scaleInCooldownSeconds',
  ),
  reject(
    'ValkeyCluster autoscaling scale-in memoryPercent at its scale-out twin',
    rowCluster({ shards: 3, ...autoscale({ scaleIn: { memoryPercent: 80 } }) }),
    'spec.autoscaling.scaleIn.memoryPercent',
  ),
  reject(
    'ValkeyCluster autoscaling unknown field',
    rowCluster({ shards: 3, ...autoscale({ targetShards: 4 }) }),
    'spec.autoscaling.targetShards',
  ),
  accept('ValkeyCluster autoscaling at minShards', rowCluster({ shards: 3, ...autoscale({ minShards: 3 }) })),
  accept('ValkeyCluster autoscaling at maxShards', rowCluster({ shards: 8, ...autoscale({}) })),
  accept(
    'ValkeyCluster autoscaling with every field',
    rowCluster({
      shards: 4,
      ...autoscale({
        scaleOut: { memoryPercent: 80, cpuPercent: 70, bandwidthMbps: 800 },
        scaleIn: { memoryPercent: 40, cpuPercent: 30, bandwidthMbps: 200 },
        scaleInWindowSeconds: 300,
        scaleOutCooldownSeconds: 180,
        scaleInCooldownSeconds: 900,
      }),
    }),
  ),
  accept('ValkeyCluster, the minimum', rowCluster({})),
  accept('ValkeyCluster name of 40 characters', rowCluster({}, `c${'a'.repeat(39)}`)),
  accept('ValkeyCluster with 64 podAnnotations', rowCluster({ podAnnotations: annotations(64) })),
  accept(
    'ValkeyCluster with every field',
    rowCluster({
      shards: 3,
      replicasPerShard: 2,
      ...aclWith({}),
      tls: { secretRef: 'row-cluster-tls' },
      placement: {
        zones: ['eu-west-1a', 'eu-west-1b'],
        zoneSpread: 'required',
        nodeSelector: { 'node-pool': 'caches', 'kubernetes.io/os': 'linux' },
      },
      podAnnotations: { 'prometheus.io/scrape': 'true', 'example.com/team': 'payments', 'sidecar.istio.io/inject': 'false' },
    }),
  ),
];
