/** The shape of every object the renderer emits. Field order here is the order in the YAML. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Ports and paths shared by the ConfigMap, StatefulSet, probes and the controller. */
export const CLIENT_PORT = 6379;
export const BUS_PORT = 16379;
export const CONF_DIR = '/etc/valkey/conf';
export const TLS_DIR = '/etc/valkey/tls';
export const DATA_DIR = '/data';
/** The uid/gid of the `valkey` user in the official images. */
export const VALKEY_UID = 999;

export const configMapName = (cluster: string) => `${cluster}-config`;
export const shardName = (cluster: string, shard: number) => `${cluster}-${shard}`;
/** A pod's DNS name under the cluster's headless Service: what its TLS certificate must cover. */
export const podFqdn = (pod: string, cluster: string, namespace: string, clusterDomain: string) => `${pod}.${cluster}.${namespace}.svc.${clusterDomain}`;
