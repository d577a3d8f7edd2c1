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

/**
 * Paths inside the container, shared by the ConfigMap, StatefulSet and probes. The ports and names
 * the controller relies on too are in api/contract/ (pod-identity.ts, ports.ts).
 */
export const CONF_DIR = '/etc/valkey/conf';
export const TLS_DIR = '/etc/valkey/tls';
export const DATA_DIR = '/data';
/** The uid/gid of the `valkey` user in the official images. */
export const VALKEY_UID = 999;

export const configMapName = (cluster: string) => `${cluster}-config`;

/** The container's env var holding the replication user's password (`masterauth`, and the readiness probe). */
export const REPLICATION_PASSWORD_ENV = 'VALKEY_REPLICATION_PASSWORD';
