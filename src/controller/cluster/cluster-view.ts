import type { SlotRange } from '../../api/contract/slots.js';

/**
 * What one node reports about the cluster, as plain data: its `CLUSTER NODES` lines and its
 * `CLUSTER INFO`. valkey/ parses the replies into these; the decisions here read them.
 */

/** One line of `CLUSTER NODES`, as this node sees that node. */
export interface ClusterNode {
  id: string;
  /** Empty when the node is `noaddr`. */
  ip: string;
  port: number;
  busPort: number;
  hostname?: string;
  flags: ReadonlySet<string>;
  /** The primary's id when this node is a replica. */
  primaryId?: string;
  configEpoch: number;
  linkState: string;
  /** Slots it serves; importing/migrating markers are left out. */
  slots: SlotRange[];
  /**
   * A slot migration in flight, as the node reports it about itself only (`[slot->-target]`,
   * `[slot-<-source]`, on the `myself` line): what a migration interrupted by a restart leaves.
   */
  migrating?: SlotMarker[];
  importing?: SlotMarker[];
}

/** One `[slot->-id]` (migrating to `nodeId`) or `[slot-<-id]` (importing from `nodeId`). */
export interface SlotMarker {
  slot: number;
  nodeId: string;
}

export const isMyself = (n: ClusterNode): boolean => n.flags.has('myself');
export const isPrimary = (n: ClusterNode): boolean => n.flags.has('master');
export const isFailed = (n: ClusterNode): boolean => n.flags.has('fail');
export const inHandshake = (n: ClusterNode): boolean => n.flags.has('handshake');

export interface ClusterInfo {
  state: string;
  slotsAssigned: number;
  knownNodes: number;
  size: number;
}
