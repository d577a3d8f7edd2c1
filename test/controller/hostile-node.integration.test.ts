// A node that passes the version gate and then lies in CLUSTER NODES: its observation says what
// was wrong (its own cluster's status shows it), at once, and nothing plans from its lies.
import { afterEach, describe, expect, it } from 'vitest';
import { LABELS } from '../../src/api/index.js';
import { strictPolicy } from '../../src/controller/cluster/version-gate.js';
import type { Pod } from '../../src/controller/kube/types.js';
import { sessionOpener } from '../../src/controller/valkey/node-session.js';
import { observeNode, podPlace } from '../../src/controller/valkey/observe-node.js';
import { ALL_SLOTS_LINE, startHostileNode, type HostileNode } from '../support/hostile-node.js';

const nodes: HostileNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'cache-0-0', namespace: 'shop', labels: { [LABELS.cluster]: 'cache', [LABELS.shard]: '0' } },
  spec: { nodeName: 'node-a' },
  status: { phase: 'Running', podIP: '127.0.0.1' },
};

async function observe(clusterNodes: string, clusterInfo?: string) {
  const node = await startHostileNode({ clusterNodes, ...(clusterInfo ? { clusterInfo } : {}) });
  nodes.push(node);
  const open = sessionOpener(async () => ({ username: 'valkey-krm-controller', password: 'p' }), { connectMs: 1000, commandMs: 1000 });
  const place = podPlace(pod);
  if (!place) throw new Error('no place');
  return observeNode(pod, place, { open, policy: strictPolicy, endpointOf: () => ({ host: '127.0.0.1', port: node.port, busPort: 0 }) });
}

describe('a node that lies about the cluster', () => {
  it.each([
    [
      'a slot range up to 2^53',
      `${ALL_SLOTS_LINE.replace('0-16383', '0-9007199254740991')}\n`,
      /slot "9007199254740991" is not a whole number/,
    ],
    ['a NaN port', `${ALL_SLOTS_LINE.replace(':6379@', ':port@')}\n`, /port "port" is not a whole number/],
    ['a line of 10,000 slot tokens past the last slot', `${ALL_SLOTS_LINE} ${'20000 '.repeat(10_000)}\n`, /slot "20000"/],
  ])('%s: the pod is reported with the field that is wrong, and no session is kept for planning', async (_what, text, message) => {
    const observed = await observe(text);
    expect(observed.session).toBeUndefined();
    expect(observed.observation.state).toBe('unreachable');
    const error = observed.observation.state === 'unreachable' ? observed.observation.error : '';
    expect(error).toMatch(message);
    expect(error).toMatch(/^its cluster replies cannot be trusted, so the controller does not act on them: CLUSTER NODES line 1: /);
    expect(error.length).toBeLessThan(400);
  });

  it('a CLUSTER INFO with impossible figures is reported the same way', async () => {
    const observed = await observe(`${ALL_SLOTS_LINE}\n`, 'cluster_state:ok\r\ncluster_slots_assigned:99999999\r\n');
    expect(observed.observation).toMatchObject({ state: 'unreachable', error: expect.stringMatching(/cluster_slots_assigned "99999999"/) });
  });

  it('a node that tells the truth is answered (the fake node above is a fair stand-in)', async () => {
    const observed = await observe(`${ALL_SLOTS_LINE}\n`);
    expect(observed.observation.state).toBe('answered');
    observed.session?.close();
  });
});
