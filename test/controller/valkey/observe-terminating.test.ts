// A pod being deleted is asked only while the rendered preStop hook holds its server for the
// handover (kube/pod-hooks.ts): the pass must see the leaving primary to hand its shard over.
// Any other pod being deleted, or a held one that no longer answers, is terminating, as before.
import { describe, expect, it } from 'vitest';
import { LABELS } from '../../../src/api/index.js';
import type { VersionPolicy } from '../../../src/controller/cluster/version-gate.js';
import type { Pod } from '../../../src/controller/kube/types.js';
import { observeNode, podPlace } from '../../../src/controller/valkey/observe-node.js';
import { renderLifecycle } from '../../../src/render/probes.js';

const terminating = (preStop: boolean): Pod =>
  ({
    metadata: { name: 'c-0-0', namespace: 'ns', labels: { [LABELS.shard]: '0' }, deletionTimestamp: '2026-12-06T21:00:30Z' },
    spec: { nodeName: 'node-a', containers: [{ name: 'valkey', ...(preStop ? { lifecycle: renderLifecycle() } : {}) }] },
    status: { phase: 'Running', podIP: '10.0.0.1', containerStatuses: [{ state: { running: {} } }] },
  }) as unknown as Pod;

async function observe(pod: Pod): Promise<{ dialled: string[]; observation: unknown }> {
  const dialled: string[] = [];
  const place = podPlace(pod);
  if (place === undefined) throw new Error('no place');
  const { observation } = await observeNode(pod, place, {
    open: (endpoint) => {
      dialled.push(`${endpoint.host}:${String(endpoint.port)}`);
      return Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:6379'));
    },
    policy: {} as VersionPolicy,
    endpointOf: (p) => (p.status?.podIP ? { host: p.status.podIP, port: 6379, busPort: 16379 } : undefined),
  });
  return { dialled, observation };
}

describe('a pod being deleted', () => {
  it('is asked while the rendered preStop hook holds it (the leaving primary still serves)', async () => {
    const { dialled } = await observe(terminating(true));
    expect(dialled).toEqual(['10.0.0.1:6379']);
  });

  it('is terminating, not unreachable, once the held server no longer answers', async () => {
    expect((await observe(terminating(true))).observation).toMatchObject({ state: 'pending', reason: 'is terminating' });
  });

  it('without the hook is never dialled: terminating', async () => {
    const { dialled, observation } = await observe(terminating(false));
    expect(dialled).toEqual([]);
    expect(observation).toMatchObject({ state: 'pending', reason: 'is terminating' });
  });
});
