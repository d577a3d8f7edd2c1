import { LABELS } from './annotations.js';

/**
 * What the renderer and the controller both rely on about a cluster's pods: the names they go by
 * and the shard and ordinal those names and labels carry. The renderer builds the objects from it;
 * the controller and the plan read pods and StatefulSets back by it, without importing the renderer.
 */

/** The one container of a shard's pods (AppArmor annotations name containers: api/kube-limits.ts). */
export const VALKEY_CONTAINER = 'valkey';

/** The headless Service that gives pods their DNS names is named after the cluster. */
export const serviceName = (cluster: string) => cluster;
/** One StatefulSet (and PodDisruptionBudget) per shard; its pods are `<shardName>-<ordinal>`. */
export const shardName = (cluster: string, shard: number) => `${cluster}-${shard}`;
/** The StatefulSet controller names each pod after its StatefulSet and ordinal. */
export const podName = (statefulSet: string, ordinal: number) => `${statefulSet}-${ordinal}`;
/** A pod's DNS name under the cluster's headless Service: what its TLS certificate must cover. */
export const podFqdn = (pod: string, cluster: string, namespace: string, clusterDomain: string) =>
  `${pod}.${serviceName(cluster)}.${namespace}.svc.${clusterDomain}`;

/** The shard label's value on StatefulSets and pods: the shard number. */
export const shardLabelValue = (shard: number): string => String(shard);

/** The shard of an object from its labels; undefined when it has none or not a shard number. */
export function shardOf(labels: Readonly<Record<string, string>> | undefined): number | undefined {
  const shard = Number(labels?.[LABELS.shard]);
  return Number.isInteger(shard) && shard >= 0 ? shard : undefined;
}

/** The ordinal at the end of a pod's name (`<statefulSet>-<ordinal>`); undefined when there is none. */
export function ordinalOf(pod: string): number | undefined {
  const m = /-(\d+)$/.exec(pod);
  return m ? Number(m[1]) : undefined;
}
