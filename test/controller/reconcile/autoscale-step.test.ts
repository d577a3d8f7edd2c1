// The autoscaler's I/O glue (reconcile/autoscale-step.ts) over passes of a fake clock: one sample
// per interval into the window, no decision until the window is full (and none after a restart
// until a new one is), a decision vetoed unless the status says Active, an Event that names the
// node, metric, value and threshold, and the record seeded from status after a restart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { valkeyCluster, type ValkeyCluster } from '../../../src/api/index.js';
import type { Answered } from '../../../src/controller/cluster/observation.js';
import type { InvolvedObject } from '../../../src/controller/kube/event-recorder.js';
import type { StatefulSet } from '../../../src/controller/kube/types.js';
import { planAutoscale } from '../../../src/controller/cluster/autoscale.js';
import { autoscaleFacts, cpuLimitCores, settleAutoscale, type AutoscaleMemory } from '../../../src/controller/reconcile/autoscale-step.js';
import type { ClusterObservation } from '../../../src/controller/reconcile/observe-cluster.js';
import type { NodeSession } from '../../../src/controller/valkey/node-session.js';

const captured = readFileSync(new URL('../../fixtures/info/valkey-9.1.2-memory-cpu-stats.txt', import.meta.url), 'utf8');
/** The captured reply with used_memory at `percent` of its 100 MiB maxmemory and the counters at `t` seconds of load. */
const reply = (percent: number, t: number): string =>
  captured
    .replace(/^used_memory:.*$/m, `used_memory:${Math.round((percent / 100) * 104857600)}`)
    .replace(/^used_cpu_user:.*$/m, `used_cpu_user:${(t * 0.1).toFixed(6)}`)
    .replace(/^total_net_input_bytes:.*$/m, `total_net_input_bytes:${t * 1000}`);

const cluster: ValkeyCluster = valkeyCluster().parse({
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyCluster',
  metadata: { name: 'c', namespace: 'ns' },
  spec: {
    configRef: 'standard',
    shards: 1,
    replicasPerShard: 0,
    autoscaling: { minShards: 1, maxShards: 3, scaleOut: { memoryPercent: 80 }, scaleInWindowSeconds: 60 },
  },
});
const statefulSet = (cpu?: string): StatefulSet =>
  ({
    metadata: { name: 'c-0' },
    spec: { template: { spec: { containers: [{ name: 'valkey', ...(cpu ? { resources: { limits: { cpu, memory: '1Gi' } } } : {}) }] } } },
  }) as StatefulSet;

function seenWith(percent: () => number, now: () => number): ClusterObservation {
  const node = {
    state: 'answered',
    pod: 'c-0-0',
    shard: 0,
    ordinal: 0,
    replication: { role: 'primary', linkUp: false, syncing: false, offset: 0 },
  } as unknown as Answered;
  const session = { infoLoad: async () => reply(percent(), now() / 1000) } as unknown as NodeSession;
  return { statefulSets: [statefulSet('500m')], pods: [], foreign: [], observations: [node], sessions: new Map([['c-0-0', session]]) };
}

const about: InvolvedObject = { kind: 'ValkeyCluster', namespace: 'ns', name: 'c' } as InvolvedObject;

describe('the autoscale step', () => {
  it('reads the CPU limit of the valkey container, in cores', () => {
    expect(cpuLimitCores([statefulSet('500m')])).toBe(0.5);
    expect(cpuLimitCores([statefulSet('2')])).toBe(2);
    expect(cpuLimitCores([statefulSet()])).toBeUndefined();
  });

  it('samples once per interval; decides only on a full window; a restart starts empty and waits a new window', async () => {
    let now = 1_000_000;
    let percent = 90;
    const events: string[] = [];
    const recorder = {
      record: (_a: InvolvedObject, type: string, reason: string, message: string) => events.push(`${type} ${reason} ${message}`),
    };
    let memory: AutoscaleMemory = { windows: new Map(), records: new Map() };
    const pass = async () => {
      const seen = seenWith(
        () => percent,
        () => now,
      );
      const facts = await autoscaleFacts('ns/c', cluster, seen, { memory, nowMs: now, intervalMs: 30_000 });
      if (!facts) throw new Error('an autoscaled cluster has autoscale facts');
      // The cluster is whole in this test: the planner's steadiness is its own table test's.
      const { memory: _m, ...rest } = facts;
      const outcome = { ...planAutoscale({ shards: 1, ...rest }), steady: true };
      return settleAutoscale('ns/c', outcome, 'Active', { memory, shards: 1, events: recorder as never, about, nowMs: now });
    };
    const passes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const s = await pass();
      passes.push(`${(now - 1_000_000) / 1000}s ${s?.desiredShards} ${s?.message}`);
      now += i % 2 === 0 ? 10_000 : 20_000; // passes every 10-20 s; a sample only every 30 s
    }
    expect(
      memory.windows
        .get('ns/c')
        ?.samples.get('c-0-0')
        ?.map((x) => (x.atMs - 1_000_000) / 1000),
    ).toEqual([0, 30, 60]);
    expect(passes.slice(0, 3), passes.join('\n')).toSatisfy((p: string[]) => p.every((x) => x.includes(' 1 collecting samples')));
    expect(passes.at(-1)).toMatch(/ 2 ScaleOut to 2 shard\(s\)|decided, waiting for git/);
    expect(events).toEqual([
      "Normal ScaleOut 1 → 2 shard(s) proposed (git carries it out): shard 0's primary c-0-0 at 90% of maxmemory, above memoryPercent 80",
    ]);

    // A restart: the window is gone; the pending decision comes back from status, and nothing new is decided for a window.
    const status = await pass();
    memory = { windows: new Map(), records: new Map() };
    percent = 95;
    const afterRestart = await autoscaleFacts(
      'ns/c',
      cluster,
      seenWith(
        () => percent,
        () => now,
      ),
      {
        memory,
        nowMs: now,
        intervalMs: 30_000,
        ...(status ? { previous: { autoscaling: status } } : {}),
      },
    );
    expect(afterRestart?.window.full).toBe(false);
    expect(afterRestart?.record).toMatchObject({ direction: 'ScaleOut', fromShards: 1, desiredShards: 2 });
  });

  it('a decision while the status this pass writes is not Active is dropped, and the window starts again', () => {
    const memory: AutoscaleMemory = { windows: new Map([['ns/c', { shape: 'x', startedMs: 0, samples: new Map() }]]), records: new Map() };
    const events: string[] = [];
    const s = settleAutoscale(
      'ns/c',
      {
        desiredShards: 2,
        message: 'ScaleOut to 2 shard(s): r',
        steady: true,
        decision: { direction: 'ScaleOut', fromShards: 1, desiredShards: 2, reason: 'r', atMs: 5, lastOutMs: 5 },
      },
      'Updating',
      { memory, shards: 1, events: { record: (...a: unknown[]) => events.push(String(a[2])) } as never, about, nowMs: 5 },
    );
    expect(s).toEqual({ desiredShards: 1, message: 'no decision while the cluster is Updating' });
    expect(events).toEqual([]);
    expect(memory.windows.size).toBe(0);
    expect(memory.records.size).toBe(0);
  });
});
