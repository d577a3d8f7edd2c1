// What every multi-node e2e file sets up the same way (a world of several real nodes, the shipped
// controller Deployment, a package rendered with the shipped render defaults) and the questions its
// cases ask: where each pod and primary is (node, zone), whether every slot is served again, what
// status said along the way, and which Warning Events the controller raised.
import { setTimeout as sleep } from 'node:timers/promises';
import { nodeImages } from './images.js';
import { startMultiNode, type MultiNodeWorld, type NodeSpec } from './multi-node.js';
import { figure, prepareNodeSuite, type NodeSuite, type Pod } from './node-suite.js';

export interface MultiSuite extends NodeSuite {
  world: MultiNodeWorld;
}

export interface MultiSuiteOptions {
  name: string;
  nodes: readonly NodeSpec[];
  shards: number;
  replicasPerShard: number;
  /** ValkeyCluster spec.placement (zones, zoneSpread); left out: the shipped defaults. */
  placement?: Record<string, unknown>;
}

/** Three nodes, one per zone: the layout of issue 31 and ../shared/multi-node/. */
export const THREE_ZONES: readonly NodeSpec[] = [
  { name: 'node-a', zone: 'zone-a' },
  { name: 'node-b', zone: 'zone-b' },
  { name: 'node-c', zone: 'zone-c' },
];

export async function startMultiSuite(o: MultiSuiteOptions): Promise<MultiSuite> {
  const images = await nodeImages();
  const world = await startMultiNode({ name: o.name, nodes: o.nodes, images: images.archives, log: (m) => figure(`${o.name}: ${m}`) });
  try {
    const s = await prepareNodeSuite(world, images, { name: o.name, shards: o.shards, replicasPerShard: o.replicasPerShard });
    // The shipped render defaults: no nodeSpread in the render config (the render's own default).
    s.pkg.nodeSpread = 'shipped';
    if (o.placement) s.pkg.placement = o.placement;
    return { ...s, world };
  } catch (e) {
    await world.stop();
    throw e;
  }
}

/** One Valkey pod: where it runs and what Valkey role status gives it. */
export interface Placed {
  pod: string;
  shard: number;
  node: string;
  zone: string;
  role: string;
  ip: string;
}

export async function placement(s: MultiSuite): Promise<Placed[]> {
  const [pods, status] = await Promise.all([s.pods(), s.status()]);
  const zoneOf = new Map(s.world.nodes.map((n) => [n.name, n.zone]));
  return pods
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => {
      const n = status.nodes?.find((x) => x.pod === p.metadata.name);
      const node = p.spec.nodeName ?? '-';
      return {
        pod: p.metadata.name,
        shard: n?.shard ?? Number(/-(\d+)-\d+$/.exec(p.metadata.name)?.[1] ?? -1),
        node,
        zone: zoneOf.get(node) ?? '-',
        role: n?.role ?? '-',
        ip: p.status?.podIP ?? '-',
      };
    })
    .sort((a, b) => a.pod.localeCompare(b.pod));
}

export const describePlacement = (rows: readonly Placed[]): string =>
  rows.map((r) => `${r.pod}@${r.node}/${r.zone}:${r.role === 'primary' ? 'P' : r.role === 'replica' ? 'R' : '?'}`).join(' ');

/** How many of `rows` (e.g. the primaries) each key (node or zone) holds. */
export const countBy = (rows: readonly Placed[], key: (r: Placed) => string): Map<string, number> => {
  const m = new Map<string, number>();
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
  return m;
};

/** Shards with two pods on one node (or zone, with `key`): empty when the placement holds. */
export const shardsSharing = (rows: readonly Placed[], key: (r: Placed) => string): string[] => {
  const seen = new Map<string, string>();
  const found: string[] = [];
  for (const r of rows) {
    const k = `${r.shard}/${key(r)}`;
    const other = seen.get(k);
    if (other) found.push(`shard ${r.shard}: ${other} and ${r.pod} on ${key(r)}`);
    seen.set(k, r.pod);
  }
  return found;
};

/**
 * Every slot served again: a live pod says cluster_state:ok, and CLUSTER SLOTS gives all 16384
 * slots to primaries at the IPs of live pods (not the dead node's).
 */
export async function everySlotServed(s: MultiSuite, deadIps: ReadonlySet<string>): Promise<boolean> {
  const live = (await s.pods()).filter((p) => !p.metadata.deletionTimestamp && p.status?.podIP && !deadIps.has(p.status.podIP));
  for (const p of live) {
    try {
      const ip = p.status?.podIP as string;
      if (!/cluster_state:ok/.test(await s.cli(ip, ['cluster', 'info']))) return false;
      const slots = await s.cli(ip, ['-2', '--json', 'cluster', 'slots']);
      const ranges = JSON.parse(slots) as [number, number, [string, number, ...unknown[]]][];
      let covered = 0;
      for (const [a, b, [owner]] of ranges) {
        if (deadIps.has(owner)) return false;
        covered += b - a + 1;
      }
      return covered === 16384;
    } catch {
      // that pod did not answer: ask the next
    }
  }
  return false;
}

/** What status said (state, message, the conditions that are not the usual healthy ones), as it changed. */
export interface StatusLine {
  at: number;
  text: string;
}

/** Polls the ValkeyCluster's status every second and keeps each distinct line, with its time. */
export function recordStatus(s: MultiSuite): { stop(): Promise<StatusLine[]> } {
  const lines: StatusLine[] = [];
  let running = true;
  const loop = (async () => {
    let last = '';
    while (running) {
      try {
        const vc = await s.world.json<{
          status?: { state?: string; message?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
        }>('GET', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${s.pkg.namespace}/valkeyclusters/${s.pkg.cluster}`);
        const c = (vc.status?.conditions ?? [])
          .filter((x) => !['VersionCheck', 'VersionMatchesImage', 'TLSSecretValid', 'CertificateExpiringSoon'].includes(x.type))
          .map(
            (x) =>
              `${x.type}=${x.status}/${x.reason ?? ''}${x.status === 'True' && x.type !== 'Ready' && x.type !== 'ClusterFormed' ? `: ${x.message ?? ''}` : ''}`,
          )
          .join('; ');
        const text = `${vc.status?.state ?? '-'}: ${vc.status?.message ?? ''} [${c}]`;
        if (text !== last) lines.push({ at: Date.now(), text });
        last = text;
      } catch {
        // the API answered late: next second
      }
      await sleep(1_000);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return lines;
    },
  };
}

/** The Warning Events of the namespace since `since` (epoch ms): reason and message, in order. */
export async function warnings(s: MultiSuite, since: number): Promise<string[]> {
  type Ev = {
    type?: string;
    reason?: string;
    message?: string;
    lastTimestamp?: string;
    eventTime?: string;
    involvedObject?: { kind?: string };
  };
  const evs = (await s.world.json<{ items: Ev[] }>('GET', `/api/v1/namespaces/${s.pkg.namespace}/events`)).items;
  return evs
    .filter((e) => e.type === 'Warning' && Date.parse(e.lastTimestamp ?? e.eventTime ?? '') >= since - 1_000)
    .map((e) => `${e.involvedObject?.kind ?? '?'} ${e.reason}: ${e.message}`);
}

export const isLive = (p: Pod): boolean => !p.metadata.deletionTimestamp;
