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
  clusterFormed: { formed: 'Formed', forming: 'Forming', waitingForNodes: 'WaitingForNodes', formationError: 'FormationError' },
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
  primaryFailback: { failingBack: 'FailingBack', waiting: 'Waiting', atOrdinalZero: 'AtOrdinalZero' },
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
  slotsHealed: 'SlotsHealed',
  slotsMoved: 'SlotsMoved',
  slotMigrationFailed: 'SlotMigrationFailed',
  slotsBalanced: 'SlotsBalanced',
  nodesForgotten: 'NodesForgotten',
  shardRetired: 'ShardRetired',
  shardRetireFailed: 'ShardRetireFailed',
  /** The autoscaler proposes one shard more or less (status.autoscaling.desiredShards); git carries it out. */
  scaleOut: 'ScaleOut',
  scaleIn: 'ScaleIn',
} as const;
