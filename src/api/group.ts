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

/**
 * Annotations the function writes and the controller reads (docs/controller.md, "What the renderer
 * tells the controller"). The prefix is reserved on podAnnotations.
 */
export const RESERVED_ANNOTATION_PREFIX = `${GROUP}/`;
export const ANNOTATIONS = {
  /**
   * On the pod template (so on every pod): a digest of everything that needs a restart, the same
   * on every shard of a cluster: the restart-only settings of valkey.conf, the forced settings, and
   * the pod template itself (image, resources, TLS, placement, podAnnotations, the rest of the
   * spec). Live settings and users.acl are not in it, so changing them restarts nothing.
   */
  restartHash: `${GROUP}/restart-hash`,
  /** On each StatefulSet: a digest of the live settings of valkey.conf and of users.acl. */
  liveRevision: `${GROUP}/live-revision`,
  /** On each StatefulSet: the revision of users.acl, also the password hash of its marker user. */
  aclRevision: `${GROUP}/acl-revision`,
  /**
   * Set by a reviewer on a ValkeyCluster, copied onto its StatefulSets: `"true"`, or the restart
   * hash of one revision, lets the controller roll a shard with no replica, losing its data.
   */
  allowDataLossRoll: `${GROUP}/allow-data-loss-roll`,
  /** On every rendered object: `<namespace>/<name>` of the ValkeyCluster it was rendered for (how a re-render knows its own output). */
  renderedFor: `${GROUP}/rendered-for`,
  configChain: `${GROUP}/config-chain`,
  imageRef: `${GROUP}/image`,
  imageVersion: `${GROUP}/image-version`,
  shards: `${GROUP}/shards`,
  replicasPerShard: `${GROUP}/replicas-per-shard`,
  tls: `${GROUP}/tls-secret`,
} as const;

/** The value of `allow-data-loss-roll` that allows every roll, whatever its revision. */
export const ALLOW_EVERY_DATA_LOSS_ROLL = 'true';

/** The Valkey version floor. Not configurable, on purpose. */
export const VERSION_FLOOR = '9.0.1';

/** Internal ACL users; teams cannot bind these names. */
export const SYSTEM_USERNAMES = {
  replication: 'valkey-krm-replication',
  controller: 'valkey-krm-controller',
} as const;
/**
 * A disabled user in every users.acl whose one password hash is the file's revision (the sha256 of
 * the rest of the file): `ACL GETUSER` on a node tells which revision it loaded.
 */
export const ACL_REVISION_USERNAME = 'valkey-krm-revision';
export const RESERVED_USERNAMES: readonly string[] = [
  'default',
  SYSTEM_USERNAMES.replication,
  SYSTEM_USERNAMES.controller,
  ACL_REVISION_USERNAME,
];
