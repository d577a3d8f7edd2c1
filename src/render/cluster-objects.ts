import { ANNOTATIONS, type RenderConfig } from '../api/index.js';
import type { ResolvedCluster } from '../menu/resolve-menu.js';
import { renderClientCertificates } from './client-certificate.js';
import { renderConfigMap, type ConfigMapFiles } from './configmap.js';
import { renderConnectionConfigMap } from './connection.js';
import { renderNetworkPolicy } from './network-policy.js';
import type { KubeObject } from './object.js';
import { renderShardPodDisruptionBudget } from './pdb.js';
import type { ClusterRevisions } from './revisions.js';
import { renderService } from './service.js';
import { type renderShardPodTemplate, renderShardStatefulSet } from './statefulset.js';

/**
 * What a cluster's objects are made of besides the cluster, its config and the render config:
 * its files, its application users, its revisions and its data-loss opt-in. The text path
 * (cluster-text.ts) builds the objects with blanks for every value here but the probe script and
 * the opt-in, which are part of what the clusters it shares one text with have alike.
 */
export interface ObjectParts {
  /** The ConfigMap's files: valkey.conf, users.acl, probe.sh. */
  files: ConfigMapFiles;
  /** The application users: the config chain's bindings, then the cluster's own. */
  users: readonly string[];
  allowDataLossRoll?: string;
}

/**
 * A cluster's objects: the client Certificates (spec.tls.clientCertificates), ConfigMap, Service,
 * then each shard's StatefulSet, then each shard's PodDisruptionBudget, then the NetworkPolicy
 * (unless switched off), then the connection ConfigMap. Reads nothing of the cluster but its name,
 * namespace and spec (spec.acl aside: its users come in `parts`), and writes each name and each
 * value of `parts` and `revisions` only into string values, as it is: the text path
 * (cluster-text.ts) depends on both.
 */
export function buildObjects(
  cluster: ResolvedCluster['cluster'],
  config: ResolvedCluster['config'],
  render: RenderConfig,
  parts: ObjectParts,
  revisions: ClusterRevisions,
  shardZeroTemplate?: ReturnType<typeof renderShardPodTemplate>,
): KubeObject[] {
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace as string;
  const clients = cluster.spec.tls?.clientCertificates;
  // Certificates first: a sync in the order rendered asks cert-manager for them before the pods come.
  const objects: KubeObject[] = [
    ...(clients ? renderClientCertificates(name, namespace, clients) : []),
    renderConfigMap(name, namespace, parts.files),
    renderService(name, namespace),
  ];
  for (let shard = 0; shard < cluster.spec.shards; shard++) {
    objects.push(
      renderShardStatefulSet({
        cluster,
        config,
        render,
        shard,
        revisions,
        allowDataLossRoll: parts.allowDataLossRoll,
        ...(shard === 0 && shardZeroTemplate ? { template: shardZeroTemplate } : {}),
      }),
    );
  }
  for (let shard = 0; shard < cluster.spec.shards; shard++) {
    objects.push(renderShardPodDisruptionBudget(name, namespace, shard));
  }
  if (render.networkPolicy.enabled) objects.push(renderNetworkPolicy(name, namespace, render));
  objects.push(
    renderConnectionConfigMap({
      cluster: name,
      namespace,
      shards: cluster.spec.shards,
      clusterDomain: render.clusterDomain,
      ...(cluster.spec.tls ? { tlsSecret: cluster.spec.tls.secretRef } : {}),
      ...(clients ? { clientCertificateUsers: clients.users } : {}),
      users: parts.users,
    }),
  );
  return objects.map((o) => withOwner(o, `${namespace}/${name}`));
}

/**
 * Names the cluster an object was rendered for: how the next render tells its own earlier output
 * from a user's object that copied our labels (src/krm/ownership.ts).
 */
function withOwner(object: KubeObject, owner: string): KubeObject {
  // The objects are this cluster's own, made just now: their metadata gets the annotation in place
  // (a new annotations mapping, so one shared by two objects is not changed twice).
  if (Object.isFrozen(object) || Object.isFrozen(object.metadata))
    return {
      ...object,
      metadata: { ...object.metadata, annotations: { [ANNOTATIONS.renderedFor]: owner, ...object.metadata.annotations } },
    };
  object.metadata.annotations = { [ANNOTATIONS.renderedFor]: owner, ...object.metadata.annotations };
  return object;
}
