// The per-pod Valkey metrics' figures from one INFO (replication memory clients stats keyspace),
// read from a reply of Valkey 9.1.2 (the replication section of a replica, db0 with keys), and left
// out, never 0, when a figure is missing or not a whole number.
import { describe, expect, it } from 'vitest';
import { parseNodeStats } from '../../../src/controller/valkey/node-stats.js';
import { parseReplication } from '../../../src/controller/valkey/observe-node.js';

const reply = [
  '# Clients',
  'connected_clients:7',
  'cluster_connections:6',
  'maxclients:10000',
  'blocked_clients:1',
  '# Memory',
  'used_memory:2809440',
  'used_memory_human:2.68M',
  'used_memory_peak:3145728',
  'maxmemory:104857600',
  '# Stats',
  'total_commands_processed:12345',
  'instantaneous_ops_per_sec:3',
  'expired_keys:4',
  'expired_keys_with_volatile_items_stale_perc:0.00',
  'evicted_keys:2',
  'keyspace_hits:90',
  'keyspace_misses:10',
  '# Replication',
  'role:slave',
  'master_host:10.0.0.1',
  'master_port:6379',
  'master_link_status:up',
  'master_last_io_seconds_ago:1',
  'master_sync_in_progress:0',
  'slave_repl_offset:5000',
  'master_repl_offset:5000',
  '# Keyspace',
  'db0:keys=42,expires=3,avg_ttl=1000,keys_with_volatile_items=0',
  '',
].join('\r\n');

describe('parseNodeStats', () => {
  it('reads every figure of a replica, and the replication facts are the same reply', () => {
    expect(parseNodeStats(reply)).toEqual({
      usedMemoryBytes: 2809440,
      usedMemoryPeakBytes: 3145728,
      maxmemoryBytes: 104857600,
      connectedClients: 7,
      clusterConnections: 6,
      maxclients: 10000,
      blockedClients: 1,
      commandsProcessed: 12345,
      keyspaceHits: 90,
      keyspaceMisses: 10,
      evictedKeys: 2,
      expiredKeys: 4,
      keys: 42,
      primaryLastIoSeconds: 1,
    });
    expect(parseReplication(reply)).toEqual({ role: 'replica', linkUp: true, syncing: false, offset: 5000 });
  });

  it('an empty node has 0 keys; a primary no last-io; a link down no last-io', () => {
    const primary = reply.replace('role:slave', 'role:master').replace(/db0:.*\r\n/, '');
    expect(parseNodeStats(primary)).toMatchObject({ keys: 0 });
    expect(parseNodeStats(primary).primaryLastIoSeconds).toBeUndefined();
    expect(parseNodeStats(reply.replace('master_link_status:up', 'master_link_status:down')).primaryLastIoSeconds).toBeUndefined();
  });

  it.each([
    ['missing', (t: string) => t.replace(/used_memory:.*\r\n/, '')],
    ['negative', (t: string) => t.replace('used_memory:2809440', 'used_memory:-1')],
    ['a fraction', (t: string) => t.replace('used_memory:2809440', 'used_memory:1.5')],
    ['text', (t: string) => t.replace('used_memory:2809440', 'used_memory:\x1b[31mlots')],
    ['beyond a safe integer', (t: string) => t.replace('used_memory:2809440', 'used_memory:99999999999999999999')],
  ])('a figure %s is left out', (_name, edit) => {
    const stats = parseNodeStats(edit(reply));
    expect(stats.usedMemoryBytes).toBeUndefined();
    expect(stats.maxmemoryBytes).toBe(104857600);
  });

  it('a reply without the keyspace section says nothing of keys', () => {
    expect(parseNodeStats('# Memory\r\nused_memory:1\r\n')).toEqual({ usedMemoryBytes: 1 });
  });
});
