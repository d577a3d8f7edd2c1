import type { SlotRange } from './slots.js';

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
