import {
  ANNOTATIONS,
  BUS_PORT,
  CLIENT_PORT,
  VALKEY_CONTAINER,
  podFqdn,
  shardName,
  type RenderConfig,
  type ValkeyCluster,
} from '../api/index.js';
import type { ResolvedConfig } from '../menu/resolve-menu.js';
import { CONF_DIR, DATA_DIR, REPLICATION_PASSWORD_ENV, TLS_DIR, VALKEY_UID, configMapName, type KubeObject } from './object.js';
import { shardLabels, shardSelector } from './labels.js';
import { renderPlacement } from './placement.js';
import { renderLifecycle, renderProbes } from './probes.js';
import { deepFreeze, frozenMemo } from './frozen.js';
import type { ClusterRevisions } from './revisions.js';

/** Git must never delete a data-bearing workload; the controller retires shards after draining them. */
export const PRUNE_PROTECTION = {
  'argocd.argoproj.io/sync-options': 'Prune=false',
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
} as const;

export { REPLICATION_PASSWORD_ENV };

export interface ShardInput {
  cluster: ValkeyCluster;
  config: ResolvedConfig;
  render: RenderConfig;
  shard: number;
}

export interface ShardStatefulSetInput extends ShardInput {
  revisions: ClusterRevisions;
  /** The cluster's data-loss opt-in, copied verbatim when it has one (already checked). */
  allowDataLossRoll?: string;
  /** This shard's pod template (renderShardPodTemplate of this input), when the caller made it already. */
  template?: ReturnType<typeof renderShardPodTemplate>;
}

function resources({ cpu, memory }: ResolvedConfig['resources']) {
  const r: Record<string, string | number> = {};
  if (cpu !== undefined) r.cpu = cpu;
  if (memory !== undefined) r.memory = memory;
  return Object.keys(r).length ? { requests: { ...r }, limits: { ...r } } : null;
}

// The parts of a pod template every cluster has alike, shared frozen (frozen.ts): built, written
// and hashed once per run.
const resourcesFor = frozenMemo((key: string) => resources(JSON.parse(key) as ResolvedConfig['resources']));
const resourcesOf = (config: ResolvedConfig) =>
  resourcesFor(JSON.stringify({ cpu: config.resources.cpu, memory: config.resources.memory }));
const COMMAND = deepFreeze(['valkey-server']);
const envFor = frozenMemo((replicationSecret: string) => [
  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  { name: REPLICATION_PASSWORD_ENV, valueFrom: { secretKeyRef: { name: replicationSecret, key: 'password' } } },
]);
const PORTS = deepFreeze([
  { name: 'valkey', containerPort: CLIENT_PORT, protocol: 'TCP' },
  { name: 'cluster-bus', containerPort: BUS_PORT, protocol: 'TCP' },
]);
const CONTAINER_SECURITY = deepFreeze({
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
});
const mountsFor = frozenMemo((tls: boolean) => [
  { name: 'data', mountPath: DATA_DIR },
  { name: 'config', mountPath: CONF_DIR, readOnly: true },
  { name: 'tmp', mountPath: '/tmp' },
  ...(tls ? [{ name: 'tls', mountPath: TLS_DIR, readOnly: true }] : []),
]);
const DATA_VOLUME = deepFreeze({ name: 'data', emptyDir: {} });
const TMP_VOLUME = deepFreeze({ name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } });
const POD_SECURITY = deepFreeze({
  runAsNonRoot: true,
  runAsUser: VALKEY_UID,
  runAsGroup: VALKEY_UID,
  fsGroup: VALKEY_UID,
  seccompProfile: { type: 'RuntimeDefault' },
});
const UPDATE_STRATEGY = deepFreeze({ type: 'OnDelete' });

/**
 * A shard's pod template, without the restart hash (which is a digest of it). Everything here is
 * part of a pod's revision: change a byte and the controller rolls the shard.
 */
export function renderShardPodTemplate({ cluster, config, render, shard }: ShardInput) {
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace as string;
  const tls = cluster.spec.tls?.secretRef;
  const fqdn = podFqdn('$(POD_NAME)', name, namespace, render.clusterDomain);

  const container: Record<string, unknown> = {
    name: VALKEY_CONTAINER,
    image: config.image,
    command: COMMAND,
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
    env: envFor(render.systemUsers.replication.secretName),
    ports: PORTS,
  };
  const res = resourcesOf(config);
  if (res) container.resources = res;
  Object.assign(container, renderProbes());
  container.lifecycle = renderLifecycle();
  container.securityContext = CONTAINER_SECURITY;
  container.volumeMounts = mountsFor(tls !== undefined);
  // A server that exits at start-up (a binary older than the config, an ACL file it refuses) logs
  // why and exits; the tail of its log becomes the pod's termination message, which the controller
  // reads, so the reason reaches the cluster's status.
  container.terminationMessagePolicy = 'FallbackToLogsOnError';

  const volumes: Record<string, unknown>[] = [DATA_VOLUME, { name: 'config', configMap: { name: configMapName(name) } }, TMP_VOLUME];
  if (tls) volumes.push({ name: 'tls', secret: { secretName: tls, defaultMode: 0o440 } });

  return {
    metadata: { labels: shardLabels(name, shard), annotations: { ...cluster.spec.podAnnotations } },
    spec: {
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 30,
      securityContext: POD_SECURITY,
      ...renderPlacement(name, shard, cluster.spec.placement, render.defaultZoneSpread, {
        nodeSpread: render.nodeSpread,
        replicas: cluster.spec.replicasPerShard > 0,
      }),
      containers: [container],
      volumes,
    },
  };
}

/**
 * A shard's StatefulSet. Its metadata says what the controller must know and may not guess: the
 * declared image version, the live and ACL revisions it must apply in place, and the data-loss
 * opt-in. None of that is in the pod template, so none of it restarts a pod.
 */
export function renderShardStatefulSet(input: ShardStatefulSetInput): KubeObject {
  const { cluster, config, shard, revisions, allowDataLossRoll } = input;
  const name = cluster.metadata.name;
  const tls = cluster.spec.tls?.secretRef;
  const template = input.template ?? renderShardPodTemplate(input);
  template.metadata.annotations = { [ANNOTATIONS.restartHash]: revisions.restart, ...template.metadata.annotations };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: shardName(name, shard),
      namespace: cluster.metadata.namespace as string,
      labels: shardLabels(name, shard),
      annotations: {
        ...PRUNE_PROTECTION,
        [ANNOTATIONS.configChain]: config.chain.join(','),
        [ANNOTATIONS.imageRef]: config.imageRef,
        [ANNOTATIONS.imageVersion]: config.imageVersion,
        [ANNOTATIONS.shards]: String(cluster.spec.shards),
        [ANNOTATIONS.replicasPerShard]: String(cluster.spec.replicasPerShard),
        ...(tls ? { [ANNOTATIONS.tls]: tls } : {}),
        [ANNOTATIONS.liveRevision]: revisions.live,
        [ANNOTATIONS.aclRevision]: revisions.acl,
        ...(allowDataLossRoll !== undefined ? { [ANNOTATIONS.allowDataLossRoll]: allowDataLossRoll } : {}),
      },
    },
    spec: {
      replicas: 1 + cluster.spec.replicasPerShard,
      serviceName: name,
      podManagementPolicy: 'Parallel',
      updateStrategy: UPDATE_STRATEGY,
      selector: { matchLabels: shardSelector(name, shard) },
      template,
    },
  };
}
