import { describe, expect, it } from 'vitest';
import { valkeyClusterStatus } from '../../../src/api/index.js';
import { withTransitions } from '../../../src/controller/cluster/conditions.js';
import type { FormationPlan } from '../../../src/controller/cluster/formation.js';
import type { NodeObservation } from '../../../src/controller/cluster/observation.js';
import { buildStatus, type StatusInput } from '../../../src/controller/cluster/status.js';
import { statusEquals } from '../../../src/controller/reconcile/status-equals.js';
import { canonicalJson } from '../../../src/api/canonical-json.js';
import { parseClusterInfo, parseClusterNodes } from '../../../src/controller/valkey/cluster-nodes.js';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:05:00Z';
const OK_INFO = parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n');
const FAIL_INFO = parseClusterInfo('cluster_state:fail\r\ncluster_slots_assigned:16384\r\n');
const GOSSIPING_INFO = parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:8192\r\n');

const idle: FormationPlan = { actions: [], waiting: [], primaries: new Map([[0, 'c-0-0']]) };

function answered(pod: string, ordinal: number, lines: string[], version = '9.0.1', info = OK_INFO): NodeObservation {
  return {
    pod,
    shard: 0,
    ordinal,
    ip: `10.0.0.${ordinal + 1}`,
    state: 'answered',
    identity: { kind: 'valkey', version },
    version,
    endpoint: { host: `10.0.0.${ordinal + 1}`, port: 6379, busPort: 16379 },
    view: parseClusterNodes(lines.join('\n')),
    info,
  };
}

const primaryView = ['p 10.0.0.1:6379@16379 myself,master - 0 0 1 connected 0-16383', 'r 10.0.0.2:6379@16379 slave p 0 0 1 connected'];
const replicaView = ['r 10.0.0.2:6379@16379 myself,slave p 0 0 1 connected', 'p 10.0.0.1:6379@16379 master - 0 0 1 connected 0-16383'];

function input(over: Partial<StatusInput>): StatusInput {
  return {
    namespace: 'shop',
    generation: 3,
    shards: 1,
    replicasPerShard: 1,
    observations: [answered('c-0-0', 0, primaryView), answered('c-0-1', 1, replicaView)],
    plan: idle,
    actionErrors: [],
    declared: { imageRef: 'valkey-9-0', version: '9.0.1' },
    now: T0,
    ...over,
  };
}

describe('buildStatus', () => {
  it('a formed, healthy cluster is Active, with per-node facts and all conditions true', () => {
    const status = buildStatus(input({}));
    expect(valkeyClusterStatus().parse(status)).toEqual(status);
    expect(status).toMatchObject({
      state: 'Active',
      message: '1 shard(s) with 1 replica(s) each serve all 16384 slots; cluster_state ok',
      observedGeneration: 3,
      nodes: [
        { pod: 'c-0-0', shard: 0, role: 'primary', nodeId: 'p', ip: '10.0.0.1', version: '9.0.1', health: 'online' },
        { pod: 'c-0-1', shard: 0, role: 'replica', nodeId: 'r', ip: '10.0.0.2', version: '9.0.1', health: 'online' },
      ],
    });
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['VersionCheck', 'True', 'AtLeastFloor'],
      ['VersionMatchesImage', 'True', 'Matches'],
      ['ClusterFormed', 'True', 'Formed'],
      ['Ready', 'True', 'Active'],
    ]);
  });

  it('a pod with the cluster labels that its StatefulSet does not own keeps the cluster from Active and is named', () => {
    const line =
      "pod c-0-7 carries this cluster's labels but is not its StatefulSet's (it is not controlled by StatefulSet c-0); the controller does not talk to it";
    const status = buildStatus(input({ foreignPods: [line] }));
    expect(status.state).toBe('Updating');
    expect(status.message).toBe(line);
    expect(status.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', message: line });
    expect(status.nodes?.map((n) => n.pod)).toEqual(['c-0-0', 'c-0-1']);
  });

  it('a rejected node makes the cluster Failed with the pod, the version found and the floor', () => {
    const rejected: NodeObservation = {
      pod: 'c-0-1',
      shard: 0,
      ordinal: 1,
      ip: '10.0.0.2',
      state: 'rejected',
      identity: { kind: 'not-valkey', redisVersion: '7.0.15' },
      verdict: { ok: false, reason: 'NotValkey', found: 'no valkey_version: not Valkey (redis_version 7.0.15)' },
    };
    // At creation (no slot has an owner yet): Failed, terminal, with how to recover.
    const lonely = ['p 10.0.0.1:6379@16379 myself,master - 0 0 0 connected'];
    const status = buildStatus(input({ observations: [answered('c-0-0', 0, lonely), rejected] }));
    expect(status.state).toBe('Failed');
    expect(status.message).toBe(
      'Pod shop/c-0-1 runs no valkey_version: not Valkey (redis_version 7.0.15); valkey-krm requires Valkey 9.0.1 or later (the version floor), so the node was not joined. Failed is terminal: fix this, then delete and re-create the ValkeyCluster (the controller does not retry a failed creation)',
    );
    expect(status.nodes?.[1]).toEqual({ pod: 'c-0-1', shard: 0, ip: '10.0.0.2', role: 'unknown', health: 'failed' });
    expect(status.conditions?.find((c) => c.type === 'VersionCheck')).toMatchObject({ status: 'False', reason: 'NotValkey' });
    expect(status.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'Failed' });
    // On a running cluster (a pod replaced with a binary below the floor) the rest keeps serving: Invalid.
    const running = buildStatus(input({ observations: [answered('c-0-0', 0, primaryView), rejected] }));
    expect(running.state).toBe('Invalid');
    expect(running.message).toMatch(/^Pod shop\/c-0-1 runs no valkey_version: .*The pods keep serving what they loaded/);
    // Still creating (a pod below the floor answered only after formation gave the others every
    // slot): the slots this creation assigned do not make it a running cluster, so Failed.
    const creating = buildStatus(input({ observations: [answered('c-0-0', 0, lonely)] }));
    expect(creating.state).toBe('Creating');
    const late = buildStatus(input({ observations: [answered('c-0-0', 0, primaryView), rejected], previous: creating }));
    expect(late.state).toBe('Failed');
    expect(late.message).toMatch(/Failed is terminal/);
  });

  it('reports a declared version that differs from the running one, even when both pass the floor', () => {
    const status = buildStatus(input({ declared: { imageRef: 'valkey-9-0', version: '9.0.2' } }));
    expect(status.state).toBe('Active');
    expect(status.conditions?.find((c) => c.type === 'VersionMatchesImage')).toMatchObject({
      status: 'False',
      reason: 'DeclaredVersionDiffers',
      message: 'ValkeyImage valkey-9-0 declares 9.0.2, but c-0-0 runs 9.0.1; c-0-1 runs 9.0.1',
    });
  });

  it('a new cluster waiting for pods is Creating and says why', () => {
    const status = buildStatus(
      input({
        observations: [{ pod: 'c-0-0', shard: 0, ordinal: 0, state: 'pending', reason: 'has no IP yet' }],
        plan: { actions: [], waiting: ['shard 0: no pod has answered yet'], primaries: new Map() },
      }),
    );
    expect(status.state).toBe('Creating');
    expect(status.message).toBe('pod c-0-0 has no IP yet; 1 of 2 pods do not exist yet; shard 0: no pod has answered yet; and 2 more');
    expect(status.nodes).toEqual([{ pod: 'c-0-0', shard: 0, role: 'unknown', health: 'pending' }]);
    expect(status.conditions?.find((c) => c.type === 'ClusterFormed')).toMatchObject({ status: 'False', reason: 'WaitingForNodes' });
    expect(status.conditions?.find((c) => c.type === 'VersionCheck')).toMatchObject({ status: 'Unknown', reason: 'NoNodeChecked' });
  });

  it('a formed cluster that loses a node is Updating, not Creating', () => {
    const status = buildStatus(
      input({
        observations: [
          answered('c-0-0', 0, primaryView),
          {
            pod: 'c-0-1',
            shard: 0,
            ordinal: 1,
            ip: '10.0.0.2',
            state: 'unreachable',
            error: '10.0.0.2:6379: no connection within 3000 ms',
          },
        ],
      }),
    );
    expect(status.state).toBe('Updating');
    expect(status.message).toContain('pod c-0-1 does not answer: 10.0.0.2:6379: no connection within 3000 ms');
    expect(status.nodes?.[1]).toMatchObject({ health: 'unreachable', role: 'unknown' });
  });

  it('is not Active while cluster_state is not ok or formation steps are pending', () => {
    expect(
      buildStatus(input({ observations: [answered('c-0-0', 0, primaryView, '9.0.1', FAIL_INFO), answered('c-0-1', 1, replicaView)] }))
        .state,
    ).toBe('Updating');
    const gossiping = buildStatus(
      input({ observations: [answered('c-0-0', 0, primaryView), answered('c-0-1', 1, replicaView, '9.0.1', GOSSIPING_INFO)] }),
    );
    expect(gossiping.state).toBe('Updating');
    expect(gossiping.message).toBe('not every slot is assigned as seen from c-0-1');
    const steps: FormationPlan = { ...idle, actions: [{ kind: 'replicate', on: 'c-0-1', primaryId: 'p', primaryPod: 'c-0-0' }] };
    expect(buildStatus(input({ plan: steps })).message).toContain('1 formation step(s) in progress');
  });

  it('is not Active until every replica has finished its first sync with its primary', () => {
    const syncing = {
      ...answered('c-0-1', 1, replicaView),
      replication: { role: 'replica' as const, linkUp: false, syncing: true, offset: 0 },
    };
    const status = buildStatus(input({ observations: [answered('c-0-0', 0, primaryView), syncing as NodeObservation] }));
    expect(status.state).toBe('Updating');
    expect(status.message).toBe('replica c-0-1 is not in sync with its primary yet');
    const synced = { ...syncing, replication: { role: 'replica' as const, linkUp: true, syncing: false, offset: 42 } };
    expect(buildStatus(input({ observations: [answered('c-0-0', 0, primaryView), synced as NodeObservation] })).state).toBe('Active');
  });

  it('a roll waiting for its turn is not in progress: RollInProgress False, reason Waiting, and says why', () => {
    const roll = {
      state: 'waiting' as const,
      message: 'rolling shard 1 of 1, 0 of 2 pods done: waiting for a roll slot (--max-concurrent-rolls)',
      revision: 'c-0-abc',
    };
    const waiting = buildStatus(input({ day2: { roll, reloads: [] } }));
    expect(waiting.state).toBe('Updating');
    expect(waiting.message).toBe(`roll not started: ${roll.message}`);
    expect(waiting.conditions?.find((c) => c.type === 'RollInProgress')).toMatchObject({
      status: 'False',
      reason: 'Waiting',
      message: `Not started: ${roll.message} (revision c-0-abc)`,
    });
  });

  it('failback has its own condition: True while a primary is away from ordinal 0, False at rest once it was', () => {
    const away = buildStatus(
      input({ failback: { acted: false, message: 'shard 0: c-0-0 takes the primary back from c-0-1 once it is in sync' } }),
    );
    expect(away.state).toBe('Updating');
    expect(away.conditions?.find((c) => c.type === 'PrimaryFailback')).toMatchObject({ status: 'True', reason: 'Waiting' });
    expect(away.conditions?.some((c) => c.type === 'SlotMigration')).toBe(false);
    const acted = buildStatus(input({ failback: { acted: true, message: "c-0-0 takes shard 0's primary back from c-0-1" } }));
    expect(acted.conditions?.find((c) => c.type === 'PrimaryFailback')).toMatchObject({ status: 'True', reason: 'FailingBack' });
    const back = buildStatus(input({ previous: away }));
    expect(back.conditions?.find((c) => c.type === 'PrimaryFailback')).toMatchObject({ status: 'False', reason: 'AtOrdinalZero' });
    expect(buildStatus(input({})).conditions?.some((c) => c.type === 'PrimaryFailback')).toBe(false);
  });

  it('counts a replica in sync as a roll does: link up, no full sync, at most 1 MiB behind its primary', () => {
    const primary = {
      ...answered('c-0-0', 0, primaryView),
      replication: { role: 'primary' as const, linkUp: false, syncing: false, offset: 50_000_000 },
    };
    const replica = (offset: number) =>
      ({
        ...answered('c-0-1', 1, replicaView),
        replication: { role: 'replica' as const, linkUp: true, syncing: false, offset },
      }) as NodeObservation;
    const behind = buildStatus(input({ observations: [primary as NodeObservation, replica(40_000_000)] }));
    expect(behind.state).toBe('Updating');
    expect(behind.message).toBe('replica c-0-1 is not in sync with its primary yet');
    expect(buildStatus(input({ observations: [primary as NodeObservation, replica(49_500_000)] })).state).toBe('Active');
  });

  it('is Updating while a roll or a reload runs, and says what and how far', () => {
    const roll = { state: 'rolling' as const, message: 'rolling shard 1 of 1, pod c-0-1, 0 of 2 pods done', revision: 'c-0-abc' };
    const rolling = buildStatus(input({ day2: { roll, reloads: [] } }));
    expect(rolling.state).toBe('Updating');
    expect(rolling.message).toBe('rolling shard 1 of 1, pod c-0-1, 0 of 2 pods done');
    expect(rolling.conditions?.find((c) => c.type === 'RollInProgress')).toMatchObject({
      status: 'True',
      message: expect.stringContaining('c-0-abc'),
    });
    const held = buildStatus(
      input({ day2: { roll: { ...roll, state: 'held', message: 'pod c-0-1 exited at start-up: x' }, reloads: [] } }),
    );
    expect(held.message).toBe('roll held: pod c-0-1 exited at start-up: x');
    expect(held.conditions?.find((c) => c.type === 'RollHeld')?.status).toBe('True');
    const reloading = buildStatus(input({ day2: { reloads: ['users.acl: waiting for the new file on c-0-0'] } }));
    expect(reloading.state).toBe('Updating');
    expect(reloading.conditions?.find((c) => c.type === 'LiveConfigApplied')?.status).toBe('False');
    expect(buildStatus(input({ day2: { reloads: [] } })).state).toBe('Active');
  });

  it('a failed formation command is in the message and the ClusterFormed reason', () => {
    const status = buildStatus(input({ actionErrors: ['CLUSTER REPLICATE p (c-0-0) on c-0-1 failed: ERR boom'] }));
    expect(status.message).toBe('CLUSTER REPLICATE p (c-0-0) on c-0-1 failed: ERR boom');
    expect(status.conditions?.find((c) => c.type === 'ClusterFormed')?.reason).toBe('FormationError');
  });

  it('is a pure function of its input: the same observation twice gives an equal status, nothing to write', () => {
    const first = buildStatus(input({ now: T0 }));
    const second = buildStatus(input({ now: T1, previous: first }));
    expect(statusEquals(first, second)).toBe(true);
  });
});

describe('conditions', () => {
  it('keeps lastTransitionTime while a condition holds and stamps a change', () => {
    const before = withTransitions([{ type: 'Ready', status: 'False', reason: 'Creating', message: 'x' }], undefined, T0);
    const same = withTransitions([{ type: 'Ready', status: 'False', reason: 'Updating', message: 'y' }], before, T1);
    const flipped = withTransitions([{ type: 'Ready', status: 'True', reason: 'Active', message: 'z' }], before, T1);
    expect(same[0]?.lastTransitionTime).toBe(T0);
    expect(flipped[0]?.lastTransitionTime).toBe(T1);
  });

  it('compares status regardless of key order (the API server re-orders keys)', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    expect(statusEquals({ state: 'Active', message: 'm' }, { message: 'm', state: 'Active' })).toBe(true);
    expect(statusEquals(undefined, { state: 'Active' })).toBe(false);
  });
});
