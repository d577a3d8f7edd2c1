// Autoscaling in the real kube world (issue 26): real kube-apiserver, etcd and
// kube-controller-manager, the kubelet stand-in running Valkey 9.1.2 pods, the controller
// in-process on the shipped timings (only its sampler paced at 2 s instead of 30 s, with the
// shortest window, 30 s, so the run takes minutes). A client writes and reads throughout; another
// fills memory past scaleOut.memoryPercent. The controller must propose one shard more
// (status.autoscaling.desiredShards and a ScaleOut Event naming node, metric, value and
// threshold) and change nothing itself; the test then plays the job (the commit, synced: the
// rendered objects for shards + 1 applied), and the shard is added and balanced. It prints the
// writes lost and the times from the fill crossing the threshold to the decision and to the new
// shard serving (the job's and the sync's latency are not in them: the test applies at once).
// Then the load goes (the fill deleted) and the controller is restarted mid-window: the new one
// decides nothing until a window of its own is full, then proposes one shard less, and the test's
// commit of shards - 1 drains and retires it, nothing lost. Last, the load flaps around the
// lines (filled past scaleOut.memoryPercent, emptied below scaleIn.memoryPercent, again and
// again) with git not carrying anything out: the cooldowns hold, so the load crosses the line many
// times and the controller decides at most once per scale-out cooldown, never a scale-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/controller/app.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';
import { parseInfo } from '../../src/controller/valkey/info.js';
import { countSlots } from '../../src/api/contract/slots.js';
import { ensureTools } from '../support/apiserver.js';
import { clusterClient, loadKeys, startWorkload, type WorkloadReport } from '../support/client-workload.js';
import type { KubeWorld } from '../support/kube-world.js';
import {
  apiJson,
  clusterPods,
  renderClusterObjects,
  startShippedController,
  stopControllerAndWorld,
} from '../support/controller/day2-world.js';
import { controllerCommand, startWorkloadWorld, type RenderedObject } from '../support/controller/workload-world.js';
import { cluster, config, role } from '../support/objects.js';
import { sha256 } from '../support/hash.js';
import { waitFor } from '../support/process.js';

const NS = 'autoscaling';
const NAME = 'grows';
const PASSWORDS = {
  replication: 'replication-password-autoscale',
  controller: 'controller-password-autoscale',
  app: 'app-password-autoscale',
};
const AUTOSCALING = {
  minShards: 2,
  maxShards: 4,
  scaleOut: { memoryPercent: 20 },
  scaleIn: { memoryPercent: 10 },
  scaleInWindowSeconds: 30,
  // Short enough that the scale-in below is not held for minutes behind the scale-out.
  scaleOutCooldownSeconds: 60,
};
/** A small maxmemory, so 20% of it is a few megabytes of keys on this machine. */
const TINY = config('tiny', { baseRef: 'standard', valkey: { maxmemory: '64mb', 'maxmemory-policy': 'noeviction' } });
const WORKLOAD_KEYS = 2_000;
const FILL_KEYS = 36_000;
const FILL_VALUE = 'x'.repeat(1024);

/** `op` on every fill key, 2,000 at a time; before each batch, `enough` may stop it. */
async function eachFillKey(op: (key: string) => Promise<unknown>, enough: () => Promise<boolean> = async () => false): Promise<void> {
  for (let start = 0; start < FILL_KEYS && !(await enough()); start += 2_000)
    await Promise.all(Array.from({ length: 2_000 }, (_, i) => op(`key:fill:${start + i}`)));
}

interface PodObject {
  metadata: { name: string };
  status?: { podIP?: string; conditions?: { type: string; status: string }[] };
}
interface ClusterObject {
  metadata?: { generation?: number };
  spec?: { shards?: number };
  status?: {
    state?: string;
    observedGeneration?: number;
    autoscaling?: {
      desiredShards: number;
      message?: string;
      lastDecision?: string;
      lastDecisionReason?: string;
      lastDecisionTime?: string;
    };
  };
}

/** What git holds for the cluster with `shards`: the render, the workload's user added, and the ValkeyCluster. */
function rendered(shards: number): RenderedObject[] {
  const spec = { configRef: 'tiny', shards, replicasPerShard: 0, autoscaling: AUTOSCALING };
  const objects = renderClusterObjects<RenderedObject>(PASSWORDS, [TINY, role('reader'), cluster(NAME, spec, NS)]);
  const cm = objects.find((o) => o.kind === 'ConfigMap') as RenderedObject;
  const app = `user app on #${sha256(PASSWORDS.app)} resetchannels ~key:* -@all +@read +@write +ping +asking +cluster|slots +cluster|nodes +cluster|shards +cluster|info +info\n`;
  cm.data = { ...cm.data, 'users.acl': `${cm.data?.['users.acl'] ?? ''}${app}` };
  return [...objects, cluster(NAME, spec, NS)];
}

describe('autoscaling in the kube world: memory past scaleOut proposes one shard more and git adds it; load gone, one shard less', () => {
  let world: KubeWorld;
  let app: App | undefined;
  let started: Awaited<ReturnType<typeof startWorkloadWorld>>;
  const logs: string[] = [];

  const pods = (): Promise<PodObject[]> => clusterPods<PodObject>(world, NS, NAME);
  const clusterObject = () =>
    apiJson<ClusterObject>(world, 'GET', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${NS}/valkeyclusters/${NAME}`);
  const ipOf = async (pod: string) => (await pods()).find((p) => p.metadata.name === pod)?.status?.podIP as string;
  /** The shipped controller, its sampler paced at 2 s (a fresh one has no samples). */
  const startController = () =>
    startShippedController({
      controllerKubeconfig: started.prepared.controllerKubeconfig,
      namespace: NS,
      controllerPassword: PASSWORDS.controller,
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics: controllerMetrics(),
      sampleIntervalMs: 2_000,
    });
  /** Active at the spec's generation, with `shards` primaries holding their even share of the slots. */
  const balancedAndActive = async (host: string, shards: number): Promise<boolean> => {
    const c = await clusterObject();
    if (c.status?.state !== 'Active' || c.status.observedGeneration !== c.metadata?.generation) return false;
    const view = parseClusterNodes((await controllerCommand(host, PASSWORDS.controller, 'CLUSTER', 'NODES')).trim());
    const slots = view.filter((n) => n.flags.has('master')).map((n) => countSlots(n.slots));
    return slots.length === shards && slots.every((n) => n === Math.floor(16384 / shards) || n === Math.ceil(16384 / shards));
  };
  const usedPercent = async (pod: string): Promise<number> => {
    const f = parseInfo(await controllerCommand(await ipOf(pod), PASSWORDS.controller, 'INFO', 'memory'));
    return (100 * Number(f.get('used_memory'))) / Number(f.get('maxmemory'));
  };
  /** The fuller of the two first shards' primaries, in percent of maxmemory. */
  const hottest = async (): Promise<number> => Math.max(await usedPercent(`${NAME}-0-0`), await usedPercent(`${NAME}-1-0`));

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    started = await startWorkloadWorld({ namespace: NS, replicationPassword: PASSWORDS.replication });
    world = started.world;
    await world.apply(rendered(2));
    app = await startController();
    await waitFor('2 shards Active', async () => (await clusterObject()).status?.state === 'Active', {
      timeoutMs: 180_000,
      intervalMs: 250,
    });
  }, 300_000);

  afterAll(async () => {
    await stopControllerAndWorld(app, logs, world);
  }, 60_000);

  it('ScaleOut proposed once, spec.shards left alone; the job’s commit applied adds the shard, balanced, no write lost', async () => {
    const seed = { host: await ipOf(`${NAME}-0-0`), port: 6379 };
    // Every key the workload reads exists before it starts, so a read of nothing is a stale read.
    const loader = clusterClient(seed, PASSWORDS.app);
    await loadKeys(loader, WORKLOAD_KEYS);
    loader.disconnect();
    const workload = startWorkload(seed, PASSWORDS.app, WORKLOAD_KEYS);
    let report: WorkloadReport | undefined;
    let crossedAt = 0;
    let decidedAt = 0;
    let servingAt = 0;
    let status: ClusterObject | undefined;
    try {
      // Below the threshold while the window fills: nothing is proposed.
      await waitFor(
        'a full window within thresholds',
        async () => /^(within thresholds|at minShards 2)/.test((await clusterObject()).status?.autoscaling?.message ?? ''),
        {
          timeoutMs: 90_000,
          intervalMs: 500,
        },
      );
      expect((await clusterObject()).status?.autoscaling?.desiredShards).toBe(2);

      const filler = clusterClient(seed, PASSWORDS.app);
      await eachFillKey(
        (key) => filler.set(key, FILL_VALUE),
        async () => {
          if (!crossedAt && (await hottest()) > 20) crossedAt = Date.now();
          return false;
        },
      );
      filler.disconnect();
      if (!crossedAt) crossedAt = Date.now();
      expect(await hottest()).toBeGreaterThan(20);

      await waitFor('desiredShards 3', async () => (await clusterObject()).status?.autoscaling?.desiredShards === 3, {
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      decidedAt = Date.now();
      status = await clusterObject();
      // The controller proposes; git's count still runs.
      expect(status.spec?.shards).toBe(2);
      expect(status.status?.autoscaling).toMatchObject({ lastDecision: 'ScaleOut' });
      expect(status.status?.autoscaling?.lastDecisionReason).toMatch(
        /^shard [01]'s primary grows-[01]-0 at \d+% of maxmemory, above memoryPercent 20$/,
      );
      const events = await apiJson<{ items: { reason: string; message: string }[] }>(world, 'GET', `/api/v1/namespaces/${NS}/events`);
      const scaleOuts = events.items.filter((e) => e.reason === 'ScaleOut');
      expect(scaleOuts).toHaveLength(1);
      expect(scaleOuts[0]?.message).toMatch(
        /^2 → 3 shard\(s\) proposed \(git carries it out\): shard [01]'s primary grows-[01]-0 at \d+% of maxmemory, above memoryPercent 20$/,
      );

      // The job: commit shards: 3; the GitOps tool applies it.
      await world.apply(rendered(3));
      await waitFor('3 shards balanced and Active', () => balancedAndActive(seed.host, 3), { timeoutMs: 400_000, intervalMs: 250 });
      servingAt = Date.now();
    } finally {
      report = await workload.stop();
    }
    const after = await clusterObject();
    const odd = Object.entries(report.errors).filter(([m]) => !/^(MOVED|ASK)\b/.test(m));
    process.stdout.write(
      `[autoscaling] 2 -> 3 shards on memoryPercent 20 of maxmemory 64mb (sampling every 2 s, a 30 s window): ` +
        `decided ${((decidedAt - crossedAt) / 1000).toFixed(1)} s after the fill crossed the threshold, ` +
        `the new shard balanced and Active ${((servingAt - decidedAt) / 1000).toFixed(1)} s after the job's change was applied ` +
        `(${((servingAt - crossedAt) / 1000).toFixed(1)} s from threshold to serving, the job's schedule and the sync not counted); ` +
        `${report.writes} writes, ${report.reads} reads, ${report.lostWrites} acknowledged writes lost, ${report.staleReads} stale reads, ` +
        `errors other than MOVED/ASK: ${JSON.stringify(Object.fromEntries(odd))}; status.autoscaling after: ${JSON.stringify(after.status?.autoscaling)}\n`,
    );
    expect(report.lostWrites).toBe(0);
    expect(odd).toEqual([]);
    // Git carried the decision out: nothing is pending, and no second shard is proposed within the cooldown.
    expect(after.status?.autoscaling?.desiredShards).toBe(3);
  }, 900_000);

  it('load removed, the controller restarted mid-window: no decision until a new window is full, then ScaleIn; git removes the shard, no write lost', async () => {
    const seed = { host: await ipOf(`${NAME}-0-0`), port: 6379 };
    const workload = startWorkload(seed, PASSWORDS.app, WORKLOAD_KEYS);
    let report: WorkloadReport | undefined;
    let restartedAt = 0;
    let decidedAt = 0;
    let retiredAt = 0;
    const heldWhileFilling: string[] = [];
    try {
      // The load goes: the fill is deleted, every node falls below scaleIn.memoryPercent 10.
      const cleaner = clusterClient(seed, PASSWORDS.app);
      await eachFillKey((key) => cleaner.del(key));
      cleaner.disconnect();
      for (const shard of [0, 1, 2]) expect(await usedPercent(`${NAME}-${shard}-0`)).toBeLessThan(10);

      // Mid-window: the controller stops and a new one starts, with no samples.
      await new Promise((r) => setTimeout(r, 10_000));
      await app?.stop();
      app = await startController();
      restartedAt = Date.now();
      await waitFor(
        'desiredShards 2',
        async () => {
          const a = (await clusterObject()).status?.autoscaling;
          if (a?.desiredShards === 3 && a.message && !heldWhileFilling.includes(a.message.split(':')[0] as string))
            heldWhileFilling.push(a.message.split(':')[0] as string);
          return a?.desiredShards === 2;
        },
        { timeoutMs: 180_000, intervalMs: 250 },
      );
      decidedAt = Date.now();
      const decided = await clusterObject();
      expect(decided.spec?.shards).toBe(3);
      expect(decided.status?.autoscaling).toMatchObject({ lastDecision: 'ScaleIn' });
      expect(decided.status?.autoscaling?.lastDecisionReason).toMatch(
        /^every node's peak over the window is below the scale-in thresholds/,
      );
      const events = await apiJson<{ items: { reason: string; message: string }[] }>(world, 'GET', `/api/v1/namespaces/${NS}/events`);
      expect(events.items.filter((e) => e.reason === 'ScaleIn')).toHaveLength(1);

      // The job's commit: shards 2; the drained shard is retired.
      await world.apply(rendered(2));
      await waitFor(
        '2 shards balanced, the third retired, Active',
        async () => (await balancedAndActive(seed.host, 2)) && (await pods()).length === 2,
        { timeoutMs: 400_000, intervalMs: 250 },
      );
      retiredAt = Date.now();
    } finally {
      report = await workload.stop();
    }
    const odd = Object.entries(report.errors).filter(([m]) => !/^(MOVED|ASK)\b/.test(m));
    process.stdout.write(
      `[autoscaling] 3 -> 2 shards on scaleIn.memoryPercent 10 (a 30 s window): the new controller decided ${((decidedAt - restartedAt) / 1000).toFixed(1)} s after it started ` +
        `(held meanwhile with: ${heldWhileFilling.join(' | ')}); the shard drained and retired ${((retiredAt - decidedAt) / 1000).toFixed(1)} s after the job's change was applied; ` +
        `${report.writes} writes, ${report.reads} reads, ${report.lostWrites} acknowledged writes lost, ${report.staleReads} stale reads, ` +
        `errors other than MOVED/ASK: ${JSON.stringify(Object.fromEntries(odd))}\n`,
    );
    // No decision from the samples the old controller had: the new one waited for a full window of its own.
    expect(decidedAt - restartedAt).toBeGreaterThanOrEqual(30_000);
    expect(heldWhileFilling).toContain('collecting samples');
    expect(report.lostWrites).toBe(0);
    expect(odd).toEqual([]);
  }, 900_000);

  it('load flapping around the lines, git carrying nothing out: one ScaleOut per cooldown at most, no ScaleIn, nothing lost', async () => {
    const seed = { host: await ipOf(`${NAME}-0-0`), port: 6379 };
    /** How many times the controller said `reason`: its recorder folds a repeat of the same words into one Event's count. */
    const said = async (reason: string): Promise<number> =>
      (await apiJson<{ items: { reason: string; count?: number }[] }>(world, 'GET', `/api/v1/namespaces/${NS}/events`)).items
        .filter((e) => e.reason === reason)
        .reduce((n, e) => n + (e.count ?? 1), 0);
    const scaleInsBefore = await said('ScaleIn');
    const scaleOutsBefore = await said('ScaleOut');
    const outCooldownMs = 1000 * AUTOSCALING.scaleOutCooldownSeconds;
    const flapMs = 2.5 * outCooldownMs;
    const workload = startWorkload(seed, PASSWORDS.app, WORKLOAD_KEYS);
    let report: WorkloadReport | undefined;
    /** Every change of status.autoscaling seen, polled every 250 ms while the load flaps. */
    const seen: { atMs: number; desiredShards: number; lastDecision?: string; lastDecisionTime?: string; message?: string }[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const a = (await clusterObject()).status?.autoscaling;
        const last = seen.at(-1);
        if (a && (!last || last.desiredShards !== a.desiredShards || last.lastDecisionTime !== a.lastDecisionTime))
          seen.push({
            atMs: Date.now(),
            desiredShards: a.desiredShards,
            lastDecision: a.lastDecision,
            lastDecisionTime: a.lastDecisionTime,
            message: a.message,
          });
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    let crossingsUp = 0;
    let crossingsDown = 0;
    const t0 = Date.now();
    try {
      const filler = clusterClient(seed, PASSWORDS.app);
      while (Date.now() - t0 < flapMs) {
        // Up: past scaleOut.memoryPercent 20 on a primary, held for a few samples.
        await eachFillKey(
          (key) => filler.set(key, FILL_VALUE),
          async () => (await hottest()) > 22,
        );
        expect(await hottest()).toBeGreaterThan(20);
        crossingsUp += 1;
        await new Promise((r) => setTimeout(r, 6_000));
        // Down: below scaleIn.memoryPercent 10 on every node, held as long.
        await eachFillKey((key) => filler.del(key));
        expect(await hottest()).toBeLessThan(10);
        crossingsDown += 1;
        await new Promise((r) => setTimeout(r, 6_000));
      }
      filler.disconnect();
    } finally {
      watching = false;
      await watcher;
      report = await workload.stop();
    }
    const after = await clusterObject();
    const decisions = seen.filter((s, i) => s.lastDecisionTime && s.lastDecisionTime !== seen[i - 1]?.lastDecisionTime && i > 0);
    const odd = Object.entries(report.errors).filter(([m]) => !/^(MOVED|ASK)\b/.test(m));
    process.stdout.write(
      `[autoscaling] flapping for ${((Date.now() - t0) / 1000).toFixed(0)} s: the load crossed scaleOut ${crossingsUp} times and fell below scaleIn ${crossingsDown} times; ` +
        `decisions: ${decisions.map((d) => `${d.lastDecision} at +${((d.atMs - t0) / 1000).toFixed(1)} s`).join(', ') || 'none'}; ` +
        `desiredShards over time: ${seen.map((s) => `${s.desiredShards}@+${((s.atMs - t0) / 1000).toFixed(1)}s`).join(' ')}; ` +
        `${report.writes} writes, ${report.reads} reads, ${report.lostWrites} acknowledged writes lost, errors other than MOVED/ASK: ${JSON.stringify(Object.fromEntries(odd))}\n`,
    );
    // The load flapped several times more often than the controller decided.
    expect(crossingsUp).toBeGreaterThanOrEqual(4);
    expect(decisions.length).toBeGreaterThanOrEqual(1);
    expect(decisions.every((d) => d.lastDecision === 'ScaleOut')).toBe(true);
    expect((await said('ScaleOut')) - scaleOutsBefore).toBe(decisions.length);
    expect(decisions.length).toBeLessThanOrEqual(Math.floor(flapMs / outCooldownMs) + 1);
    expect(decisions.length).toBeLessThan(crossingsUp);
    // Consecutive decisions at least a cooldown apart (the poll's 250 ms aside), and a standing
    // proposal kept for its whole cooldown whatever the load did meanwhile.
    for (let i = 1; i < decisions.length; i++)
      expect(
        Date.parse(decisions[i]?.lastDecisionTime as string) - Date.parse(decisions[i - 1]?.lastDecisionTime as string),
      ).toBeGreaterThanOrEqual(outCooldownMs - 1_000);
    for (const d of decisions) {
      const decidedMs = Date.parse(d.lastDecisionTime as string);
      const withdrawn = seen.find((s) => s.atMs > d.atMs && s.desiredShards === 2);
      if (withdrawn) expect(withdrawn.atMs - decidedMs).toBeGreaterThanOrEqual(outCooldownMs - 1_000);
    }
    expect(await said('ScaleIn')).toBe(scaleInsBefore);
    expect(seen.every((s) => s.desiredShards === 2 || s.desiredShards === 3)).toBe(true);
    // The controller only proposed: git's count still runs, the cluster stayed Active.
    expect(after.spec?.shards).toBe(2);
    expect(after.status?.state).toBe('Active');
    expect((await pods()).length).toBe(2);
    expect(report.lostWrites).toBe(0);
    expect(odd).toEqual([]);
  }, 600_000);
});
