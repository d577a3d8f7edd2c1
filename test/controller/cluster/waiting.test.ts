// Waiting is not failing (issue 33): what a cluster being created waits for (the Secrets and
// ConfigMaps its rendered pods mount or read), how status names it and since when, that the wait
// is never silently bounded, and that it ends by itself once the object exists. Pure: rendered
// StatefulSets and observations in, status out.
import { describe, expect, it } from 'vitest';
import { renderConfigSpec, type ValkeyClusterStatus } from '../../../src/api/index.js';
import type { NodeObservation } from '../../../src/controller/cluster/observation.js';
import { LONG_WAIT_MS, templatePrerequisites, type Prerequisite } from '../../../src/controller/cluster/prerequisites.js';
import { buildStatus, type StatusInput } from '../../../src/controller/cluster/status.js';
import { judgeTlsSecret } from '../../../src/controller/cluster/tls-secret.js';
import type { StatefulSet } from '../../../src/controller/kube/types.js';
import { renderAll } from '../../../src/render/render-all.js';
import { sha256 } from '../../support/hash.js';
import { cluster, guideMenu } from '../../support/objects.js';

const T0 = '2026-06-01T12:00:00Z';
const T1 = '2026-06-01T12:00:20Z';
const LATER = new Date(Date.parse(T0) + LONG_WAIT_MS).toISOString();

function renderedSets(spec: Record<string, unknown>): StatefulSet[] {
  const config = renderConfigSpec().parse({
    systemUsers: { replication: { passwordHash: sha256('r') }, controller: { passwordHash: sha256('c') } },
  });
  const result = renderAll([...guideMenu(), cluster('c', spec, 'shop')], config);
  const objects = result.clusters[0]?.objects ?? [];
  return objects.filter((o) => o.kind === 'StatefulSet') as unknown as StatefulSet[];
}

describe('templatePrerequisites: what the rendered pods cannot start without', () => {
  it('a plain cluster: its ConfigMap (volume) and the replication Secret (env), once each across shards', () => {
    expect(templatePrerequisites(renderedSets({ shards: 2, replicasPerShard: 1 }))).toEqual([
      { kind: 'ConfigMap', name: 'c-config', neededBy: 'volume config' },
      { kind: 'Secret', name: 'valkey-replication', neededBy: 'env VALKEY_REPLICATION_PASSWORD' },
    ]);
  });

  it('a TLS cluster: its TLS Secret too', () => {
    const names = templatePrerequisites(renderedSets({ shards: 1, replicasPerShard: 0, tls: { secretRef: 'c-tls' } })).map(
      (p) => `${p.kind}/${p.name}`,
    );
    expect(names).toEqual(['ConfigMap/c-config', 'Secret/c-tls', 'Secret/valkey-replication']);
  });

  it('optional sources are not waited for; envFrom and init containers are', () => {
    const set = {
      metadata: { name: 'c-0' },
      spec: {
        template: {
          spec: {
            volumes: [{ name: 'opt', secret: { secretName: 'maybe', optional: true } }],
            initContainers: [{ envFrom: [{ configMapRef: { name: 'init-env' } }] }],
            containers: [{ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'x', optional: true } } }] }],
          },
        },
      },
    } as unknown as StatefulSet;
    expect(templatePrerequisites([set])).toEqual([{ kind: 'ConfigMap', name: 'init-env', neededBy: 'envFrom' }]);
  });
});

const pending = (pod: string, ordinal: number): NodeObservation => ({ pod, shard: 0, ordinal, state: 'pending', reason: 'is Pending' });
const input = (over: Partial<StatusInput>): StatusInput => ({
  namespace: 'shop',
  generation: 1,
  shards: 1,
  replicasPerShard: 1,
  observations: [pending('c-0-0', 0), pending('c-0-1', 1)],
  plan: { actions: [], waiting: ['shard 0: no pod has answered yet'], primaries: new Map() },
  actionErrors: [],
  now: T0,
  ...over,
});
const cond = (s: ValkeyClusterStatus, type: string) => s.conditions?.find((c) => c.type === type);
const replication: Prerequisite = { kind: 'Secret', name: 'valkey-replication', neededBy: 'env VALKEY_REPLICATION_PASSWORD' };
const config: Prerequisite = { kind: 'ConfigMap', name: 'c-config', neededBy: 'volume config' };
const tlsAbsent = judgeTlsSecret('shop/c-tls', { kind: 'absent' }, Date.parse(T0));

describe('status while a cluster being created waits', () => {
  it.each([
    ['its TLS Secret', { tls: tlsAbsent }, 'SecretMissing', 'Secret shop/c-tls (spec.tls.secretRef)'],
    [
      'the replication Secret',
      { missing: [replication] },
      'SecretMissing',
      'Secret shop/valkey-replication (env VALKEY_REPLICATION_PASSWORD)',
    ],
    [
      'its ConfigMap (a StatefulSet applied before it)',
      { missing: [config] },
      'ConfigMapMissing',
      'ConfigMap shop/c-config (volume config)',
    ],
  ] as const)('%s: Creating, Waiting True naming it and since when; not Failed, not Stalled', (_, over, reason, named) => {
    const s = buildStatus(input(over));
    expect(s.state).toBe('Creating');
    expect(cond(s, 'Waiting')).toMatchObject({ status: 'True', reason, lastTransitionTime: T0 });
    expect(s.message).toContain(`Waiting for ${named} since ${T0}`);
    expect(cond(s, 'Stalled')).toBeUndefined();
    expect(cond(s, 'Reconciling')).toMatchObject({ status: 'True', reason: 'Creating' });
  });

  it('names everything missing at once, the first kind giving the reason', () => {
    const s = buildStatus(input({ tls: tlsAbsent, missing: [config, replication] }));
    expect(cond(s, 'Waiting')?.message).toMatch(
      /^Waiting for Secret shop\/c-tls \(spec\.tls\.secretRef\), ConfigMap shop\/c-config \(volume config\), Secret shop\/valkey-replication/,
    );
    expect(cond(s, 'Waiting')?.reason).toBe('SecretMissing');
  });

  it('an unchanged wait is the same status (since stays), and after 10 minutes says so, still Creating', () => {
    const first = buildStatus(input({ missing: [replication] }));
    const again = buildStatus(input({ missing: [replication], previous: first, now: T1 }));
    expect(again).toEqual(first);
    const long = buildStatus(input({ missing: [replication], previous: again, now: LATER }));
    expect(long.state).toBe('Creating');
    expect(cond(long, 'Waiting')).toMatchObject({ status: 'True', lastTransitionTime: T0 });
    expect(cond(long, 'Waiting')?.message).toContain(`since ${T0}`);
    expect(cond(long, 'Waiting')?.message).toContain('still missing after more than 10 minutes');
  });

  it('ends by itself: once it exists the wait is over (Waiting False, NothingMissing) and formation goes on', () => {
    const waiting = buildStatus(input({ tls: tlsAbsent }));
    const arrived = buildStatus(input({ previous: waiting, now: T1 }));
    expect(arrived.state).toBe('Creating');
    expect(cond(arrived, 'Waiting')).toMatchObject({ status: 'False', reason: 'NothingMissing', lastTransitionTime: T1 });
    expect(arrived.message).not.toContain('Waiting for');
  });

  it('a cluster that never waited has no Waiting condition', () => {
    expect(cond(buildStatus(input({})), 'Waiting')).toBeUndefined();
  });

  it('a running cluster is not waiting: its TLS Secret deleted is Invalid, as before', () => {
    const s = buildStatus(input({ tls: tlsAbsent, previous: { state: 'Active' } }));
    expect(s.state).toBe('Invalid');
    expect(cond(s, 'Waiting')).toBeUndefined();
  });

  it('a creation that failed on a binary below the floor stays Failed (the model rule), missing Secret or not', () => {
    const rejected: NodeObservation = {
      pod: 'c-0-0',
      shard: 0,
      ordinal: 0,
      ip: '10.0.0.1',
      state: 'rejected',
      identity: { kind: 'valkey', version: '8.0.1' },
      verdict: { ok: false, reason: 'BelowFloor', found: 'valkey_version 8.0.1' },
    };
    const failed = buildStatus(input({ observations: [rejected] }));
    expect(failed.state).toBe('Failed');
    expect(buildStatus(input({ previous: failed })).state).toBe('Failed');
    expect(buildStatus(input({ previous: failed, tls: tlsAbsent })).state).toBe('Failed');
  });
});
