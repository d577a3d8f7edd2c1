// Kubernetes objects in tests: builders for inputs (plain values, exactly as they would arrive from
// YAML), and questions about objects a tool produced.
import { GROUP } from '../../src/api/group.js';

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

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export const idOf = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const isGenerated = (o: KubeObject): boolean => o.metadata?.labels?.[MANAGED_BY] === 'valkey-krm';

/** Objects generated for one cluster, by kind: what render-valkey promises per ValkeyCluster. */
export function expectedKinds(shards: number, clientCertificates = 0): Record<string, number> {
  // Two ConfigMaps: the cluster's own and its connection document (render/connection.ts); a
  // cert-manager Certificate per user of spec.tls.clientCertificates (render/client-certificate.ts).
  return {
    ConfigMap: 2,
    Service: 1,
    StatefulSet: shards,
    PodDisruptionBudget: shards,
    NetworkPolicy: 1,
    ...(clientCertificates > 0 ? { Certificate: clientCertificates } : {}),
  };
}

export function countKinds(objects: readonly KubeObject[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of objects) counts[o.kind] = (counts[o.kind] ?? 0) + 1;
  return counts;
}

export const VALKEY_KINDS = ['ValkeyImage', 'ValkeyConfig', 'ValkeyRole', 'ValkeyCluster'] as const;
export const isValkeyResource = (o: KubeObject): boolean => groupOf(o) === GROUP && (VALKEY_KINDS as readonly string[]).includes(o.kind);
export const isLocalConfig = (o: KubeObject): boolean => o.metadata?.annotations?.['config.kubernetes.io/local-config'] === 'true';
export const describeObject = (o: KubeObject): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** The API group of an object ("" for core, and for a document without an apiVersion). */
export function groupOf(o: KubeObject): string {
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  return apiVersion.includes('/') ? (apiVersion.split('/')[0] as string) : '';
}

const KPT_ANNOTATION = /^(internal\.)?config\.kubernetes\.io\//;

/** Drops the annotations kpt and kustomize strip before anything reaches a cluster. */
export function withoutKptAnnotations(o: KubeObject): KubeObject {
  const annotations = Object.fromEntries(Object.entries(o.metadata.annotations ?? {}).filter(([k]) => !KPT_ANNOTATION.test(k)));
  const metadata = { ...o.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete (metadata as { annotations?: unknown }).annotations;
  return { ...o, metadata };
}

/** A Pod per StatefulSet, made from its template, as the StatefulSet controller would make pod 0. */
export function podsFromTemplates(objects: readonly KubeObject[]): KubeObject[] {
  return objects
    .filter((o) => o.kind === 'StatefulSet')
    .map((sts) => {
      const template = (sts.spec as { template: { metadata?: KubeObject['metadata']; spec: unknown } }).template;
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { ...template.metadata, name: `${sts.metadata.name}-0`, namespace: sts.metadata.namespace as string },
        spec: template.spec,
      };
    });
}

export const namespacesOf = (objects: readonly KubeObject[]): string[] =>
  [...new Set(objects.map((o) => o.metadata.namespace).filter((n): n is string => typeof n === 'string' && n !== ''))].sort();
