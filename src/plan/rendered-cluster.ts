import { ANNOTATIONS, shardOf } from '../api/index.js';
import { configuredPodMemory, type ConfiguredPodMemory, type MeteredSet } from '../api/metering-memory.js';
import type { ClusterProvenance } from '../menu/provenance.js';
import type { KubeObject } from '../render/object.js';
import { settingsOf, usersOf, type AclUser } from './rendered-files.js';

export interface RenderedShard {
  index: number;
  statefulSet: string;
  /** Pods: one primary (ordinal 0) and its replicas. */
  pods: number;
  template: Record<string, unknown>;
}

/** One cluster's render, read back into the facts the plan compares. */
export interface RenderedCluster {
  namespace: string;
  name: string;
  settings: Map<string, string>;
  users: Map<string, AclUser>;
  shards: RenderedShard[];
  replicasPerShard: number;
  chain: string[];
  imageRef: string;
  imageVersion: string;
  image: string;
  tlsSecret: string | undefined;
  /** The pods' restart hash: what a roll moves them to. */
  restartHash: string | undefined;
  /** The reviewer's opt-in to roll zero-replica shards: "true" or one restart hash. */
  dataLossOptIn: string | undefined;
  /** Every object as rendered, to notice a change no rule below names (compared as JSON values). */
  objects: readonly KubeObject[];
  /** Who set each value, from chain resolution. */
  provenance: ClusterProvenance;
  /** spec.autoscaling's range: the controller proposes counts within it, git's count applies. */
  autoscaling: { minShards: number; maxShards: number } | undefined;
  /** The render's shape warnings for this cluster (src/render/shape-checks.ts): work it may refuse. */
  shapeWarnings: readonly string[];
  /** What the controller will meter (api/metering-memory.ts): pods summed over the StatefulSets, and the configured memory of one. */
  metering: { pods: number; configured: ConfiguredPodMemory | undefined };
}

interface StatefulSetLike {
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: {
    replicas: number;
    template: {
      metadata?: { annotations?: Record<string, string> };
      spec: { containers: { image: string; resources?: { requests?: { memory?: string }; limits?: { memory?: string } } }[] };
    } & Record<string, unknown>;
  };
}

export function readRenderedCluster(
  namespace: string,
  name: string,
  objects: readonly KubeObject[],
  provenance: ClusterProvenance,
  autoscaling?: { minShards: number; maxShards: number },
  shapeWarnings: readonly string[] = [],
): RenderedCluster {
  let conf = '';
  let acl = '';
  const shards: RenderedShard[] = [];
  let annotations: Record<string, string> = {};
  let templateAnnotations: Record<string, string> = {};
  let image = '';
  const metered: MeteredSet[] = [];
  for (const object of objects) {
    // The cluster's own ConfigMap, not its connection document (render/connection.ts).
    if (object.kind === 'ConfigMap' && (object.data as Record<string, string> | undefined)?.['valkey.conf'] !== undefined) {
      const data = (object.data ?? {}) as Record<string, string>;
      conf = data['valkey.conf'] ?? '';
      acl = data['users.acl'] ?? '';
    } else if (object.kind === 'StatefulSet') {
      const sts = object as unknown as StatefulSetLike;
      const index = shardOf(sts.metadata.labels) ?? shards.length;
      if (shards.length === 0) {
        annotations = sts.metadata.annotations ?? {};
        templateAnnotations = sts.spec.template.metadata?.annotations ?? {};
        image = sts.spec.template.spec.containers[0]?.image ?? '';
      }
      const r = sts.spec.template.spec.containers[0]?.resources;
      metered.push({ name: sts.metadata.name, memory: r?.requests?.memory ?? r?.limits?.memory });
      shards.push({
        index,
        statefulSet: sts.metadata.name,
        pods: sts.spec.replicas,
        template: sts.spec.template,
      });
    }
  }
  shards.sort((a, b) => a.index - b.index);
  return {
    namespace,
    name,
    settings: settingsOf(conf),
    users: usersOf(acl),
    shards,
    replicasPerShard: Math.max(0, (shards[0]?.pods ?? 1) - 1),
    chain: (annotations[ANNOTATIONS.configChain] ?? '').split(',').filter(Boolean),
    imageRef: annotations[ANNOTATIONS.imageRef] ?? '',
    imageVersion: annotations[ANNOTATIONS.imageVersion] ?? '',
    image,
    tlsSecret: annotations[ANNOTATIONS.tls],
    restartHash: templateAnnotations[ANNOTATIONS.restartHash],
    dataLossOptIn: annotations[ANNOTATIONS.allowDataLossRoll],
    objects,
    provenance,
    autoscaling,
    shapeWarnings,
    metering: { pods: shards.reduce((n, s) => n + s.pods, 0), configured: configuredPodMemory(metered, conf) },
  };
}
