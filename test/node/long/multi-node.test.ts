// What Kubernetes does to a cluster, on three real nodes (issue 31): a node-pool upgrade (every node
// drained in turn, back to back, twice), a node holding two primaries lost, a zone lost with
// `zoneSpread: required`, and the placement the render promises. Each describe block is its own
// world (test/support/node/multi-node.ts: three kubelets + containerds, zones a/b/c, one network
// namespace), with the shipped controller Deployment and a package rendered with the shipped render
// defaults; a client writes and reads throughout and every figure is printed ("[real node] ...").
// Run one block at a time: npx vitest run --config vitest.node.config.ts test/node/long/multi-node.test.ts -t '<block>'
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { figure, isReady, secondsSince } from '../../support/node/node-suite.js';
import {
  countBy,
  describePlacement,
  everySlotServed,
  isLive,
  placement,
  recordStatus,
  shardsSharing,
  startMultiSuite,
  THREE_ZONES,
  warnings,
  type MultiSuite,
  type StatusLine,
} from '../../support/node/multi-suite.js';
import { hostSnapshot, leftovers, netnsInode, runcContainers } from '../../support/node/teardown.js';
import { waitFor } from '../../support/process.js';
import type { WriterReport } from '../../support/controller/cluster-writer.js';

const MIN = 60_000;
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';

/** One world per block: started and the package applied before, torn down after, nothing left behind. */
function world(name: string, shards: number, placementSpec?: Record<string, unknown>): () => MultiSuite {
  let s: MultiSuite | undefined;
  let host: Awaited<ReturnType<typeof hostSnapshot>>;
  let ns = 0;
  const start = Date.now();
  beforeAll(async () => {
    host = await hostSnapshot();
    s = await startMultiSuite({
      name,
      nodes: THREE_ZONES,
      shards,
      replicasPerShard: 1,
      ...(placementSpec ? { placement: placementSpec } : {}),
    });
    ns = netnsInode(s.world.layout.netnsPath);
    figure(`${name}: 3 nodes Ready and the controller Deployment up ${secondsSince(start)} after start`);
    const t = Date.now();
    await s.applyPackage();
    await s.waitActive('ValkeyCluster Active', 10 * MIN);
    figure(`${name}: ${shards} shards x 1 replica Active ${secondsSince(t)} after apply`);
  }, 20 * MIN);
  afterAll(async () => {
    if (!s) return;
    const containerIds = (await Promise.all(s.world.nodes.map((n) => runcContainers(n.layout)))).flat();
    await s.stop();
    figure(`${name}: wall time ${secondsSince(start)}`);
    expect(await leftovers(s.world.layout, { netnsInode: ns, containerIds, ...host })).toEqual([]);
  }, 5 * MIN);
  return () => {
    if (!s) throw new Error(`world ${name} did not start`);
    return s;
  };
}

const pauseText = (r: WriterReport, from: number, to: number, shards: number): string =>
  Array.from({ length: shards }, (_, shard) => {
    const ms = Math.max(0, ...r.pauses.filter((p) => p.shard === shard && p.from >= from && p.from < to).map((p) => p.ms));
    return `shard ${shard} ${(ms / 1000).toFixed(1)} s`;
  }).join(', ');

const printStatus = (label: string, t0: number, lines: readonly StatusLine[]): void => {
  for (const l of lines) figure(`${label}: +${((l.at - t0) / 1000).toFixed(1)} s status ${l.text.slice(0, 400)}`);
};

const writerLine = (label: string, r: WriterReport): void =>
  figure(
    `${label}: ${r.acknowledged} acknowledged, ${r.lost} lost (per shard ${r.lostByShard.join('/')}), longest pause per shard ` +
      `${r.longestPauseMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(' / ')}`,
  );

// The shipped placement defaults (no spec.placement): nodeSpread required, the bestEffort zone
// spread and the per-ordinal preferred anti-affinity (db585c3).
describe('node-pool upgrade on 3 nodes in zones a/b/c, shipped placement defaults, 3 shards x 1 replica', () => {
  const s = world('mn-upgrade', 3);

  it('placement: a shard’s pods never share a node, and no node or zone holds more than one of the three primaries', async () => {
    const rows = await placement(s());
    figure(`upgrade: placement at create ${describePlacement(rows)}`);
    expect(rows).toHaveLength(6);
    expect(shardsSharing(rows, (r) => r.node)).toEqual([]);
    const primaries = rows.filter((r) => r.role === 'primary');
    expect(primaries).toHaveLength(3);
    expect(Math.max(...countBy(primaries, (r) => r.node).values())).toBe(1);
    expect(Math.max(...countBy(primaries, (r) => r.zone).values())).toBe(1);
  });

  it(
    'drains every node in turn, back to back (kubectl drain, uncordon, the next at once), twice: no acknowledged write lost, Active at the end',
    async () => {
      const w = await s().writer('node-pool upgrade');
      const status = recordStatus(s());
      const t0 = Date.now();
      const drains: { pass: number; node: string; from: number; ms: number; ok: boolean; out: string }[] = [];
      for (const pass of [1, 2]) {
        for (const n of s().world.nodes) {
          const from = Date.now();
          const r = await s().world.kubectl(['drain', n.name, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=4m'], {
            timeoutMs: 5 * MIN,
          });
          drains.push({ pass, node: n.name, from, ms: Date.now() - from, ok: r.code === 0, out: `${r.stdout}\n${r.stderr}`.trim() });
          figure(`upgrade: pass ${pass} drain ${n.name} ${r.code === 0 ? 'done' : `FAILED (${r.code})`} in ${secondsSince(from)}`);
          const u = await s().world.kubectl(['uncordon', n.name]);
          expect(u.code, u.stderr).toBe(0);
        }
        figure(`upgrade: after pass ${pass}: ${describePlacement(await placement(s()))}`);
      }
      const tDrained = Date.now();
      let active = true;
      await s()
        .waitActive('Active after the upgrade', 6 * MIN)
        .catch((e: Error) => {
          active = false;
          figure(`upgrade: NOT Active 6 min after the last uncordon: ${e.message}`);
        });
      if (active) figure(`upgrade: Active ${secondsSince(tDrained)} after the last uncordon`);
      const r = await w.stop();
      printStatus('upgrade', t0, await status.stop());
      for (const [i, d] of drains.entries()) {
        const next = drains[i + 1]?.from ?? Date.now();
        figure(
          `upgrade: pass ${d.pass} ${d.node}: drain ${(d.ms / 1000).toFixed(1)} s; longest write pause from then to the next drain: ${pauseText(r, d.from, next, 3)}`,
        );
      }
      writerLine('upgrade', r);
      for (const wl of (await warnings(s(), t0)).filter((x) => !x.includes('MissingClusterDNS')))
        figure(`upgrade: Warning ${wl.slice(0, 300)}`);
      const rows = await placement(s());
      figure(`upgrade: placement at the end ${describePlacement(rows)}`);
      for (const d of drains) expect(d.ok, `drain of ${d.node} (pass ${d.pass}): ${d.out.slice(-1500)}`).toBe(true);
      expect(r.lost).toBe(0);
      expect(active).toBe(true);
      expect(shardsSharing(rows, (x) => x.node)).toEqual([]);
    },
    40 * MIN,
  );
});

// 4 shards on 3 nodes: one node holds two primaries whatever the placement (the render warns), and
// losing it leaves 2 of 4, no majority to elect. Zones listed with zoneSpread: required, as a
// platform team spreading a cluster over its zones writes it.
describe('a node holding two primaries lost, on 3 nodes in zones a/b/c, zoneSpread: required, 4 shards x 1 replica', () => {
  const s = world('mn-two-primaries', 4, { zones: ['zone-a', 'zone-b', 'zone-c'], zoneSpread: 'required' });

  it(
    'every slot is served again without a person, nothing acknowledged is lost, status says what happened',
    async () => {
      const rows = await placement(s());
      figure(`two primaries: placement ${describePlacement(rows)}`);
      expect(shardsSharing(rows, (r) => r.node)).toEqual([]);
      const perNode = countBy(
        rows.filter((r) => r.role === 'primary'),
        (r) => r.node,
      );
      // 4 primaries on 3 nodes: one node holds two, and losing it leaves 2 of 4, no majority to elect.
      const [victim, held] = [...perNode.entries()].sort((a, b) => b[1] - a[1])[0] as [string, number];
      expect(held).toBeGreaterThanOrEqual(2);
      const deadIps = new Set(rows.filter((r) => r.node === victim).map((r) => r.ip));
      const w = await s().writer('two primaries lost', 4);
      await sleep(5_000);
      const status = recordStatus(s());
      const t0 = Date.now();
      const killed = await s().world.crash(victim);
      figure(`two primaries: ${victim} crashed (${killed} processes SIGKILLed, its traffic dropped)`);
      let servedMs: number | undefined;
      await waitFor('every slot served again', () => everySlotServed(s(), deadIps), { timeoutMs: 5 * MIN, intervalMs: 1_000 })
        .then(() => {
          servedMs = Date.now() - t0;
        })
        .catch(() => undefined);
      figure(
        `two primaries: ${servedMs === undefined ? 'NOT serving every slot 5 min after the crash' : `every slot served ${(servedMs / 1000).toFixed(1)} s after the crash`}`,
      );
      await sleep(5_000); // a few writes on every shard after it serves again
      const r = await w.stop();
      printStatus('two primaries', t0, await status.stop());
      writerLine('two primaries', r);
      for (const wl of (await warnings(s(), t0)).filter((x) => !x.includes('MissingClusterDNS')))
        figure(`two primaries: Warning ${wl.slice(0, 300)}`);
      figure(`two primaries: placement after ${describePlacement(await placement(s()))}`);
      expect(servedMs).toBeDefined();
      expect(r.lost).toBe(0);
    },
    20 * MIN,
  );
});

/**
 * A node holding a primary and a replica crashes: served again by Valkey's own failover; status
 * names the node and the fix; then the person's remedy (the out-of-service taint, or deleting the
 * Node) and the time until every shard has its replica again.
 */
async function nodeLost(
  s: () => MultiSuite,
  label: string,
  pickVictim: (rows: Awaited<ReturnType<typeof placement>>) => string,
  remedy: 'taint' | 'delete',
) {
  const rows = await placement(s());
  figure(`${label}: placement ${describePlacement(rows)}`);
  expect(shardsSharing(rows, (r) => r.node)).toEqual([]);
  const primaries = rows.filter((r) => r.role === 'primary');
  expect(Math.max(...countBy(primaries, (r) => r.zone).values())).toBe(1);
  const victim = pickVictim(rows);
  const lostPods = rows.filter((r) => r.node === victim);
  expect(lostPods.some((r) => r.role === 'primary')).toBe(true);
  const deadIps = new Set(lostPods.map((r) => r.ip));
  const w = await s().writer(label, 3);
  await sleep(5_000);
  const status = recordStatus(s());
  const t0 = Date.now();
  await s().world.crash(victim);
  figure(
    `${label}: ${victim} crashed (${s().world.nodes.find((n) => n.name === victim)?.zone}: ${lostPods.map((r) => `${r.pod} ${r.role}`).join(', ')})`,
  );
  let servedMs: number | undefined;
  await waitFor('every slot served again', () => everySlotServed(s(), deadIps), { timeoutMs: 5 * MIN, intervalMs: 1_000 })
    .then(() => {
      servedMs = Date.now() - t0;
    })
    .catch(() => undefined);
  figure(
    `${label}: ${servedMs === undefined ? 'NOT serving every slot 5 min after the loss' : `every slot served ${(servedMs / 1000).toFixed(1)} s after the loss`}`,
  );

  // Without the taint: Kubernetes does not replace a StatefulSet's pods on an unreachable node;
  // status must say so, naming the node and the command.
  const full = async (): Promise<boolean> => {
    const st = await s().status();
    const live = (await s().pods()).filter((p) => isLive(p) && isReady(p) && !deadIps.has(p.status?.podIP ?? ''));
    return (
      live.length === 6 &&
      [0, 1, 2].every((shard) => st.nodes?.some((n) => n.shard === shard && n.role === 'replica' && n.health === 'online'))
    );
  };
  let explainedMs: number | undefined;
  const explained = async (): Promise<boolean> => {
    const vc = await s().world.json<{ status?: { message?: string; conditions?: { message?: string }[] } }>(
      'GET',
      `/apis/valkey.gomomento.com/v1alpha1/namespaces/${s().pkg.namespace}/valkeyclusters/${s().pkg.cluster}`,
    );
    const text = [vc.status?.message ?? '', ...(vc.status?.conditions ?? []).map((c) => c.message ?? '')].join('\n');
    return text.includes(victim) && text.includes('out-of-service');
  };
  await waitFor('status names the lost node and the out-of-service taint', explained, { timeoutMs: 3 * MIN, intervalMs: 1_000 })
    .then(() => {
      explainedMs = Date.now() - t0;
    })
    .catch(() => undefined);
  const fullWithout = await full();
  figure(
    `${label}: without the taint, ${explainedMs === undefined ? 'status did NOT name the node and the out-of-service taint within 3 min' : `status named ${victim} and the out-of-service taint ${(explainedMs / 1000).toFixed(1)} s after the loss`}; ` +
      `every shard with its replica again: ${fullWithout ? 'yes' : 'no'} at ${secondsSince(t0)}`,
  );

  const tTaint = Date.now();
  const act = await s().world.kubectl(remedy === 'taint' ? ['taint', 'node', victim, OUT_OF_SERVICE] : ['delete', 'node', victim]);
  expect(act.code, act.stderr).toBe(0);
  const how = remedy === 'taint' ? 'the out-of-service taint' : 'kubectl delete node';
  let replicasMs: number | undefined;
  await waitFor('every shard has its replica again', full, { timeoutMs: 6 * MIN, intervalMs: 1_000 })
    .then(() => {
      replicasMs = Date.now() - tTaint;
    })
    .catch(() => undefined);
  figure(
    `${label}: with ${how}, ${replicasMs === undefined ? `shards NOT whole 6 min after ${how}` : `every shard has its replica again ${(replicasMs / 1000).toFixed(1)} s after ${how} (${secondsSince(t0)} after the loss)`}`,
  );
  let active = true;
  await s()
    .waitActive(`Active after ${remedy}`, 5 * MIN)
    .catch(() => {
      active = false;
    });
  const r = await w.stop();
  printStatus(label, t0, await status.stop());
  writerLine(label, r);
  for (const wl of (await warnings(s(), t0)).filter((x) => !x.includes('MissingClusterDNS')))
    figure(`${label}: Warning ${wl.slice(0, 300)}`);
  const after = await placement(s());
  figure(`${label}: placement after ${describePlacement(after)}`);
  expect(servedMs).toBeDefined();
  expect(r.lost).toBe(0);
  expect(explainedMs).toBeDefined();
  expect(replicasMs).toBeDefined();
  expect(active).toBe(true);
  expect(shardsSharing(after, (x) => x.node)).toEqual([]);
}

describe('a zone lost with zoneSpread: required, on 3 nodes in zones a/b/c (one node each), 3 shards x 1 replica', () => {
  const s = world('mn-zone', 3, { zones: ['zone-a', 'zone-b', 'zone-c'], zoneSpread: 'required' });

  it(
    'the zone’s node (a primary and a replica) lost: served again, status names the node and the fix, and with the out-of-service taint every shard has its replica again',
    async () => {
      const rows = await placement(s());
      expect(shardsSharing(rows, (r) => r.zone)).toEqual([]);
      await nodeLost(s, 'zone', () => s().world.nodes.find((n) => n.zone === 'zone-c')?.name as string, 'taint');
      expect(shardsSharing(await placement(s()), (x) => x.zone)).toEqual([]);
    },
    25 * MIN,
  );
});

describe('a node with a primary and a replica lost, shipped placement defaults, 3 shards x 1 replica: the Node deleted instead of tainted', () => {
  const s = world('mn-node-lost', 3);

  it(
    'served again, status names the node and the fix, and once the Node is deleted every shard has its replica again',
    async () => {
      const victimOf = (rows: Awaited<ReturnType<typeof placement>>): string => {
        const n = s().world.nodes.find(
          (x) => rows.some((r) => r.node === x.name && r.role === 'primary') && rows.some((r) => r.node === x.name && r.role === 'replica'),
        );
        if (!n) throw new Error(`no node holds a primary and a replica: ${describePlacement(rows)}`);
        return n.name;
      };
      await nodeLost(s, 'node lost', victimOf, 'delete');
    },
    25 * MIN,
  );
});
