// Why issue 37 exists, on real Valkey 9.1.2 servers and kept as documentation: what Valkey itself
// does when two clusters meet, with no defence. One CLUSTER MEET of a node of another cluster (what
// an operator does when it meets a pod by a stale IP that another cluster's pod now has, or a person
// running a script) merges the two clusters within a second: every node of Y enters X's tables, the
// slots both claim are decided by config epoch, and the losing side's primaries turn into replicas of
// the winner's and drop their keys. The controller's defence (never meet a node that is not the pod,
// forget a foreign node at once) is in test/controller/foreign-node.integration.test.ts;
// docs/security.md says what each part holds.
import { Redis as Valkey } from 'iovalkey';
import { afterAll, describe, expect, it } from 'vitest';
import { isMyself } from '../../src/controller/cluster/cluster-view.js';
import { parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';
import { clusterClient } from '../support/client-workload.js';
import { waitFor } from '../support/process.js';
import { APP_USER, startSlotCluster, type SlotCluster, type SlotNode } from '../support/slot-cluster.js';

const KEYS = 2_000;
const clusters: SlotCluster[] = [];
afterAll(async () => {
  for (const c of clusters) await c.stop();
});

async function view(n: SlotNode) {
  return parseClusterNodes(await n.session.clusterNodes());
}

/** Writes KEYS keys `<prefix>:<i>` through a cluster client. */
async function writeKeys(c: SlotCluster, prefix: string): Promise<void> {
  const client = clusterClient(c.nodes[0]!.port, c.appPassword);
  try {
    for (let i = 0; i < KEYS; i += 500)
      await Promise.all(Array.from({ length: Math.min(500, KEYS - i) }, (_, j) => client.set(`${prefix}:${i + j}`, prefix)));
  } finally {
    client.disconnect();
  }
}

/** The keys of `prefix` each node of `c` holds, summed (a direct count, not through redirects). */
async function keysHeld(c: SlotCluster, prefix: string): Promise<number> {
  let total = 0;
  for (const n of c.nodes) {
    const conn = new Valkey({ host: '127.0.0.1', port: n.port, username: APP_USER, password: c.appPassword, lazyConnect: true });
    conn.on('error', () => undefined);
    try {
      await conn.connect();
      if (((await conn.call('ROLE')) as unknown[])[0] !== 'master') continue;
      let cursor = '0';
      do {
        const [next, keys] = (await conn.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000)) as [string, string[]];
        total += keys.length;
        cursor = next;
      } while (cursor !== '0');
    } finally {
      conn.disconnect();
    }
  }
  return total;
}

describe('two Valkey clusters with no defence', () => {
  it("one MEET of another cluster's node merges the two, and keys are lost", async () => {
    const x = await startSlotCluster({ nodes: 3, shards: 3, appendonly: false });
    clusters.push(x);
    const y = await startSlotCluster({ nodes: 3, shards: 3, appendonly: false });
    clusters.push(y);
    await writeKeys(x, 'x');
    await writeKeys(y, 'y');
    expect(await keysHeld(x, 'x')).toBe(KEYS);
    expect(await keysHeld(y, 'y')).toBe(KEYS);
    const xIds = new Set(x.nodes.map((n) => n.id));
    const yIds = new Set(y.nodes.map((n) => n.id));

    // Y's third node is met (as if a pod of Y got the address a dead pod of X had): X's first node
    // meets it by that address. Valkey answers OK and the two clusters' gossip joins.
    const y2 = y.nodes[2]!;
    await x.nodes[0]!.session.meet({ host: '127.0.0.1', port: y2.port, busPort: y2.busPort });
    await waitFor(
      "X's nodes list every node of Y",
      async () => {
        for (const n of x.nodes) {
          const ids = new Set((await view(n)).map((v) => v.id));
          if (![...yIds].every((id) => ids.has(id))) return false;
        }
        return true;
      },
      { timeoutMs: 20_000 },
    );
    // The slots both claimed are settled by epoch within seconds: primaries of one side lose theirs
    // to the other's (and, as rendered with cluster-allow-replica-migration no, stay empty primaries).
    const owners = async () => (await view(x.nodes[0]!)).filter((n) => n.slots.length > 0).map((n) => n.id);
    await waitFor('a primary of one cluster lost its slots to the other', async () => (await owners()).length < 6, {
      timeoutMs: 20_000,
    });
    await new Promise((r) => setTimeout(r, 2_000));
    const v = await view(x.nodes[0]!);
    const now = await owners();
    const xLeft = await keysHeld(x, 'x');
    const yLeft = await keysHeld(y, 'y');
    console.log(
      `merge with no defence: X kept ${xLeft} of ${KEYS} keys, Y kept ${yLeft} of ${KEYS}; slot owners now ${now.length} of 6 (X ${now.filter((id) => xIds.has(id)).length}, Y ${now.filter((id) => yIds.has(id)).length})`,
    );
    expect(v.filter((n) => !isMyself(n))).toHaveLength(5);
    // A whole cluster's data gone: the threat the controller and the NetworkPolicy answer.
    expect(Math.min(xLeft, yLeft)).toBeLessThan(KEYS);
  }, 120_000);
});
