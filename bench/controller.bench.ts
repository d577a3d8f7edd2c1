// npm run bench:controller: the controller's memory and time for one reconcile pass's
// observation and planning, at 1, 100 and 1,000 clusters and at clusters of growing size up to
// the largest the CRD allows (1,000 shards × (1 + 10 replicas) = 11,000 pods). Real nodes are
// impossible at that size, so each node's CLUSTER NODES is generated as Valkey 9 prints it (ids,
// ip:port@cport,hostname, flags, epochs, slot ranges), and the pass runs the production code on
// it: parseClusterNodes and parseClusterInfo for every pod, planFormation, buildStatus. A pass
// keeps every answered pod's view until it ends, as reconcile-cluster.ts does.
//
// Figures: heap growth during the pass (after a forced GC before it, peak sampled after each
// pod), the process's RSS, and the pass time. The shipped Deployment's limit is 256 MiB
// (deploy/controller/deployment.yaml); a pass whose heap passes STOP_MIB is stopped and
// reported as not fitting, with the pods it had reached.
//
//   npm run bench:controller               (node --expose-gc, so the heap figures are clean)
import { performance } from 'node:perf_hooks';
import type { Member } from '../src/controller/cluster/observation.js';
import { planFormation } from '../src/controller/cluster/formation.js';
import { shardSlotRange, formatRanges } from '../src/api/contract/slots.js';
import { buildStatus } from '../src/controller/cluster/status.js';
import { parseClusterInfo, parseClusterNodes, type ClusterNodeInterner } from '../src/controller/valkey/cluster-nodes.js';
import { figureLog } from './figures.js';
import { SHIPPED_TIMING } from '../src/controller/shipped-defaults.js';

const report = figureLog('controller');

const LIMIT_MIB = 256;
/** A quiet fleet of 1,000 clusters must cost the controller less than this share of one core. */
const QUIET_TARGET_PERCENT = 5;
const STOP_MIB = Number(process.env.BENCH_STOP_MIB ?? 1024);
const gc = (globalThis as { gc?: () => void }).gc;
const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

interface Pod {
  pod: string;
  shard: number;
  ordinal: number;
  id: string;
  ip: string;
}

function podsOf(cluster: string, shards: number, replicas: number): Pod[] {
  const pods: Pod[] = [];
  for (let s = 0; s < shards; s++)
    for (let o = 0; o <= replicas; o++) {
      const n = pods.length;
      pods.push({
        pod: `${cluster}-${s}-${o}`,
        shard: s,
        ordinal: o,
        id: (n.toString(16).padStart(8, '0') + cluster.length.toString(16)).padEnd(40, 'a').slice(0, 40),
        ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      });
    }
  return pods;
}

/** One node's CLUSTER NODES of a formed cluster, as Valkey 9 prints it. */
function clusterNodesText(cluster: string, pods: readonly Pod[], self: Pod, shards: number): string {
  const primaries = new Map(pods.filter((p) => p.ordinal === 0).map((p) => [p.shard, p.id]));
  const lines = pods.map((p) => {
    const flags = `${p === self ? 'myself,' : ''}${p.ordinal === 0 ? 'master' : 'slave'}`;
    const primary = p.ordinal === 0 ? '-' : primaries.get(p.shard);
    const slots = p.ordinal === 0 ? ` ${formatRanges([shardSlotRange(p.shard, shards)])}` : '';
    return `${p.id} ${p.ip}:6379@16379,${p.pod}.${cluster}.team.svc.cluster.local,shard-id=${primaries.get(p.shard)} ${flags} ${primary} 0 1700000000000 ${p.shard + 1} connected${slots}`;
  });
  return `${lines.join('\n')}\n`;
}

const INFO = 'cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:16384\r\ncluster_known_nodes:6\r\ncluster_size:3\r\n';

/** One pass over one cluster; returns false when it was stopped for memory. */
function pass(
  cluster: string,
  shards: number,
  replicas: number,
  sample: () => number,
): { pods: number; stopped: boolean; textBytes: number } {
  const pods = podsOf(cluster, shards, replicas);
  const members: Member[] = [];
  const observations = [];
  const interner: ClusterNodeInterner = new Map();
  let textBytes = 0;
  for (const p of pods) {
    const text = clusterNodesText(cluster, pods, p, shards);
    textBytes = text.length;
    const view = parseClusterNodes(text, process.env.BENCH_NO_INTERN ? undefined : interner);
    const endpoint = { host: p.ip, port: 6379, busPort: 16379 };
    members.push({ pod: p.pod, shard: p.shard, ordinal: p.ordinal, endpoint, view });
    observations.push({
      pod: p.pod,
      shard: p.shard,
      ordinal: p.ordinal,
      ip: p.ip,
      state: 'answered' as const,
      identity: { kind: 'valkey' as const, version: '9.1.2' },
      version: '9.1.2',
      endpoint,
      view,
      info: parseClusterInfo(INFO),
      replication: { role: p.ordinal === 0 ? ('primary' as const) : ('replica' as const), linkUp: true, syncing: false, offset: 0 },
    });
    // Heap samples per pod in a large cluster; per cluster otherwise (a sample costs more than a small pod's pass).
    if (pods.length > 50 && sample() > STOP_MIB * 1024 * 1024) return { pods: members.length, stopped: true, textBytes };
  }
  if (process.env.BENCH_TRACE) console.error(`parsed ${members.length} views: heap ${mib(process.memoryUsage().heapUsed)} MiB`);
  const plan = planFormation({ shards, members, allPodsObserved: true });
  if (process.env.BENCH_TRACE) console.error(`planned: heap ${mib(process.memoryUsage().heapUsed)} MiB`);
  buildStatus({
    namespace: 'team',
    generation: 1,
    shards,
    replicasPerShard: replicas,
    observations,
    plan,
    actionErrors: [],
    now: '2026-01-01T00:00:00Z',
  });
  sample();
  return { pods: members.length, stopped: false, textBytes };
}

interface Row {
  what: string;
  pods: string;
  heap: string;
  rss: string;
  ms: string;
  cpu: string;
  perPod: string;
  fits: string;
}

/** CPU (user + system, ms) of the last measured case, for the fleet figures below. */
const cpuOf = new Map<string, { cpuMs: number; clusters: number; pods: number }>();

function measure(what: string, clusters: number, shards: number, replicas: number): Row {
  gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  let peakRss = 0;
  const sample = (): number => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.heapUsed - base);
    peakRss = Math.max(peakRss, m.rss);
    return m.heapUsed - base;
  };
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let pods = 0;
  let stopped = false;
  let textBytes = 0;
  for (let c = 0; c < clusters && !stopped; c++) {
    const r = pass(`c${c}`, shards, replicas, sample);
    pods += r.pods;
    stopped = r.stopped;
    textBytes = r.textBytes;
  }
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cpuMs = (c.user + c.system) / 1000;
  cpuOf.set(what, { cpuMs, clusters, pods });
  const expected = clusters * shards * (1 + replicas);
  return {
    what: `${what} (CLUSTER NODES ${mib(textBytes)} MiB per pod)`,
    pods: stopped ? `${pods} of ${expected}` : String(pods),
    heap: mib(peak),
    rss: mib(peakRss),
    ms: stopped ? `stopped at ${STOP_MIB} MiB after ${ms.toFixed(0)}` : ms.toFixed(0),
    cpu: cpuMs.toFixed(0),
    perPod: ((cpuMs * 1000) / Math.max(pods, 1)).toFixed(0),
    fits: stopped || peakRss > LIMIT_MIB * 1024 * 1024 ? 'no' : 'yes',
  };
}

if (!gc) process.stderr.write('note: run with node --expose-gc (npm run bench:controller does) for clean heap figures\n');
const cases: [string, number, number, number][] = [
  ['1 cluster, 3 shards × 2', 1, 3, 1],
  ['100 clusters, 3 shards × 2, one after another', 100, 3, 1],
  ['1,000 clusters, 3 shards × 2, one after another', 1000, 3, 1],
  ['1 cluster, 100 shards × 2', 1, 100, 1],
  // The CRD allows at most 500 pods per cluster (MAX_PODS_PER_CLUSTER): its largest clusters.
  ['1 cluster, 250 shards × 2 (500 pods, the largest the CRD allows)', 1, 250, 1],
  ['1 cluster, 500 shards × 1 (500 pods, the largest the CRD allows)', 1, 500, 0],
  ['1 cluster, 45 shards × 11 (495 pods)', 1, 45, 10],
];
const only = process.env.BENCH_CASES?.split(',').map(Number);
const rows = cases.filter((_, i) => !only || only.includes(i)).map(([what, c, s, r]) => measure(what, c, s, r));
const header: Row = {
  what: 'case',
  pods: 'pods',
  heap: 'peak heap MiB',
  rss: 'peak RSS MiB',
  ms: 'pass ms',
  cpu: 'CPU ms',
  perPod: 'CPU µs/pod',
  fits: `fits ${LIMIT_MIB}Mi`,
};
const widths = Object.keys(header).map((k) => Math.max(...[header, ...rows].map((r) => r[k as keyof Row].length)));
for (const r of [header, ...rows])
  report.line(
    Object.keys(header)
      .map((k, i) => r[k as keyof Row].padEnd(widths[i] as number))
      .join('  '),
  );

// The fleet: what the controller's passes cost per 1,000 clusters of 3 shards × 2 (the case above)
// when the fleet is quiet and during a fleet-wide roll, from the per-cluster CPU just measured and
// how often each cluster is passed over (shipped timing: an Active cluster every resyncMs, one
// whose roll is under way every progressMs; --max-concurrent-rolls 1). A cluster whose roll waits
// for the fleet's slot is passed over at resyncMs and woken when a slot frees.
const fleet = cpuOf.get('1,000 clusters, 3 shards × 2, one after another');
if (fleet) {
  const perCluster = fleet.cpuMs / fleet.clusters;
  const { resyncMs, progressMs } = SHIPPED_TIMING;
  const rolls = 1;
  const quiet = (perCluster * 1000) / resyncMs;
  const rolling = (perCluster * rolls) / progressMs + (perCluster * (1000 - rolls)) / resyncMs;
  report.line('');
  report.line(
    `per pass (observation parsed, formation planned, status built): ${perCluster.toFixed(2)} ms CPU per cluster, ${((fleet.cpuMs * 1000) / fleet.pods).toFixed(0)} µs per pod`,
  );
  report.line(
    `1,000 quiet clusters (a pass each per ${resyncMs / 1000} s): ${(quiet * 100).toFixed(2)}% of one core (target < ${QUIET_TARGET_PERCENT}%: ${quiet * 100 < QUIET_TARGET_PERCENT ? 'met' : 'MISSED'})`,
  );
  report.line(
    `1,000 clusters during a fleet-wide roll (${rolls} rolling, a pass per ${progressMs / 1000} s; the rest waiting, a pass per ${resyncMs / 1000} s): ${(rolling * 100).toFixed(2)}% of one core`,
  );
}
