import { parseInfo } from './info.js';

/**
 * What a shrink check needs from one node's `INFO memory`, in bytes. Valkey compares `maxmemory`
 * with `used_memory` less `mem_not_counted_for_evict`, and `used_memory` is the dataset plus an
 * overhead: a fixed part (`used_memory_startup`, the replication backlog, client and cluster-link
 * buffers, the AOF buffer, script caches) and the keys' own index (the main and expires tables,
 * some 50 bytes a key), which `used_memory_dataset` leaves out. Keys that move take their dataset
 * and their index with them; the fixed part stays. With small values the index is a third of what
 * the keys take, so counting the dataset alone would let a shrink start that runs out of memory.
 */
export interface NodeMemory {
  /** What `maxmemory` is compared with on this node now: `used_memory - mem_not_counted_for_evict`. */
  usedBytes: number;
  /** What this node's keys would take on another node: the dataset plus their index. */
  keyBytes: number;
  /** `maxmemory`; 0 means unbounded. */
  maxmemoryBytes: number;
}

/** Overhead that stays with the node when its keys move (the rest of `used_memory_overhead` is the keys' index). */
const FIXED_OVERHEAD = [
  'used_memory_startup',
  'mem_replication_backlog',
  'mem_clients_slaves',
  'mem_clients_normal',
  'mem_cluster_links',
  'mem_aof_buffer',
  'used_memory_scripts',
] as const;

/** `INFO memory` into the figures above; undefined when a figure it needs is missing or not a number. */
export function parseMemoryInfo(text: string): NodeMemory | undefined {
  const fields = parseInfo(text);
  const bytes = (name: string): number | undefined => {
    const raw = fields.get(name);
    const n = raw === undefined || raw === '' ? Number.NaN : Number(raw);
    return Number.isFinite(n) && n >= 0 ? n : undefined;
  };
  const used = bytes('used_memory');
  const dataset = bytes('used_memory_dataset');
  const overhead = bytes('used_memory_overhead');
  const maxmemory = bytes('maxmemory');
  if (used === undefined || dataset === undefined || overhead === undefined || maxmemory === undefined) return undefined;
  // A field an older or newer server lacks counts as 0 here, which counts more as the keys' index: the safe side.
  const fixed = FIXED_OVERHEAD.reduce((n, name) => n + (bytes(name) ?? 0), 0);
  return {
    usedBytes: Math.max(0, used - (bytes('mem_not_counted_for_evict') ?? 0)),
    keyBytes: dataset + Math.max(0, overhead - fixed),
    maxmemoryBytes: maxmemory,
  };
}
