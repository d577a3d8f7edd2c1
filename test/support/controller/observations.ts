// Node observations the pure controller tests start from.
import type { Answered, NodeObservation, PodPlace, Replication } from '../../../src/controller/cluster/observation.js';
import { parseClusterInfo, parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

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

/**
 * The shard × ordinal fixtures the pure controller tests share: pod c-<s>-<o> at 10.0.<s>.<o>,
 * node id n<s><o> padded to 40 characters, ordinal 0 leading shard s with THREE_SHARD_SLOTS[s].
 */
export const THREE_SHARD_SLOTS = ['0-5460', '5461-10922', '10923-16383'] as const;
export const fixtureNodeId = (s: number, o: number): string => `n${s}${o}`.padEnd(40, '0');
export const fixtureIp = (s: number, o: number): string => `10.0.${s}.${o}`;

/** One answering Valkey 9.1.2 pod: where it is, its CLUSTER NODES text, cluster_state and replication. */
export function answeredPod(
  place: PodPlace & { ip: string },
  o: { nodes: string; clusterState?: 'ok' | 'fail'; replication: Replication },
): NodeObservation {
  return {
    ...place,
    state: 'answered',
    identity: { kind: 'valkey', version: '9.1.2' },
    version: '9.1.2',
    endpoint: { host: place.ip, port: 6379, busPort: 16379 },
    view: parseClusterNodes(o.nodes),
    info: parseClusterInfo(`cluster_state:${o.clusterState ?? 'ok'}\r\ncluster_slots_assigned:16384\r\n`),
    replication: o.replication,
  };
}

/**
 * CLUSTER NODES of three shards of two pods as pod `me` sees it: ordinal 0 of each shard leads it.
 * `flag` adds a flag to a node's line (`fail?`, `fail`) and `link` sets its link state (connected).
 */
export function threeByTwoNodes(
  me: readonly [number, number],
  o: { flag?: (s: number, o: number) => string | undefined; link?: (s: number, o: number) => 'connected' | 'disconnected' } = {},
): string {
  const lines: string[] = [];
  for (let s = 0; s < 3; s++)
    for (let r = 0; r < 2; r++) {
      const flags = [me[0] === s && me[1] === r ? 'myself' : '', r === 0 ? 'master' : 'slave', o.flag?.(s, r) ?? '']
        .filter(Boolean)
        .join(',');
      const primary = r === 0 ? '-' : fixtureNodeId(s, 0);
      const slots = r === 0 ? THREE_SHARD_SLOTS[s] : '';
      lines.push(
        `${fixtureNodeId(s, r)} ${fixtureIp(s, r)}:6379@16379 ${flags} ${primary} 0 0 1 ${o.link?.(s, r) ?? 'connected'} ${slots}`.trim(),
      );
    }
  return lines.join('\n');
}

/**
 * Three shards of two pods, every pod answering with cluster_state ok and every replica linked and
 * in sync (offset 100); `linkDown` takes the replicas' links down, `unreachable` names a pod that
 * does not answer.
 */
export function threeByTwo(o: { linkDown?: boolean; unreachable?: string } = {}): NodeObservation[] {
  const out: NodeObservation[] = [];
  for (let s = 0; s < 3; s++)
    for (let r = 0; r < 2; r++) {
      const place = { pod: `c-${s}-${r}`, shard: s, ordinal: r, ip: fixtureIp(s, r) };
      if (place.pod === o.unreachable) {
        out.push({ ...place, state: 'unreachable', error: 'no connection within 3000 ms' });
        continue;
      }
      out.push(
        answeredPod(place, {
          nodes: threeByTwoNodes([s, r]),
          replication:
            r === 0
              ? { role: 'primary', linkUp: true, syncing: false, offset: 100 }
              : { role: 'replica', linkUp: o.linkDown !== true, syncing: false, offset: 100 },
        }),
      );
    }
  return out;
}
