// Builders for test inputs: plain values, exactly as they would arrive from YAML.
export const API = 'valkey.gomomento.com/v1alpha1';
export const REPLICATION_HASH = '36088691292de99c7169f769e89fbddb3a2d842996dd4abb709c5d45f15354fe';
export const CONTROLLER_HASH = 'fafde4c04e93d369f068120841dd320f3c05ca9150d258f31556a3116fa9d60e';
export const HASH_A = 'a153ef84fde0607be195d513251bfcf51fe53ec5cadd6323b3f350c30d7348d8';

type Spec = Record<string, unknown>;

export const image = (name: string, spec: Spec = {}) => ({
  apiVersion: API,
  kind: 'ValkeyImage',
  metadata: { name },
  spec: { repository: 'valkey/valkey', tag: '9.0.1', version: '9.0.1', ...spec },
});

export const config = (name: string, spec: Spec = {}) => ({ apiVersion: API, kind: 'ValkeyConfig', metadata: { name }, spec });

export const role = (name: string, spec: Spec = { categories: [{ name: 'read', access: 'allow' }] }) => ({
  apiVersion: API,
  kind: 'ValkeyRole',
  metadata: { name },
  spec,
});

export const cluster = (name: string, spec: Spec = {}, namespace = 'team-a') => ({
  apiVersion: API,
  kind: 'ValkeyCluster',
  metadata: { name, namespace },
  spec: { configRef: 'standard', shards: 1, replicasPerShard: 0, ...spec },
});

export const renderConfigObject = (spec: Spec = {}) => ({
  apiVersion: API,
  kind: 'ValkeyRenderConfig',
  metadata: { name: 'render', annotations: { 'config.kubernetes.io/local-config': 'true' } },
  spec: {
    systemUsers: { replication: { passwordHash: REPLICATION_HASH }, controller: { passwordHash: CONTROLLER_HASH } },
    ...spec,
  },
});

export const binding = (username: string, roleRef = 'reader', keys = [{ pattern: `${username}:*`, access: 'readwrite' }]) => ({
  username,
  passwordHashes: [HASH_A],
  permissions: [{ roleRef, keys }],
});

/** The sizing example from the platform guide, with a floor-passing image. */
export const guideMenu = () => [
  image('valkey-9-0'),
  config('standard', {
    imageRef: 'valkey-9-0',
    resources: { cpu: '1', memory: '2Gi' },
    valkey: { maxmemory: '1500mb', 'maxmemory-policy': 'allkeys-lru' },
  }),
  config('large', { baseRef: 'standard', resources: { cpu: '4', memory: '16Gi' }, valkey: { maxmemory: '12gb' } }),
];
