/**
 * What the renderer and the controller both rely on about a cluster's pods: the ports they listen
 * on and the names they go by. The renderer builds the objects from it; the controller dials and
 * verifies pods by it, without importing the renderer.
 */

/** The client port (plain or TLS, whichever the cluster runs) and the cluster bus port. */
export const CLIENT_PORT = 6379;
export const BUS_PORT = 16379;

/** The headless Service that gives pods their DNS names is named after the cluster. */
export const serviceName = (cluster: string) => cluster;
/** One StatefulSet (and PodDisruptionBudget) per shard; its pods are `<shardName>-<ordinal>`. */
export const shardName = (cluster: string, shard: number) => `${cluster}-${shard}`;
/** A pod's DNS name under the cluster's headless Service: what its TLS certificate must cover. */
export const podFqdn = (pod: string, cluster: string, namespace: string, clusterDomain: string) =>
  `${pod}.${serviceName(cluster)}.${namespace}.svc.${clusterDomain}`;
