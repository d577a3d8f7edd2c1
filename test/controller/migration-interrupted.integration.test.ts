// A slot migration interrupted, in the real kube world (issue 13): real kube-apiserver, etcd and
// kube-controller-manager, the kubelet stand-in running real Valkey pods, and iovalkey's cluster
// client (test/support/client-workload.ts) writing and reading keys over all slots throughout,
// never reconfigured. Each case prints acknowledged writes lost, errors other than MOVED/ASK and
// the longest pause, and expects nothing lost and no other error. Both controllers run the classic
// protocol (--slot-migration classic): the markers it leaves are what these cases interrupt. The
// atomic path's interruptions (a job left running, a source or target killed mid-job, a FLUSHALL
// during an import) are in test/valkey/slot-migration-atomic.integration.test.ts.
//
// (a) The controller killed mid-migration: the shipped bundle (dist/valkey-status-sync.mjs, as
//     deployed: ServiceAccount kubeconfig, leader election, production timings) forms 2 shards and
//     starts moving slots to a third. While a slot is marked on both sides (migrating on the
//     source, importing on the target) it is frozen (SIGSTOP, so the markers read next are the
//     ones it leaves) and SIGKILLed: no graceful stop. A new controller must settle the slot and
//     finish. The new one runs in-process with test timings and a 128-slot batch: the bundle's
//     production pacing (64 slots, then 2 s) would take minutes for the ~5,400 slots left; the
//     healing and moving code is the same.
// (b) A node restarted mid-migration (3 -> 4 shards): the source primary's container is stopped
//     as the kubelet stops one (SIGTERM: Valkey saves its data and exits) and the kubelet stand-in
//     starts it again in the same pod, nodes.conf and data kept, as a container restart does. The
//     migration must be healed and finish. Where a restart lands decides whether anything is left
//     to heal (one that cuts off the source's SETSLOT NODE is settled by gossip: the target
//     already owns the slot), so the controller's migration commands are held at a gate while it
//     is about to move a marked slot's keys, the source restarts, and the command then finds it
//     restarted, with the slot marked on both sides.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis as Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/controller/app.js';
import type { ClusterNode } from '../../src/controller/cluster/cluster-view.js';
import { countSlots } from '../../src/api/contract/slots.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';
import type { NodeSession, OpenSession } from '../../src/controller/valkey/node-session.js';
import { ensureTools } from '../support/apiserver.js';
import { clusterClient, loadKeys, startWorkload, type Workload, type WorkloadReport } from '../support/client-workload.js';
import { CONTROLLER_NAMESPACE, type World } from '../support/controller/api-world.js';
import { apiJson, clusterPods } from '../support/controller/day2-world.js';
import {
  controllerConnection,
  startWorkloadController,
  startWorkloadWorld,
  workloadClusterObjects,
} from '../support/controller/workload-world.js';
import type { KubeWorld } from '../support/kube-world.js';
import { waitFor } from '../support/process.js';

const BUNDLE = resolve(import.meta.dirname, '../../dist/valkey-status-sync.mjs');
const NS = 'interrupted';
const NAME = 'mig';
const REPLICATION_PASSWORD = 'replication-password-for-interruptions';
const CONTROLLER_PASSWORD = 'controller-password-for-interruptions';
const APP_PASSWORD = 'app-password-for-interruptions';
const KEYS = Number(process.env.VALKEY_KRM_INTERRUPTED_KEYS ?? 15_000);

interface PodObject {
  metadata: { name: string };
  status?: { podIP?: string; containerStatuses?: { restartCount?: number }[] };
}
interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface ClusterObject {
  status?: { state?: string; message?: string; conditions?: Condition[] };
}

const rendered = (shards: number) =>
  workloadClusterObjects(
    { replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD, app: APP_PASSWORD },
    { name: NAME, namespace: NS },
    { shards, replicasPerShard: 1 },
  );

/** A plain connection to one pod as the controller user: how the test reads what a node says about itself. */
const nodeConnection = (host: string) => controllerConnection(host, CONTROLLER_PASSWORD);

async function clusterNodesOf(conn: Valkey): Promise<ClusterNode[]> {
  return parseClusterNodes(String(await conn.call('CLUSTER', 'NODES')).trim());
}

/** `[slot->-id]` / `[slot-<-id]` on a node's own line, as CLUSTER NODES prints them. */
function markersOf(pod: string, nodes: readonly ClusterNode[]): string[] {
  const self = nodes.find((n) => n.flags.has('myself'));
  return [
    ...(self?.migrating ?? []).map((m) => `${pod} [${m.slot}->-${m.nodeId.slice(0, 8)}]`),
    ...(self?.importing ?? []).map((m) => `${pod} [${m.slot}-<-${m.nodeId.slice(0, 8)}]`),
  ];
}

/** Markers for the log, one entry per pod and direction: `pod [first..last->-id] (n slots)`. */
function brief(markers: readonly string[]): string {
  const groups = new Map<string, number[]>();
  for (const m of markers) {
    const [, pod, slot, arrow, id] = /^(\S+) \[(\d+)(->-|-<-)(\w+)\]$/.exec(m) ?? [];
    const key = `${pod} ${arrow} ${id}`;
    groups.set(key, [...(groups.get(key) ?? []), Number(slot)]);
  }
  return (
    [...groups]
      .map(([key, slots]) => {
        const [pod, arrow, id] = key.split(' ');
        return `${pod} [${Math.min(...slots)}..${Math.max(...slots)}${arrow}${id}] (${slots.length} slot(s))`;
      })
      .join(', ') || 'no marker'
  );
}

/** Holds the controller's slot-migration commands (SETSLOT, GETKEYSINSLOT, MIGRATE) while closed. */
class MigrationGate {
  private closed: { opened: Promise<void>; open: () => void } | undefined;
  /** The command waiting at the closed gate and the node it is for. */
  waiting: { command: string; host: string } | undefined;

  close(): void {
    if (this.closed) return;
    let open = (): void => undefined;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    this.closed = { opened, open };
  }

  open(): void {
    this.closed?.open();
    this.closed = undefined;
  }

  private async pass(command: string, host: string): Promise<void> {
    while (this.closed) {
      this.waiting = { command, host };
      await this.closed.opened;
    }
    this.waiting = undefined;
  }

  wrap(open: OpenSession): OpenSession {
    return async (endpoint, tls, namespace) => {
      const s = await open(endpoint, tls, namespace);
      const gated: NodeSession = {
        ...s,
        setSlot: async (slot, state) => {
          await this.pass(`SETSLOT ${typeof state === 'string' ? state : Object.keys(state).join()}`, endpoint.host);
          return s.setSlot(slot, state);
        },
        getKeysInSlot: async (...a) => {
          await this.pass('GETKEYSINSLOT', endpoint.host);
          return s.getKeysInSlot(...a);
        },
        migrateKeys: async (...a) => {
          await this.pass('MIGRATE', endpoint.host);
          return s.migrateKeys(...a);
        },
      };
      return gated;
    };
  }
}

function printReport(what: string, report: WorkloadReport, elapsedMs: number, extra: string): [string, number][] {
  const odd = Object.entries(report.errors).filter(([m]) => !/^(MOVED|ASK)\b/.test(m));
  process.stdout.write(
    `[migration-interrupted] ${what} with ${KEYS} keys in ${(elapsedMs / 1000).toFixed(1)} s: ${report.writes} writes, ${report.reads} reads, ` +
      `${report.lostWrites} acknowledged writes lost, ${report.staleReads} stale reads, errors other than MOVED/ASK: ${JSON.stringify(Object.fromEntries(odd))}, ` +
      `longest pause ${report.maxPauseMs.toFixed(0)} ms; ${extra}\n`,
  );
  return odd;
}

describe('a slot migration interrupted, in the kube world', () => {
  let world: KubeWorld;
  let prepared: World;
  let bundle: ChildProcess | undefined;
  let app: App | undefined;
  let workload: Workload | undefined;
  let secretsDir: string | undefined;
  const bundleLog: string[] = [];
  const logs: string[] = [];
  const metrics = controllerMetrics();
  const gate = new MigrationGate();

  const request = <T>(method: string, path: string): Promise<T> => apiJson<T>(world, method, path);
  const pods = (): Promise<PodObject[]> => clusterPods<PodObject>(world, NS, NAME);
  const clusterObject = () => request<ClusterObject>('GET', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${NS}/valkeyclusters/${NAME}`);
  const eventReasons = async (): Promise<string[]> =>
    (await request<{ items: { reason: string }[] }>('GET', `/api/v1/namespaces/${NS}/events`)).items.map((e) => e.reason);
  const counter = async (name: string): Promise<number> => {
    const m = (await metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
    return (m?.values ?? []).reduce((n, v) => n + Number(v.value), 0);
  };

  /** Each pod's own CLUSTER NODES, by pod name. */
  const views = async (): Promise<Map<string, ClusterNode[]>> => {
    const out = new Map<string, ClusterNode[]>();
    for (const p of await pods()) {
      const ip = p.status?.podIP;
      if (!ip) continue;
      const conn = nodeConnection(ip);
      try {
        await conn.connect();
        out.set(p.metadata.name, await clusterNodesOf(conn));
      } finally {
        conn.disconnect();
      }
    }
    return out;
  };

  /** The primaries' slot counts as every pod sees them, and any marker any pod reports about itself. */
  const settled = async (shards: number): Promise<{ ok: boolean; slots: number[]; markers: string[] }> => {
    const all = await views();
    const markers = [...all].flatMap(([pod, nodes]) => markersOf(pod, nodes));
    const share = Math.floor(16384 / shards);
    let slots: number[] = [];
    let ok = all.size === 2 * shards && markers.length === 0;
    for (const nodes of all.values()) {
      const counts = nodes
        .filter((n) => n.flags.has('master') && n.slots.length > 0)
        .map((n) => countSlots(n.slots))
        .sort((a, b) => a - b);
      slots = counts;
      ok &&= counts.length === shards && counts.every((n) => n === share || n === share + 1);
    }
    return { ok, slots, markers };
  };

  /** Done: balanced as every pod sees it, no marker anywhere, Active, SlotMigration at rest. */
  const waitUntilFinished = async (shards: number): Promise<ClusterObject> => {
    let last: ClusterObject = {};
    await waitFor(
      `${shards} shards balanced, no slot marked, Active`,
      async () => {
        last = await clusterObject();
        if (last.status?.state !== 'Active') return false;
        const migration = last.status.conditions?.find((c) => c.type === 'SlotMigration');
        if (migration?.reason !== 'Balanced') return false;
        return (await settled(shards)).ok;
      },
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    return last;
  };

  /**
   * Polls every primary's own CLUSTER NODES line until one shows a slot migrating or importing,
   * then calls `act` with the primaries; `act` says whether it took (true) or the moment passed
   * (false, keep polling).
   */
  const whileASlotIsMarked = async (
    what: string,
    act: (primaries: { pod: string; ip: string; id: string; conn: Valkey }[]) => Promise<boolean>,
    timeoutMs: number,
  ): Promise<void> => {
    const podList = await pods();
    const ipToPod = new Map(podList.map((p) => [p.status?.podIP ?? '', p.metadata.name]));
    const seed = nodeConnection(podList.find((p) => p.metadata.name === `${NAME}-0-0`)?.status?.podIP as string);
    await seed.connect();
    const masters = (await clusterNodesOf(seed)).filter((n) => n.flags.has('master'));
    seed.disconnect();
    const primaries = masters.map((n) => ({ pod: ipToPod.get(n.ip) ?? n.ip, ip: n.ip, id: n.id, conn: nodeConnection(n.ip) }));
    try {
      await Promise.all(primaries.map((p) => p.conn.connect()));
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const seen = (await Promise.all(primaries.map(async (p) => markersOf(p.pod, await clusterNodesOf(p.conn))))).flat();
        if (seen.length > 0 && (await act(primaries))) return;
        await sleep(5);
      }
      throw new Error(`${what}: no slot was seen marked within ${timeoutMs} ms`);
    } finally {
      for (const p of primaries) p.conn.disconnect();
    }
  };

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    ({ world, prepared } = await startWorkloadWorld({ namespace: NS, replicationPassword: REPLICATION_PASSWORD }));
    await world.apply(rendered(2));
    secretsDir = mkdtempSync(join(tmpdir(), 'valkey-krm-interrupted-'));
    const passwordFile = join(secretsDir, 'password');
    writeFileSync(passwordFile, `${CONTROLLER_PASSWORD}\n`);
    // The shipped bundle, as deployed; it forms the cluster and starts case (a)'s migration.
    bundle = spawn(
      process.execPath,
      [
        BUNDLE,
        '--kubeconfig',
        prepared.controllerKubeconfig,
        '--namespace',
        NS,
        '--password-file',
        passwordFile,
        '--http-address',
        '127.0.0.1:0',
        '--slot-migration',
        'classic',
      ],
      { env: { ...process.env, POD_NAME: 'status-sync-killed', POD_NAMESPACE: CONTROLLER_NAMESPACE }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    bundle.stderr?.setEncoding('utf8').on('data', (c: string) => bundleLog.push(c));
    bundle.stdout?.resume();
    await waitFor('2 shards Active (formed by the bundle)', async () => (await clusterObject()).status?.state === 'Active', {
      timeoutMs: 180_000,
      intervalMs: 250,
      abort: () => (bundle?.exitCode != null ? `the bundle exited with ${bundle.exitCode}` : undefined),
    });
    const seed = { host: (await pods())[0]?.status?.podIP as string, port: 6379 };
    const loader = clusterClient(seed, APP_PASSWORD);
    await loadKeys(loader, KEYS);
    loader.disconnect();
  }, 300_000);

  afterAll(async () => {
    await workload?.stop().catch(() => undefined);
    if (bundle && bundle.exitCode === null && bundle.signalCode === null) bundle.kill('SIGKILL');
    await app?.stop();
    if (process.env.VALKEY_KRM_TEST_LOGS === '1') process.stderr.write(bundleLog.join('') + logs.join(''));
    await world?.stop();
    prepared?.cleanup();
    if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
  }, 60_000);

  const seedOf = async () => ({ host: (await pods())[0]?.status?.podIP as string, port: 6379 });

  /** How both cases end: no slot marked on any pod, balanced per status, and the client lost nothing. */
  const expectFinished = async (markers: readonly string[], report: WorkloadReport, odd: readonly unknown[]): Promise<void> => {
    expect(markers).toEqual([]);
    expect((await clusterObject()).status?.conditions?.find((c) => c.type === 'SlotMigration')).toMatchObject({
      status: 'False',
      reason: 'Balanced',
    });
    expect(report.lostWrites).toBe(0);
    expect(odd).toEqual([]);
  };

  it('(a) the controller SIGKILLed while a slot is marked: a new controller settles the slot and finishes 2 -> 3 shards, nothing lost', async () => {
    const proc = bundle as ChildProcess;
    workload = startWorkload(await seedOf(), APP_PASSWORD, KEYS);
    const t0 = Date.now();
    await world.apply(rendered(3));
    let report: WorkloadReport | undefined;
    let left: string[] = [];
    let statusAtKill = '';
    try {
      await waitFor('the bundle moving slots', async () => (await clusterObject()).status?.message?.startsWith('moving slots') === true, {
        timeoutMs: 180_000,
        intervalMs: 200,
        abort: () => (proc.exitCode != null ? `the bundle exited with ${proc.exitCode}` : undefined),
      });
      await whileASlotIsMarked(
        'killing the controller mid-slot',
        async (primaries) => {
          // Frozen at once, so what the primaries say next is what a kill leaves behind.
          proc.kill('SIGSTOP');
          // Commands it wrote before it froze are in the kernel's socket buffers and still reach the
          // nodes (a whole batch of SETSLOTs, under load): read until two reads 300 ms apart agree.
          const read = async () => (await Promise.all(primaries.map(async (p) => markersOf(p.pod, await clusterNodesOf(p.conn))))).flat();
          left = await read();
          for (let i = 0; i < 20; i++) {
            await sleep(300);
            const again = await read();
            if (JSON.stringify(again) === JSON.stringify(left)) break;
            left = again;
          }
          // Marked on both sides, inside the slot's move. (Frozen after the target took the slot,
          // only the source's marker is left, and gossip clears it: nothing for a controller to do.)
          if (!left.some((m) => m.includes('->-')) || !left.some((m) => m.includes('-<-'))) {
            proc.kill('SIGCONT');
            return false;
          }
          proc.kill('SIGKILL');
          return true;
        },
        120_000,
      );
      const exit = await new Promise<NodeJS.Signals | null>((r) =>
        proc.exitCode !== null || proc.signalCode !== null ? r(proc.signalCode) : proc.once('exit', (_c, s) => r(s)),
      );
      expect(exit).toBe('SIGKILL');
      statusAtKill = (await clusterObject()).status?.message ?? '';
      // What the dead controller left stays there: nothing else settles it. (Valkey 8+ replicates
      // SETSLOT to replicas, so their own lines carry the same markers.)
      await sleep(1_000);
      const everywhere = (await settled(3)).markers;
      process.stdout.write(
        `[migration-interrupted] (a) controller SIGKILLed at "${statusAtKill}"; it left ${brief(left)} (all pods: ${brief(everywhere)})\n`,
      );
      expect(everywhere).toEqual(expect.arrayContaining(left));

      app = await startWorkloadController({
        controllerKubeconfig: prepared.controllerKubeconfig,
        namespace: NS,
        controllerPassword: CONTROLLER_PASSWORD,
        rebalanceBatchSlots: 128,
        slotMigration: 'classic',
        wrapOpen: (open) => gate.wrap(open),
        log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
        metrics,
      });
      await waitUntilFinished(3);
    } finally {
      report = await workload.stop();
      workload = undefined;
    }
    const done = await settled(3);
    const odd = printReport(
      '(a) 2 -> 3 shards, controller killed',
      report,
      Date.now() - t0,
      `slots per primary ${done.slots.join('/')}, slots repaired by the new controller ${await counter('valkey_status_sync_slot_repairs_total')}, ` +
        `slots moved by it ${await counter('valkey_status_sync_slots_moved_total')}`,
    );
    expect(left.length).toBeGreaterThan(0);
    // The new controller settled what the killed one left, then finished.
    expect(await counter('valkey_status_sync_slot_repairs_total')).toBeGreaterThan(0);
    expect(await eventReasons()).toContain('SlotsHealed');
    await expectFinished(done.markers, report, odd);
  }, 600_000);

  it('(b) the source primary restarted while a slot is marked: the migration is healed and 3 -> 4 shards finishes, nothing lost', async () => {
    expect(app, 'case (a) started the controller').toBeDefined();
    const repairsBefore = await counter('valkey_status_sync_slot_repairs_total');
    workload = startWorkload(await seedOf(), APP_PASSWORD, KEYS);
    const t0 = Date.now();
    await world.apply(rendered(4));
    let report: WorkloadReport | undefined;
    let restarted = '';
    let heldAt: string[] = [];
    let heldCommand = '';
    let cameBackWith: string[] = [];
    try {
      // The new shard's primary is in the cluster and slots are moving to it.
      await waitFor('slots moving to shard 3', async () => (await clusterObject()).status?.message?.startsWith('moving slots') === true, {
        timeoutMs: 120_000,
        intervalMs: 100,
      });
      await whileASlotIsMarked(
        'restarting the source primary mid-slot',
        async (primaries) => {
          gate.close();
          const held = Date.now();
          while (!gate.waiting && Date.now() - held < 2_000) await sleep(10);
          const waiting = gate.waiting;
          heldAt = (await Promise.all(primaries.map(async (p) => markersOf(p.pod, await clusterNodesOf(p.conn))))).flat();
          // Held at a source command of the marked slot's key moving (both sides marked): the
          // command held will find the source restarted. (Cut off
          // later, at the handover, the target already owns the slot and gossip tells the
          // restarted source so, which clears its marker without a heal.)
          const source = primaries.find((p) => p.ip === waiting?.host);
          const pid = source && world.kubelet.pod(NS, source.pod)?.pid;
          const bothSides = heldAt.some((m) => m.includes('->-')) && heldAt.some((m) => m.includes('-<-'));
          const beforeKeysMoved = waiting?.command === 'GETKEYSINSLOT' || waiting?.command === 'MIGRATE';
          if (!beforeKeysMoved || !source || pid === undefined || !bothSides) {
            gate.open();
            return false;
          }
          // What the kubelet does to restart a container: SIGTERM (Valkey saves and exits), then it starts it again in the same pod.
          process.kill(-pid, 'SIGTERM');
          restarted = source.pod;
          heldCommand = `${waiting.command} on ${source.pod}`;
          return true;
        },
        60_000,
      );
      try {
        await waitFor(
          `${restarted} restarted in its pod and answering`,
          async () => {
            const pod = (await pods()).find((p) => p.metadata.name === restarted);
            if ((pod?.status?.containerStatuses?.[0]?.restartCount ?? 0) === 0) return false;
            const conn = nodeConnection(pod?.status?.podIP as string);
            try {
              await conn.connect();
              cameBackWith = markersOf(restarted, await clusterNodesOf(conn));
              return true;
            } finally {
              conn.disconnect();
            }
          },
          { timeoutMs: 60_000, intervalMs: 200 },
        );
      } catch (e) {
        // What the kubelet reports (state, last exit with its log tail) says why it did not come back.
        const pod = (await pods()).find((p) => p.metadata.name === restarted);
        throw new Error(`${e instanceof Error ? e.message : String(e)}; pod status: ${JSON.stringify(pod?.status?.containerStatuses)}`);
      }
      process.stdout.write(
        `[migration-interrupted] (b) restarted ${restarted} while ${brief(heldAt)}, the controller's next command ${heldCommand}; it came back with ${brief(cameBackWith)}\n`,
      );
      gate.open();
      await waitUntilFinished(4);
    } finally {
      gate.open();
      report = await workload.stop();
      workload = undefined;
    }
    const done = await settled(4);
    const repairs = (await counter('valkey_status_sync_slot_repairs_total')) - repairsBefore;
    const odd = printReport(
      `(b) 3 -> 4 shards, ${restarted} restarted`,
      report,
      Date.now() - t0,
      `slots per primary ${done.slots.join('/')}, slots repaired ${repairs}`,
    );
    // The step cut off by the restart left the slot marked; the controller settled it.
    expect(repairs).toBeGreaterThan(0);
    await expectFinished(done.markers, report, odd);
  }, 600_000);
});
