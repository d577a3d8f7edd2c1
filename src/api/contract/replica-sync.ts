/**
 * When a replica counts as in sync with its primary: one definition for every decision that asks
 * (the cluster being `Active`, a roll failing over to it, a failback to ordinal 0). From `INFO
 * replication`: its link to the primary is up, no full sync is running, and it is at most
 * `SYNC_TOLERANCE_BYTES` behind the primary's offset when that is known (both offsets are read a
 * moment apart, so an exact match would flap under writes).
 */
export const SYNC_TOLERANCE_BYTES = 1024 * 1024;

export interface ReplicaLink {
  /** `master_link_status:up`. */
  linkUp: boolean;
  /** `master_sync_in_progress:1`. */
  syncing: boolean;
  /** `slave_repl_offset`. */
  offset: number;
}

export function replicaInSync(replica: ReplicaLink | undefined, primaryOffset: number | undefined): boolean {
  if (replica === undefined || !replica.linkUp || replica.syncing) return false;
  return primaryOffset === undefined || primaryOffset - replica.offset <= SYNC_TOLERANCE_BYTES;
}
