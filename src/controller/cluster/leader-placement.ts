/**
 * Which pod leads each shard, chosen by where the pods run, so that losing one node or one zone
 * leaves a majority of the slot-owning primaries to vote a failover.
 *
 * Valkey promotes a dead primary's replica only once a majority of the slot-owning primaries
 * (more than half of them) agree the primary failed. With S shards, losing a node that holds k
 * primaries leaves S - k voters, a majority only if k < S / 2. So the guarantee is: every node,
 * and every zone, holds fewer than half of the primaries (at most ceil(S/2) - 1). One shard, or two,
 * can never have it: losing either primary of two leaves one of two, not a majority. The failed
 * primaries' replicas are then promoted by the controller instead (lost-primaries.ts), when
 * Kubernetes knows the pods are gone.
 *
 * Pure: candidates in, one pod per shard out, with the verdict. It is a min-cost flow (shards →
 * their pods → nodes → zones, each node and zone with a capacity), so it finds a layout whenever one
 * exists. Among the layouts that hold the guarantee it prefers the lowest ordinals (replicas down
 * removes the highest ordinals, so a primary at ordinal 0 is never removed), then the primaries
 * where they are (a move is a failover); a layout that exists only as one node's candidates leaves
 * each shard at ordinal 0, as before. When no layout holds it, the tightest one that exists is taken
 * and the verdict says why; with one or two shards, where none can, nothing is moved for it.
 */

/** A pod that may lead its shard: the primary, or a replica that follows it. */
export interface LeaderCandidate {
  pod: string;
  shard: number;
  ordinal: number;
  /** The Node the pod runs on. */
  node: string;
  /** The Node's topology.kubernetes.io/zone; absent: the node counts as a zone of its own. */
  zone?: string;
  /** It leads its shard now. */
  primary: boolean;
}

export type SpreadVerdict =
  | { holds: true; message: string }
  | {
      holds: false;
      /** TooFewShards: one or two shards; TooFewNodes: a node holds half or more; TooFewZones: a zone does. */
      reason: 'TooFewShards' | 'TooFewNodes' | 'TooFewZones';
      message: string;
    };

export interface LeaderPlan {
  /** Each shard's chosen pod (shards with a candidate only). */
  leaders: ReadonlyMap<number, string>;
  verdict: SpreadVerdict;
}

const zoneOf = (c: Pick<LeaderCandidate, 'node' | 'zone'>): string => c.zone ?? `node ${c.node}`;

interface Edge {
  to: number;
  cap: number;
  cost: number;
  rev: number;
}

/** Min-cost max-flow by successive shortest paths (Bellman-Ford: residual costs go negative). Small graphs. */
class Flow {
  readonly edges: Edge[][] = [];
  vertex(): number {
    this.edges.push([]);
    return this.edges.length - 1;
  }
  edge(from: number, to: number, cap: number, cost: number): Edge {
    const a: Edge = { to, cap, cost, rev: (this.edges[to] as Edge[]).length };
    const b: Edge = { to: from, cap: 0, cost: -cost, rev: (this.edges[from] as Edge[]).length };
    (this.edges[from] as Edge[]).push(a);
    (this.edges[to] as Edge[]).push(b);
    return a;
  }
  run(source: number, sink: number): number {
    let flow = 0;
    for (;;) {
      const n = this.edges.length;
      const dist = new Array<number>(n).fill(Infinity);
      const via = new Array<[number, number] | undefined>(n).fill(undefined);
      dist[source] = 0;
      // SPFA: Bellman-Ford driven by a queue of the vertices whose distance just dropped.
      const queue = [source];
      const queued = new Array<boolean>(n).fill(false);
      queued[source] = true;
      while (queue.length) {
        const u = queue.shift() as number;
        queued[u] = false;
        const du = dist[u] as number;
        (this.edges[u] as Edge[]).forEach((e, i) => {
          if (e.cap > 0 && du + e.cost < (dist[e.to] as number)) {
            dist[e.to] = du + e.cost;
            via[e.to] = [u, i];
            if (!queued[e.to]) {
              queued[e.to] = true;
              queue.push(e.to);
            }
          }
        });
      }
      if (dist[sink] === Infinity) return flow;
      for (let v = sink; v !== source; ) {
        const [u, i] = via[v] as [number, number];
        const e = (this.edges[u] as Edge[])[i] as Edge;
        e.cap -= 1;
        ((this.edges[v] as Edge[])[e.rev] as Edge).cap += 1;
        v = u;
      }
      flow += 1;
    }
  }
}

/** The cheapest choice with at most `nodeCap` primaries per node and `zoneCap` per zone, or undefined. */
function assign(shards: readonly number[], byShard: ReadonlyMap<number, LeaderCandidate[]>, nodeCap: number, zoneCap: number) {
  const f = new Flow();
  const source = f.vertex();
  const sink = f.vertex();
  const nodeV = new Map<string, number>();
  const zoneV = new Map<string, number>();
  const big = shards.length + 1;
  const picks: { c: LeaderCandidate; e: Edge }[] = [];
  for (const s of shards) {
    const sv = f.vertex();
    f.edge(source, sv, 1, 0);
    for (const c of byShard.get(s) ?? []) {
      let nv = nodeV.get(c.node);
      if (nv === undefined) {
        nv = f.vertex();
        nodeV.set(c.node, nv);
        let zv = zoneV.get(zoneOf(c));
        if (zv === undefined) {
          zv = f.vertex();
          zoneV.set(zoneOf(c), zv);
          f.edge(zv, sink, zoneCap, 0);
        }
        f.edge(nv, zv, nodeCap, 0);
      }
      picks.push({ c, e: f.edge(sv, nv, 1, c.ordinal * big + (c.primary ? 0 : 1)) });
    }
  }
  if (f.run(source, sink) < shards.length) return undefined;
  return new Map(picks.filter((p) => p.e.cap === 0).map((p) => [p.c.shard, p.c.pod]));
}

/** The most primaries one node (or zone) holds under `leaders`, and which. */
function heaviest(leaders: ReadonlyMap<number, string>, all: readonly LeaderCandidate[], key: (c: LeaderCandidate) => string) {
  const counts = new Map<string, number>();
  for (const c of all) if (leaders.get(c.shard) === c.pod) counts.set(key(c), (counts.get(key(c)) ?? 0) + 1);
  let top: [string, number] = ['', 0];
  for (const [k, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) if (n > top[1]) top = [k, n];
  return { name: top[0], count: top[1], places: counts.size };
}

export function planLeaders(candidates: readonly LeaderCandidate[]): LeaderPlan {
  const byShard = new Map<number, LeaderCandidate[]>();
  for (const c of [...candidates].sort((a, b) => a.shard - b.shard || a.ordinal - b.ordinal)) {
    const list = byShard.get(c.shard) ?? [];
    list.push(c);
    byShard.set(c.shard, list);
  }
  const shards = [...byShard.keys()];
  const total = shards.length;
  // Fewer than half: the survivors of any one node or zone are a majority.
  const cap = Math.ceil(total / 2) - 1;
  const nodes = new Set(candidates.map((c) => c.node)).size;
  const zones = new Set(candidates.map(zoneOf)).size;
  const where = `the shards' pods run on ${nodes} node(s) in ${zones} zone(s)`;

  if (total === 0) return { leaders: new Map(), verdict: { holds: true, message: 'No shard has a primary to place' } };
  if (total <= 2) {
    // No layout gives the vote back, so nothing is moved for it: each shard leads from ordinal 0 (or where it is).
    const leaders = new Map(
      shards.map((s) => {
        const list = byShard.get(s) ?? [];
        return [s, (list.find((c) => c.ordinal === 0) ?? list.find((c) => c.primary) ?? (list[0] as LeaderCandidate)).pod] as const;
      }),
    );
    return {
      leaders,
      verdict: {
        holds: false,
        reason: 'TooFewShards',
        message: `With ${total} shard(s) no layout leaves a majority of primaries after losing one: the controller promotes a lost primary's replica itself once Kubernetes knows its pod is gone`,
      },
    };
  }
  const both = cap >= 1 ? assign(shards, byShard, cap, cap) : undefined;
  if (both) {
    return {
      leaders: both,
      verdict: {
        holds: true,
        message: `No node or zone holds more than ${cap} of the ${total} primaries, so losing one leaves a majority to vote a failover`,
      },
    };
  }
  // No layout holds it: the tightest that exists (node first, then zone), each cap raised in turn.
  const lowest = (from: number, fits: (c: number) => boolean): number => {
    let lo = from;
    let hi = total;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (fits(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const first = Math.max(cap, 1);
  const nodeHolds = assign(shards, byShard, first, Infinity) !== undefined;
  const nodeCap = nodeHolds ? first : lowest(first, (c) => assign(shards, byShard, c, c) !== undefined);
  const zoneCap = nodeHolds ? lowest(first, (c) => assign(shards, byShard, first, c) !== undefined) : nodeCap;
  const leaders = assign(shards, byShard, nodeCap, zoneCap) as Map<number, string>;
  const byNode = heaviest(leaders, candidates, (c) => c.node);
  const byZone = heaviest(leaders, candidates, zoneOf);
  const nodeFails = byNode.count > cap;
  const top = nodeFails ? byNode : byZone;
  return {
    leaders,
    verdict: {
      holds: false,
      reason: nodeFails ? 'TooFewNodes' : 'TooFewZones',
      message:
        `${nodeFails ? 'node' : 'zone'} ${top.name} holds ${top.count} of the ${total} primaries (at most ${cap} would leave a majority after losing it): ` +
        `${where}; spread the pods over more ${nodeFails ? 'nodes' : 'zones'} (spec.placement)`,
    },
  };
}
