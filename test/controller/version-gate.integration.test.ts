// The runtime version check against real servers, with the strict policy (the only one production
// can use): Debian's redis-server has no valkey_version and Valkey 8.0.1 is below the floor, so
// both must be refused before they join anything; a refused pod does not hold up the good ones.
// These are the INFO-based gate: the 8.0.1 pods here start on the rendered users.acl without
// `+cluster|syncslots` (aclForPre9Builds), standing in for a binary that starts but reports a
// version below 9.0.1, as 9.0.0 would. What 8.0.1 really does with the file as rendered (it exits
// at start-up; the version comes from its termination message) is below-floor.integration.test.ts.
// The second half runs the shipped bundle, dist/valkey-status-sync.mjs, exactly as deployed:
// production wiring (pod IP, port 6379, strict policy), the ServiceAccount's RBAC, leader
// election, probes, metrics and a graceful SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../support/exec.js';
import {
  clusterInfo,
  clusterNodes,
  createCluster,
  getLease,
  inNamespace,
  useKubeWorld,
  startController,
  createPod,
  waitForCluster,
  CONTROLLER_NAMESPACE,
  type ClusterObject,
} from '../support/controller/world.js';
import { waitFor } from '../support/process.js';

const BUNDLE = resolve(import.meta.dirname, '../../dist/valkey-status-sync.mjs');
const failed = (c: { status?: { state?: string } }) => c.status?.state === 'Failed';

describe('the version gate refuses what is not Valkey 9.0.1+', () => {
  const suite = useKubeWorld();

  // The same refusal for either kind of server: only what it runs, and so the words, differ.
  it.each([
    {
      title: 'strict policy: Debian redis-server is rejected, the cluster is Failed, no node is joined',
      ns: 'gate',
      name: 'legacy',
      runs: 'redis',
      message:
        'Pod gate/legacy-0-0 runs no valkey_version: not Valkey (redis_version 7.0.15); valkey-krm requires Valkey 9.0.1 or later (the version floor), so the node was not joined; ' +
        'Pod gate/legacy-0-1 runs no valkey_version: not Valkey (redis_version 7.0.15); valkey-krm requires Valkey 9.0.1 or later (the version floor), so the node was not joined. Failed is terminal: fix this, then delete and re-create the ValkeyCluster (the controller does not retry a failed creation)',
      nodes: [
        { pod: 'legacy-0-0', shard: 0, ip: '127.0.0.1', role: 'unknown', health: 'failed' },
        { pod: 'legacy-0-1', shard: 0, ip: '127.0.0.1', role: 'unknown', health: 'failed' },
      ],
      reason: 'NotValkey',
      metric: 'valkey_status_sync_nodes{version="not-valkey"} 2',
    },
    {
      title: 'strict policy: Valkey 8.0.1 is rejected with its version named, the cluster is Failed, no node is joined',
      ns: 'gate-801',
      name: 'old',
      runs: '8.0.1',
      message:
        'Pod gate-801/old-0-0 runs valkey_version 8.0.1; valkey-krm requires Valkey 9.0.1 or later (the version floor), so the node was not joined; ' +
        'Pod gate-801/old-0-1 runs valkey_version 8.0.1; valkey-krm requires Valkey 9.0.1 or later (the version floor), so the node was not joined. Failed is terminal: fix this, then delete and re-create the ValkeyCluster (the controller does not retry a failed creation)',
      nodes: [
        { pod: 'old-0-0', shard: 0, ip: '127.0.0.1', role: 'unknown', health: 'failed', version: '8.0.1' },
        { pod: 'old-0-1', shard: 0, ip: '127.0.0.1', role: 'unknown', health: 'failed', version: '8.0.1' },
      ],
      reason: 'BelowFloor',
      metric: 'valkey_status_sync_nodes{version="8.0.1"} 2',
    },
  ] as const)(
    '$title',
    async ({ ns: namespace, name, runs, message, nodes, reason, metric }) => {
      const { api, world, ns, book, startPod } = await inNamespace(suite, namespace);
      await createCluster(api, { ns, name, shards: 1, replicasPerShard: 1 });
      const a = await startPod({ ns, cluster: name, shard: 0, ordinal: 0, runs });
      const b = await startPod({ ns, cluster: name, shard: 0, ordinal: 1, runs });
      const controller = await startController({ world, book, namespace: ns });
      try {
        const c = await waitForCluster(api, ns, name, 'Failed', (x) => failed(x) && x.status?.nodes?.length === 2, 30_000);
        expect(c.status?.message).toBe(message);
        expect(c.status?.nodes).toEqual(nodes);
        expect(c.status?.conditions?.find((x) => x.type === 'VersionCheck')).toMatchObject({ status: 'False', reason });
        expect(c.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({ status: 'False', reason: 'Failed' });
        // Several passes later, still nothing was sent: no MEET, no slots.
        await waitFor('three reconcile passes', () => controller.metrics.reconciles.get({ kind: 'cluster', result: 'ok' }) >= 3, {
          timeoutMs: 15_000,
        });
        for (const s of [a, b]) {
          expect(await clusterInfo(s.port)).toMatchObject({ cluster_known_nodes: '1', cluster_slots_assigned: '0', cluster_state: 'fail' });
          expect(await clusterNodes(s.port)).toHaveLength(1);
        }
        expect(controller.logs.filter((l) => l.includes('"formation step'))).toEqual([]);
        expect(controller.metrics.registry.render()).toContain(metric);
      } finally {
        await controller.stop();
      }
    },
    60_000,
  );

  it('one 8.0.1 pod among good ones: the others form without it, and status names it', async () => {
    const { api, world, ns, book, startPod } = await inNamespace(suite, 'gate-mixed');
    await createCluster(api, { ns, name: 'mixed', shards: 2, replicasPerShard: 1 });
    // The rejected pod is shard 0's ordinal 0, the one a new shard would otherwise take as its primary.
    const old = await startPod({ ns, cluster: 'mixed', shard: 0, ordinal: 0, runs: '8.0.1' });
    const good = [
      await startPod({ ns, cluster: 'mixed', shard: 0, ordinal: 1 }),
      await startPod({ ns, cluster: 'mixed', shard: 1, ordinal: 0 }),
      await startPod({ ns, cluster: 'mixed', shard: 1, ordinal: 1 }),
    ];
    const controller = await startController({ world, book, namespace: ns });
    const roles = (c: ClusterObject) => c.status?.nodes?.map((n) => `${n.pod}:${n.role}:${n.health}:${n.version ?? '-'}`);
    const expectedRoles = [
      'mixed-0-0:unknown:failed:8.0.1',
      'mixed-0-1:primary:online:9.1.2',
      'mixed-1-0:primary:online:9.1.2',
      'mixed-1-1:replica:online:9.1.2',
    ];
    try {
      const c = await waitForCluster(
        api,
        ns,
        'mixed',
        'Failed, the good pods formed',
        (x) => failed(x) && JSON.stringify(roles(x)) === JSON.stringify(expectedRoles),
        60_000,
      );
      expect(c.status?.message).toBe(
        'Pod gate-mixed/mixed-0-0 runs valkey_version 8.0.1; valkey-krm requires Valkey 9.0.1 or later (the version floor), so the node was not joined. Failed is terminal: fix this, then delete and re-create the ValkeyCluster (the controller does not retry a failed creation)',
      );
      expect(c.status?.conditions?.find((x) => x.type === 'VersionCheck')).toMatchObject({
        status: 'False',
        reason: 'BelowFloor',
        message: c.status?.message?.split('. Failed is terminal')[0],
      });
      // Formed without it: shard 0 lacks the replica the rejected pod would have been.
      expect(c.status?.conditions?.find((x) => x.type === 'ClusterFormed')).toMatchObject({
        status: 'False',
        message: expect.stringContaining('shard 0 has 0 of 1 replicas'),
      });
      await waitFor(
        'the good pods serve every slot',
        async () => {
          for (const s of good) if ((await clusterInfo(s.port)).cluster_state !== 'ok') return false;
          return true;
        },
        { timeoutMs: 15_000 },
      );
      for (const s of good) expect(await clusterInfo(s.port)).toMatchObject({ cluster_known_nodes: '3', cluster_slots_assigned: '16384' });
      const view = await clusterNodes(good[0]!.port);
      const idOf = (pod: string) => c.status?.nodes?.find((n) => n.pod === pod)?.nodeId;
      expect(view.find((n) => n.id === idOf('mixed-0-1'))?.slots).toEqual(['0-8191']);
      expect(view.find((n) => n.id === idOf('mixed-1-0'))?.slots).toEqual(['8192-16383']);
      expect(view.find((n) => n.id === idOf('mixed-1-1'))?.primary).toBe(idOf('mixed-1-0'));
      // The 8.0.1 node was never met and holds nothing.
      expect(await clusterInfo(old.port)).toMatchObject({ cluster_known_nodes: '1', cluster_slots_assigned: '0' });
      expect(controller.logs.filter((l) => l.includes('"formation step') && l.includes('mixed-0-0'))).toEqual([]);
      const metrics = controller.metrics.registry.render();
      expect(metrics).toContain('valkey_status_sync_nodes{version="8.0.1"} 1');
      expect(metrics).toContain('valkey_status_sync_nodes{version="9.1.2"} 3');
    } finally {
      await controller.stop();
    }
  }, 90_000);

  it('a Failed cluster whose facts hold still is not written again, pass after pass', async () => {
    const { api, world, ns, book, startPod } = await inNamespace(suite, 'gate-still');
    await createCluster(api, { ns, name: 'still', shards: 2, replicasPerShard: 1 });
    await startPod({ ns, cluster: 'still', shard: 0, ordinal: 0, runs: '8.0.1' });
    for (const [shard, ordinal] of [
      [0, 1],
      [1, 0],
      [1, 1],
    ] as const)
      await startPod({ ns, cluster: 'still', shard, ordinal });
    const controller = await startController({ world, book, namespace: ns });
    try {
      await waitForCluster(
        api,
        ns,
        'still',
        'Failed, the good pods formed',
        // Formed as far as it can be: the only thing missing is the replica the rejected pod would be.
        (x) => failed(x) && x.status?.conditions?.find((c) => c.type === 'ClusterFormed')?.message === 'shard 0 has 0 of 1 replicas',
        60_000,
      );
      // Then watch several passes (failedResyncMs 1.5 s): nothing changes, nothing is written.
      await new Promise((r) => setTimeout(r, 1_000));
      const writes = controller.metrics.statusWrites.get();
      const passes = controller.metrics.reconciles.get({ kind: 'cluster', result: 'ok' });
      await new Promise((r) => setTimeout(r, 6_000));
      expect(controller.metrics.reconciles.get({ kind: 'cluster', result: 'ok' })).toBeGreaterThan(passes + 2);
      expect(controller.metrics.statusWrites.get()).toBe(writes);
    } finally {
      await controller.stop();
    }
  }, 90_000);

  it('the shipped executable has no way to accept anything else', async () => {
    const bundle = readFileSync(BUNDLE, 'utf8');
    expect(bundle).not.toContain('test-only-accept-redis');
    const help = await run(process.execPath, [BUNDLE, '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('The version floor (Valkey 9.0.1) and the version check itself are not configurable.');
    for (const flag of ['--version-policy=any', '--accept-redis', '--insecure-skip-version-check']) {
      const r = await run(process.execPath, [BUNDLE, flag]);
      expect(r.code, flag).toBe(2);
      expect(r.stderr).toMatch(/Unknown option/);
    }
  });

  it('the shipped executable, as deployed: strict gate at podIP:6379, least-privilege RBAC, lease, probes, metrics, SIGTERM', async () => {
    const { api, world, ns, startNode } = await inNamespace(suite, 'binary');
    await createCluster(api, { ns, name: 'prod', shards: 1, replicasPerShard: 0 });
    // Production dials podIP:6379, so this server takes 127.0.0.1:6379 and the pod says 127.0.0.1.
    const node = await startNode({ port: 6379, runs: 'redis' });
    await createPod(api, { ns, cluster: 'prod', shard: 0, ordinal: 0, ip: '127.0.0.1' });

    const proc = spawn(
      process.execPath,
      [
        BUNDLE,
        '--kubeconfig',
        world.controllerKubeconfig,
        '--password-file',
        world.passwordFile,
        '--http-address',
        '127.0.0.1:0',
        '--node-timeout',
        '1000',
        '--log-level',
        'debug',
      ],
      { env: { ...process.env, POD_NAME: 'status-sync-test', POD_NAMESPACE: CONTROLLER_NAMESPACE }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const logs = collect(proc);
    try {
      await waitFor('the probe listener', () => logs.lines().some((l) => l.msg === 'serving /healthz, /readyz and /metrics'), {
        timeoutMs: 20_000,
      });
      const address = String(logs.lines().find((l) => l.msg === 'serving /healthz, /readyz and /metrics')?.address);
      const url = (p: string) => `http://${address}${p}`;

      const c = await waitForCluster(api, ns, 'prod', 'Failed', failed, 30_000);
      expect(c.status?.message).toBe(
        'Pod binary/prod-0-0 runs no valkey_version: not Valkey (redis_version 7.0.15); valkey-krm requires Valkey 9.0.1 or later (the version floor), so the node was not joined. Failed is terminal: fix this, then delete and re-create the ValkeyCluster (the controller does not retry a failed creation)',
      );
      expect(await clusterInfo(node.port)).toMatchObject({ cluster_known_nodes: '1', cluster_slots_assigned: '0' });

      expect((await fetch(url('/healthz'))).status).toBe(200);
      await waitFor('/readyz', async () => (await fetch(url('/readyz'))).status === 200, { timeoutMs: 10_000 });
      const metrics = await (await fetch(url('/metrics'))).text();
      expect(metrics).toContain('valkey_status_sync_leader 1');
      expect(metrics).toMatch(/valkey_status_sync_nodes\{version="not-valkey"\} [1-9]/);
      expect(metrics).toMatch(/valkey_status_sync_status_writes_total [1-9]/);
      expect(metrics).toMatch(/valkey_status_sync_reconciles_total\{kind="cluster",result="ok"\} [1-9]/);

      const lease = await getLease(api);
      expect(lease.spec.holderIdentity).toBe('status-sync-test');
      // The ServiceAccount's RBAC let it do all of that; nothing was denied.
      expect(logs.lines().filter((l) => /forbidden|: 403 /i.test(JSON.stringify(l)))).toEqual([]);

      proc.kill('SIGTERM');
      const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
      expect(code).toBe(0);
      const released = await getLease(api);
      expect(released.spec.holderIdentity).toBeUndefined();
      // Structured logs: every stderr line is one JSON object.
      expect(
        logs
          .raw()
          .trim()
          .split('\n')
          .every((l) => l.startsWith('{') && JSON.parse(l) !== undefined),
      ).toBe(true);
      expect(logs.lines().map((l) => l.msg)).toEqual(
        expect.arrayContaining(['started', 'became leader', 'status written', 'shutting down', 'stopped']),
      );
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  }, 90_000);
});

function collect(proc: ChildProcess) {
  let raw = '';
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => (raw += c));
  proc.stdout?.resume();
  return {
    raw: () => raw,
    lines: (): Record<string, unknown>[] =>
      raw
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
