/** API group, version and the label/annotation keys shared by the function and the controller. */
export const GROUP = 'valkey.gomomento.com';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const MANAGED_BY = 'valkey-krm';

export const LABELS = {
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  managedBy: 'app.kubernetes.io/managed-by',
  partOf: 'app.kubernetes.io/part-of',
  cluster: `${GROUP}/cluster`,
  shard: `${GROUP}/shard`,
} as const;

/** Annotations the function writes and the controller reads. The prefix is reserved on podAnnotations. */
export const RESERVED_ANNOTATION_PREFIX = `${GROUP}/`;
export const ANNOTATIONS = {
  /** On every rendered object: `<namespace>/<name>` of the ValkeyCluster it was rendered for (how a re-render knows its own output). */
  renderedFor: `${GROUP}/rendered-for`,
  configHash: `${GROUP}/config-hash`,
  configChain: `${GROUP}/config-chain`,
  imageRef: `${GROUP}/image`,
  imageVersion: `${GROUP}/image-version`,
  shards: `${GROUP}/shards`,
  replicasPerShard: `${GROUP}/replicas-per-shard`,
  tls: `${GROUP}/tls-secret`,
} as const;

/** The Valkey version floor. Not configurable, on purpose. */
export const VERSION_FLOOR = '9.0.1';

/** Internal ACL users; teams cannot bind these names. */
export const SYSTEM_USERNAMES = {
  replication: 'valkey-krm-replication',
  controller: 'valkey-krm-controller',
} as const;
export const RESERVED_USERNAMES: readonly string[] = ['default', SYSTEM_USERNAMES.replication, SYSTEM_USERNAMES.controller];
