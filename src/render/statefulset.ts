import { ANNOTATIONS, BUS_PORT, CLIENT_PORT, podFqdn, shardName, type RenderConfig, type ValkeyCluster } from '../api/index.js';
import type { ResolvedConfig } from '../menu/resolve-menu.js';
import { CONF_DIR, DATA_DIR, TLS_DIR, VALKEY_UID, configMapName, type KubeObject } from './object.js';
import { shardLabels, shardSelector } from './labels.js';
import { renderPlacement } from './placement.js';
import { renderProbes } from './probes.js';

/** Git must never delete a data-bearing workload; the controller retires shards after draining them. */
export const PRUNE_PROTECTION = {
  'argocd.argoproj.io/sync-options': 'Prune=false',
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
} as const;

export const REPLICATION_PASSWORD_ENV = 'VALKEY_REPLICATION_PASSWORD';

export interface ShardInput {
  cluster: ValkeyCluster;
  config: ResolvedConfig;
  render: RenderConfig;
  shard: number;
  /** sha256 of valkey.conf: a settings change changes the pod template. */
  confHash: string;
}

function resources(config: ResolvedConfig) {
  const r: Record<string, string | number> = {};
  if (config.resources.cpu !== undefined) r.cpu = config.resources.cpu;
  if (config.resources.memory !== undefined) r.memory = config.resources.memory;
  return Object.keys(r).length ? { requests: { ...r }, limits: { ...r } } : undefined;
}

export function renderShardStatefulSet({ cluster, config, render, shard, confHash }: ShardInput): KubeObject {
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace as string;
  const tls = cluster.spec.tls?.secretRef;
  const fqdn = podFqdn('$(POD_NAME)', name, namespace, render.clusterDomain);

  const container: Record<string, unknown> = {
    name: 'valkey',
    image: config.image,
    command: ['valkey-server'],
    args: [
      `${CONF_DIR}/valkey.conf`,
      '--cluster-announce-ip',
      '$(POD_IP)',
      '--cluster-announce-hostname',
      fqdn,
      '--cluster-announce-human-nodename',
      '$(POD_NAME)',
      '--masterauth',
      `$(${REPLICATION_PASSWORD_ENV})`,
    ],
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: REPLICATION_PASSWORD_ENV, valueFrom: { secretKeyRef: { name: render.systemUsers.replication.secretName, key: 'password' } } },
    ],
    ports: [
      { name: 'valkey', containerPort: CLIENT_PORT, protocol: 'TCP' },
      { name: 'cluster-bus', containerPort: BUS_PORT, protocol: 'TCP' },
    ],
  };
  const res = resources(config);
  if (res) container.resources = res;
  Object.assign(container, renderProbes());
  container.securityContext = {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
  };
  container.volumeMounts = [
    { name: 'data', mountPath: DATA_DIR },
    { name: 'config', mountPath: CONF_DIR, readOnly: true },
    { name: 'tmp', mountPath: '/tmp' },
    ...(tls ? [{ name: 'tls', mountPath: TLS_DIR, readOnly: true }] : []),
  ];

  const volumes: Record<string, unknown>[] = [
    { name: 'data', emptyDir: {} },
    { name: 'config', configMap: { name: configMapName(name) } },
    { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
  ];
  if (tls) volumes.push({ name: 'tls', secret: { secretName: tls, defaultMode: 0o440 } });

  const podAnnotations = { [ANNOTATIONS.configHash]: confHash, ...cluster.spec.podAnnotations };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: shardName(name, shard),
      namespace,
      labels: shardLabels(name, shard),
      annotations: {
        ...PRUNE_PROTECTION,
        [ANNOTATIONS.configChain]: config.chain.join(','),
        [ANNOTATIONS.imageRef]: config.imageRef,
        [ANNOTATIONS.imageVersion]: config.imageVersion,
        [ANNOTATIONS.shards]: String(cluster.spec.shards),
        [ANNOTATIONS.replicasPerShard]: String(cluster.spec.replicasPerShard),
        ...(tls ? { [ANNOTATIONS.tls]: tls } : {}),
      },
    },
    spec: {
      replicas: 1 + cluster.spec.replicasPerShard,
      serviceName: name,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'OnDelete' },
      selector: { matchLabels: shardSelector(name, shard) },
      template: {
        metadata: { labels: shardLabels(name, shard), annotations: podAnnotations },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 30,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: VALKEY_UID,
            runAsGroup: VALKEY_UID,
            fsGroup: VALKEY_UID,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          ...renderPlacement(name, shard, cluster.spec.placement, render.defaultZoneSpread),
          containers: [container],
          volumes,
        },
      },
    },
  };
}
