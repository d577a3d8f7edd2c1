// Node observations the pure controller tests start from.
import type { Answered } from '../../../src/controller/cluster/observation.js';
import { parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

/** Shard 0's primary (ordinal 0), answering, owning every slot, with no replica. */
export function lonePrimary(pod = 'c-0-0'): Answered {
  return {
    pod,
    shard: 0,
    ordinal: 0,
    state: 'answered',
    view: parseClusterNodes(`${'1'.repeat(40)} 10.0.0.1:6379@16379 myself,master - 0 0 1 connected 0-16383\n`),
    replication: { role: 'primary', linkUp: false, syncing: false, offset: 10 },
  } as unknown as Answered;
}
