// One merge that changes the image and `shards` together (a normal pull request), in the real kube
// world: kube-apiserver, etcd, kube-controller-manager, the kubelet stand-in running Valkey 9.1.2
// pods, the controller in-process with --max-concurrent-rolls 1. A second cluster's image changes as
// soon as the first one's roll runs, so its roll waits for the fleet's roll slot. Both clusters
// must converge (every pod on the new image, slots spread as `shards` asks, Active) with a client
// writing and reading each of them throughout, and no acknowledged write lost.
//
// Before the pass planner (issue 21) this livelocked: the rebalancer learnt "a roll is under way"
// from the previous status's RollInProgress and waited for it, the roll waited on the rebalancer's
// "slots move once the roll is finished", and the RollInProgress it kept writing held the fleet's
// roll slot, so the second cluster's roll never started either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../src/controller/app.js';
import { jsonLogger } from '../../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../../src/controller/runtime/metrics.js';
import { parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';
import { countSlots } from '../../../src/api/contract/slots.js';
import { ensureTools } from '../../support/apiserver.js';
import { clusterClient, loadKeys, startWorkload, type Workload, type WorkloadReport } from '../../support/client-workload.js';
import type { KubeWorld } from '../../support/kube-world.js';
import { apiJson, clusterPods, stopControllerAndWorld } from '../../support/controller/day2-world.js';
import {
  controllerCommand,
  startWorkloadController,
  startWorkloadWorld,
  workloadClusterObjects,
  type RenderedObject,
} from '../../support/controller/workload-world.js';
import { waitFor } from '../../support/process.js';

const NS = 'roll-and-scale';
/** The cluster whose merge changes both the image and `shards`. */
const BOTH = 'both';
/** The cluster whose roll waits for the roll slot meanwhile. */
const OTHER = 'other';
const REPLICATION_PASSWORD = 'replication-password-for-roll-and-scale';
const CONTROLLER_PASSWORD = 'controller-password-for-roll-and-scale';
const APP_PASSWORD = 'app-password-for-roll-and-scale';
const KEYS = Number(process.env.VALKEY_KRM_ROLL_AND_SCALE_KEYS ?? 20_000);
const OLD = 'valkey/valkey:9.0.1';
const NEW = 'valkey/valkey:9.0.2';

interface PodObject {
  metadata: { name: string };
  spec: { containers: { image: string }[] };
  status?: { podIP?: string };
}
interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface ClusterObject {
  metadata?: { generation?: number };
  status?: { state?: string; message?: string; observedGeneration?: number; conditions?: Condition[] };
}

const activeForSpec = (c: ClusterObject): boolean => c.status?.state === 'Active' && c.status.observedGeneration === c.metadata?.generation;
const conditionOf = (c: ClusterObject, type: string): Condition | undefined => c.status?.conditions?.find((x) => x.type === type);

const ROLL_STEPS = ['roll: evicted', 'roll: failed over'];
const TOPOLOGY_STEPS = ['rebalance: moved', 'rebalance: healed', 'shard retired'];

/** The controller's JSON log lines that record a step it took, with their times. */
function controllerSteps(lines: readonly string[]): { cluster: string; msg: string; ts: number }[] {
  return lines.flatMap((line) => {
    try {
      const o = JSON.parse(line) as { cluster?: string; msg?: string; ts?: string };
      return o.cluster && o.msg && o.ts ? [{ cluster: o.cluster, msg: o.msg, ts: Date.parse(o.ts) }] : [];
    } catch {
      return [];
    }
  });
}

/** The cluster's rendered objects with every container on `image`. */
function rendered(name: string, shards: number, image: string): RenderedObject[] {
  const objects = workloadClusterObjects(
    { replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD, app: APP_PASSWORD },
    { name, namespace: NS },
    { shards, replicasPerShard: 1 },
  );
  for (const o of objects) {
    if (o.kind !== 'StatefulSet') continue;
    const spec = o.spec as { template: { spec: { containers: { image: string }[] } } };
    for (const c of spec.template.spec.containers) c.image = image;
  }
  return objects;
}

describe('one merge changes the image and shards together, while a second cluster waits for the roll slot', () => {
  let world: KubeWorld;
  let app: App | undefined;
  const logs: string[] = [];
  const metrics = controllerMetrics();

  const request = <T>(method: string, path: string): Promise<T> => apiJson<T>(world, method, path);
  const pods = (name: string): Promise<PodObject[]> => clusterPods<PodObject>(world, NS, name);
  const clusterObject = (name: string) =>
    request<ClusterObject>('GET', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${NS}/valkeyclusters/${name}`);
  const seedOf = async (name: string) => ({
    host: (await pods(name)).find((p) => p.metadata.name === `${name}-0-0`)?.status?.podIP as string,
    port: 6379,
  });
  /** Slots each primary owns, as shard 0's first pod sees the cluster. */
  const slotsByPrimary = async (name: string): Promise<number[]> => {
    const { host } = await seedOf(name);
    return parseClusterNodes((await controllerCommand(host, CONTROLLER_PASSWORD, 'CLUSTER', 'NODES')).trim())
      .filter((n) => n.flags.has('master'))
      .map((n) => countSlots(n.slots))
      .sort((a, b) => a - b);
  };
  const balanced = (slots: readonly number[], shards: number): boolean =>
    slots.length === shards && slots.every((n) => n === Math.floor(16384 / shards) || n === Math.ceil(16384 / shards));
  const allOn = async (name: string, image: string, count: number): Promise<boolean> => {
    const ps = await pods(name);
    return ps.length === count && ps.every((p) => p.spec.containers[0]?.image === image);
  };

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    const started = await startWorkloadWorld({ namespace: NS, replicationPassword: REPLICATION_PASSWORD });
    world = started.world;
    await world.apply([...rendered(BOTH, 3, OLD), ...rendered(OTHER, 3, OLD)]);
    app = await startWorkloadController({
      controllerKubeconfig: started.prepared.controllerKubeconfig,
      namespace: NS,
      controllerPassword: CONTROLLER_PASSWORD,
      rebalanceBatchSlots: 512,
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics,
    });
    await waitFor(
      'both clusters Active',
      async () => (await clusterObject(BOTH)).status?.state === 'Active' && (await clusterObject(OTHER)).status?.state === 'Active',
      { timeoutMs: 240_000, intervalMs: 250 },
    );
    for (const name of [BOTH, OTHER]) {
      const loader = clusterClient(await seedOf(name), APP_PASSWORD);
      await loadKeys(loader, KEYS);
      loader.disconnect();
    }
  }, 400_000);

  afterAll(async () => {
    await stopControllerAndWorld(app, logs, world);
  }, 60_000);

  /**
   * Merges `image` + `shards` on BOTH, and `image` on OTHER once BOTH's roll runs; waits until both
   * converge, with a workload on each, and checks what status said on the way.
   */
  async function mergeAndConverge(direction: string, shards: number, image: string): Promise<void> {
    const workloads: [string, Workload][] = [];
    for (const name of [BOTH, OTHER]) workloads.push([name, startWorkload(await seedOf(name), APP_PASSWORD, KEYS)]);
    const seen = { otherWaitedForSlot: false, rolledWhileMigrating: false };
    const logsBefore = logs.length;
    let otherMerged = false;
    const t0 = Date.now();
    await world.apply(rendered(BOTH, shards, image));
    const reports: Record<string, WorkloadReport> = {};
    let last: Record<string, ClusterObject['status']> = {};
    let shown = '';
    const progress = setInterval(() => {
      const line = Object.entries(last)
        .map(([name, st]) => `${name}: ${st?.state} (${st?.message})`)
        .join(' | ');
      if (line !== shown) process.stdout.write(`[roll-and-scale] ${direction} +${((Date.now() - t0) / 1000).toFixed(0)} s: ${line}\n`);
      shown = line;
    }, 5_000);
    try {
      await waitFor(
        `${BOTH}: ${shards} shards balanced on ${image}; ${OTHER} on ${image}; both Active`,
        async () => {
          const [both, other] = [await clusterObject(BOTH), await clusterObject(OTHER)];
          last = { [BOTH]: both.status, [OTHER]: other.status };
          const bothRoll = conditionOf(both, 'RollInProgress')?.status === 'True';
          if (bothRoll && !otherMerged) {
            otherMerged = true;
            await world.apply(rendered(OTHER, 3, image));
          }
          if (/roll slot/.test(JSON.stringify(other.status?.conditions ?? []))) seen.otherWaitedForSlot = true;
          const migrating = conditionOf(both, 'SlotMigration');
          if (bothRoll && migrating?.status === 'True' && migrating.reason === 'Migrating') seen.rolledWhileMigrating = true;
          if (!otherMerged || !activeForSpec(both) || !activeForSpec(other)) return false;
          return (await allOn(BOTH, image, shards * 2)) && (await allOn(OTHER, image, 6)) && balanced(await slotsByPrimary(BOTH), shards);
        },
        { timeoutMs: 420_000, intervalMs: 250 },
      );
    } catch (e) {
      // What each cluster said last, so a timeout shows where it stood.
      process.stdout.write(`[roll-and-scale] ${direction}: last status ${JSON.stringify(last)}\n`);
      throw e;
    } finally {
      clearInterval(progress);
      // A roll re-creates every pod with a new address: read back from where the cluster is now.
      for (const [name, w] of workloads) reports[name] = await w.stop(await seedOf(name));
    }
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    for (const [name, r] of Object.entries(reports)) {
      process.stdout.write(
        `[roll-and-scale] ${direction}: ${name} converged within ${seconds} s; ${r.writes} writes, ${r.reads} reads, ` +
          `${r.lostWrites} acknowledged writes lost, ${r.staleReads} stale reads, longest pause ${r.maxPauseMs.toFixed(0)} ms, ` +
          `errors: ${JSON.stringify(r.errors)}\n`,
      );
    }
    process.stdout.write(`[roll-and-scale] ${direction}: ${JSON.stringify(seen)}\n`);
    // What the controller did, in the order it did it (its own log, not two status reads a moment apart).
    const steps = controllerSteps(logs.slice(logsBefore));
    const at = (cluster: string, kinds: readonly string[]) =>
      steps.filter((x) => x.cluster === `${NS}/${cluster}` && kinds.includes(x.msg)).map((x) => x.ts);
    const bothRoll = at(BOTH, ROLL_STEPS);
    const otherRoll = at(OTHER, ROLL_STEPS);
    const bothTopology = at(BOTH, TOPOLOGY_STEPS);
    process.stdout.write(
      `[roll-and-scale] ${direction}: ${bothTopology.length} topology steps on ${BOTH}, then ${bothRoll.length} roll steps; ` +
        `${otherRoll.length} roll steps on ${OTHER}\n`,
    );
    // The steps in order, seconds after the merge, so a failed order below shows what happened.
    const timeline = steps
      .filter((x) => [...ROLL_STEPS, ...TOPOLOGY_STEPS].includes(x.msg))
      .map((x) => `+${((x.ts - t0) / 1000).toFixed(1)} s ${x.cluster.split('/')[1]} ${x.msg}`);
    process.stdout.write(`[roll-and-scale] ${direction}: steps: ${timeline.join('; ')}\n`);
    for (const r of Object.values(reports)) {
      expect(r.lostWrites).toBe(0);
      expect(r.writes).toBeGreaterThan(100);
    }
    expect(seen).toEqual({ otherWaitedForSlot: true, rolledWhileMigrating: false });
    // Never both at once: every slot move (and a drained shard's retirement) comes before the
    // roll's first step or after its last. Which goes first depends on what the controller sees
    // first: both due in one pass, the slots move first (the planner's order); a pass that sees the
    // StatefulSets' new template before the ValkeyCluster's new shards count (the order a GitOps
    // tool applies them in) starts the roll, and a roll under way keeps its turn.
    expect(bothTopology.length).toBeGreaterThan(0);
    expect(bothRoll.length).toBeGreaterThan(0);
    const [rollStart, rollEnd] = [Math.min(...bothRoll), Math.max(...bothRoll)];
    expect(bothTopology.filter((t) => t > rollStart && t < rollEnd)).toEqual([]);
    // --max-concurrent-rolls 1: the second cluster's first step comes after the first cluster's last.
    expect(otherRoll.length).toBeGreaterThan(0);
    expect(Math.max(...bothRoll)).toBeLessThan(Math.min(...otherRoll));
  }

  it('out: 3 -> 4 shards and a new image in one merge', async () => {
    await mergeAndConverge('out (3 -> 4 shards, 9.0.1 -> 9.0.2)', 4, NEW);
  }, 600_000);

  it('in: 4 -> 3 shards and the image back in one merge; the drained shard is retired', async () => {
    await mergeAndConverge('in (4 -> 3 shards, 9.0.2 -> 9.0.1)', 3, OLD);
    const sets = await request<{ items: { metadata: { name: string } }[] }>('GET', `/apis/apps/v1/namespaces/${NS}/statefulsets`);
    expect(sets.items.map((s) => s.metadata.name).filter((n) => n.startsWith(`${BOTH}-`))).toEqual([`${BOTH}-0`, `${BOTH}-1`, `${BOTH}-2`]);
  }, 600_000);
});
