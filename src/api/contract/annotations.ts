import { GROUP } from '../group.js';

/**
 * The labels and annotations the renderer writes and the controller and the plan read back
 * (docs/controller.md, "What the renderer tells the controller"): one constant per key, never a
 * string literal spelled again elsewhere.
 */
export const LABELS = {
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  managedBy: 'app.kubernetes.io/managed-by',
  partOf: 'app.kubernetes.io/part-of',
  cluster: `${GROUP}/cluster`,
  shard: `${GROUP}/shard`,
} as const;

/** The prefix of every annotation below; reserved on podAnnotations. */
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
  /**
   * Set by a person on a ValkeyCluster to the DataLost condition's lastTransitionTime: the loss it
   * reports is acknowledged, and the condition goes False (docs/status.md).
   */
  dataLossAcknowledged: `${GROUP}/data-loss-acknowledged`,
  /** On every rendered object: `<namespace>/<name>` of the ValkeyCluster it was rendered for (how a re-render knows its own output). */
  renderedFor: `${GROUP}/rendered-for`,
  configChain: `${GROUP}/config-chain`,
  imageRef: `${GROUP}/image`,
  imageVersion: `${GROUP}/image-version`,
  shards: `${GROUP}/shards`,
  replicasPerShard: `${GROUP}/replicas-per-shard`,
  tls: `${GROUP}/tls-secret`,
} as const;

/** The StatefulSet controller's label on each pod: the controller revision the pod was created from. */
export const STATEFULSET_REVISION_LABEL = 'controller-revision-hash';
