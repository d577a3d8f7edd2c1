/**
 * The names a ValkeyCluster's status and Events use: condition types, their reasons, and Event
 * reasons. People and pipelines match on them (`kubectl wait --for=condition=...`, alerts on an
 * Event reason), so they are written once, here, and every writer imports them.
 */

/** The states status writes (docs/status.md has one row for each). */
export const STATE = { creating: 'Creating', active: 'Active', updating: 'Updating', invalid: 'Invalid', failed: 'Failed' } as const;

export const CONDITION = {
  versionCheck: 'VersionCheck',
  versionMatchesImage: 'VersionMatchesImage',
  clusterFormed: 'ClusterFormed',
  ready: 'Ready',
  tlsSecretValid: 'TLSSecretValid',
  certificateExpiringSoon: 'CertificateExpiringSoon',
  rollInProgress: 'RollInProgress',
  rollHeld: 'RollHeld',
  liveConfigApplied: 'LiveConfigApplied',
  slotMigration: 'SlotMigration',
  primaryFailback: 'PrimaryFailback',
  /** A cluster being created waits for an object its pods need (a Secret, a ConfigMap): docs/status.md. */
  waiting: 'Waiting',
  /** No node or zone holds half of the slot-owning primaries or more (cluster/leader-placement.ts). */
  primariesSpread: 'PrimariesSpread',
  /** Fewer than a majority of the slot-owning primaries answer: Valkey cannot vote a failover (cluster/lost-primaries.ts). */
  majorityLost: 'MajorityLost',
  /** Pods of the cluster are on a Node Kubernetes holds lost, and wait for a person (cluster/lost-nodes.ts). */
  nodeLost: 'NodeLost',
  /** Slots were given to a node holding none of their keys: kept until acknowledged (cluster/data-loss.ts). */
  dataLost: 'DataLost',
  /** kstatus's two (cluster/conditions.ts): present only while True. */
  reconciling: 'Reconciling',
  stalled: 'Stalled',
} as const;

/** Condition reasons, by condition. */
export const REASON = {
  versionCheck: { atLeastFloor: 'AtLeastFloor', noNodeChecked: 'NoNodeChecked' },
  versionMatchesImage: {
    matches: 'Matches',
    differs: 'DeclaredVersionDiffers',
    noNodeChecked: 'NoNodeChecked',
    noDeclaredVersion: 'NoDeclaredVersion',
  },
  clusterFormed: {
    formed: 'Formed',
    forming: 'Forming',
    waitingForNodes: 'WaitingForNodes',
    formationError: 'FormationError',
    /** A node of another cluster is in the tables: it is being forgotten (docs/security.md). */
    foreignNode: 'ForeignNode',
  },
  ready: { active: 'Active' },
  rollInProgress: {
    rolling: 'Rolling',
    upToDate: 'UpToDate',
    held: 'Held',
    /** Due, but not started: another operation goes first, or another cluster holds the roll slot. */
    waiting: 'Waiting',
  },
  rollHeld: { held: 'Held', notHeld: 'NotHeld' },
  liveConfigApplied: { applied: 'Applied', applying: 'Applying' },
  slotMigration: {
    migrating: 'Migrating',
    healing: 'Healing',
    waiting: 'Waiting',
    held: 'Held',
    retiring: 'Retiring',
    balanced: 'Balanced',
  },
  primaryFailback: {
    failingBack: 'FailingBack',
    waiting: 'Waiting',
    atOrdinalZero: 'AtOrdinalZero',
    /** Some primary leads from another ordinal, chosen to keep the primaries spread over nodes and zones. */
    atChosenPods: 'AtChosenPods',
  },
  primariesSpread: { spread: 'Spread', tooFewShards: 'TooFewShards', tooFewNodes: 'TooFewNodes', tooFewZones: 'TooFewZones' },
  majorityLost: {
    /** Kubernetes holds the lost primaries' pods gone: their replicas take over without the vote. */
    takingOver: 'TakingOver',
    /** A lost primary's pod may still run (a partition, or Nodes unreadable): a person decides. */
    waitingForKubernetes: 'WaitingForKubernetes',
    majorityBack: 'MajorityBack',
  },
  nodeLost: { podsOnLostNode: 'PodsOnLostNode', noLostNode: 'NoLostNode' },
  dataLost: { slotsLost: 'SlotsLost', acknowledged: 'Acknowledged' },
  waiting: { secretMissing: 'SecretMissing', configMapMissing: 'ConfigMapMissing', nothingMissing: 'NothingMissing' },
} as const;

/** Event reasons. */
export const EVENT = {
  liveSettingApplied: 'LiveSettingApplied',
  liveSettingFailed: 'LiveSettingFailed',
  aclLoaded: 'AclLoaded',
  aclLoadFailed: 'AclLoadFailed',
  tlsReloaded: 'TlsReloaded',
  tlsReloadFailed: 'TlsReloadFailed',
  rollHeld: 'RollHeld',
  evicted: 'Evicted',
  failedOver: 'FailedOver',
  failedBack: 'FailedBack',
  /** A primary whose pod is leaving (its Node cordoned, its pod being evicted) handed its shard to an in-sync replica that stays. */
  handedOver: 'HandedOver',
  slotsHealed: 'SlotsHealed',
  slotsMoved: 'SlotsMoved',
  slotMigrationFailed: 'SlotMigrationFailed',
  slotsBalanced: 'SlotsBalanced',
  nodesForgotten: 'NodesForgotten',
  /** A node of another cluster in this cluster's tables, forgotten on every node that lists it. */
  foreignNode: 'ForeignNode',
  /** A pod with the cluster's labels that its shard StatefulSet did not make: never dialled. */
  foreignPod: 'ForeignPod',
  /** On a ValkeyImage (in namespace default): its deletion waits for the ValkeyConfigs that name it. */
  deletionHeld: 'DeletionHeld',
  shardRetired: 'ShardRetired',
  shardRetireFailed: 'ShardRetireFailed',
  /** A replica promoted without the vote (CLUSTER FAILOVER TAKEOVER): its shard's primary is gone, and so is the majority. */
  takeoverWithoutVote: 'TakeoverWithoutVote',
  /** Pods of the cluster on a Node Kubernetes holds lost; names the command that lets them be replaced. */
  nodeLost: 'NodeLost',
  /** A shard's slots given to a node holding none of their keys (Warning). */
  dataLost: 'DataLost',
  /** The autoscaler proposes one shard more or less (status.autoscaling.desiredShards); git carries it out. */
  scaleOut: 'ScaleOut',
  scaleIn: 'ScaleIn',
} as const;
