import { parseInfo } from './info.js';

/**
 * The sections of one `INFO` the controller asks, in a pass, instead of `INFO replication` when a
 * pod's Valkey metrics are due (reconcile/valkey-samples.ts): the same round trip, a longer reply
 * (about 4 KB on 9.1.2 instead of 0.4 KB). parseReplication reads the replication section of it.
 */
export const STATS_SECTIONS = ['replication', 'memory', 'clients', 'stats', 'keyspace'] as const;

/**
 * What the per-pod Valkey metrics show of one node (runtime/valkey-metrics.ts). Every figure is a
 * number the node said; one it did not say, or said as something that is not a non-negative
 * number, is absent (no series), never 0.
 */
export interface NodeStats {
  usedMemoryBytes?: number;
  /** used_memory_peak: the most the node has allocated since it started (usage metering's Observed source). */
  usedMemoryPeakBytes?: number;
  /** 0: no limit. */
  maxmemoryBytes?: number;
  connectedClients?: number;
  /** Links of the cluster bus: Valkey counts them with connected_clients against maxclients. */
  clusterConnections?: number;
  maxclients?: number;
  blockedClients?: number;
  commandsProcessed?: number;
  keyspaceHits?: number;
  keyspaceMisses?: number;
  evictedKeys?: number;
  expiredKeys?: number;
  /** Keys of db0 (a cluster has no other database); 0 when the keyspace section lists none. */
  keys?: number;
  /** A replica's `master_last_io_seconds_ago` while its link is up. */
  primaryLastIoSeconds?: number;
}

const FIELDS = {
  usedMemoryBytes: 'used_memory',
  usedMemoryPeakBytes: 'used_memory_peak',
  maxmemoryBytes: 'maxmemory',
  connectedClients: 'connected_clients',
  clusterConnections: 'cluster_connections',
  maxclients: 'maxclients',
  blockedClients: 'blocked_clients',
  commandsProcessed: 'total_commands_processed',
  keyspaceHits: 'keyspace_hits',
  keyspaceMisses: 'keyspace_misses',
  evictedKeys: 'evicted_keys',
  expiredKeys: 'expired_keys',
} as const satisfies Partial<Record<keyof NodeStats, string>>;

/** A whole non-negative number as Valkey prints one (no sign, exponent or fraction); else undefined. */
function count(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d{1,20}$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The sections above, as one `INFO` reply, into the figures. */
export function parseNodeStats(text: string): NodeStats {
  const f = parseInfo(text);
  const stats: NodeStats = {};
  for (const [key, field] of Object.entries(FIELDS) as Array<[keyof typeof FIELDS, string]>) {
    const n = count(f.get(field));
    if (n !== undefined) stats[key] = n;
  }
  // A keyspace section without db0 is an empty node; no section at all is a reply that did not answer for it.
  if (/^# Keyspace\r?$/m.test(text)) stats.keys = count(/(?:^|,)keys=(\d+)/.exec(f.get('db0') ?? '')?.[1]) ?? 0;
  if (f.get('role') === 'slave' && f.get('master_link_status') === 'up') {
    const io = count(f.get('master_last_io_seconds_ago'));
    if (io !== undefined) stats.primaryLastIoSeconds = io;
  }
  return stats;
}
