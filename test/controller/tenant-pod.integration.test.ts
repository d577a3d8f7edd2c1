// A tenant with pod-create rights in the cluster's namespace makes a pod that wears the cluster's
// labels (and, behind it, a fake node that gives itself all 16384 slots). Against a real
// kube-apiserver, with the controller as its ServiceAccount: the tenant's pod is never sent AUTH
// (the controller's credential), status and an Event name it, while the StatefulSet's own pod is
// dialled as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS, MANAGED_BY } from '../../src/api/index.js';
import { startHostileNode, type HostileNode } from '../support/hostile-node.js';
import {
  EndpointBook,
  apiCall,
  createCluster,
  createPod,
  inNamespace,
  setPodRunning,
  startController,
  useKubeWorld,
  waitForCluster,
} from '../support/controller/world.js';

describe('a tenant pod wearing a cluster labels', () => {
  const suite = useKubeWorld();
  let tenantNode: HostileNode;
  let ownedNode: HostileNode;

  beforeAll(async () => {
    tenantNode = await startHostileNode();
    ownedNode = await startHostileNode();
  });
  afterAll(async () => {
    await tenantNode?.close();
    await ownedNode?.close();
  });

  it('is never sent AUTH; status and a ForeignPod Event name it; the owned pod is dialled', async () => {
    const { api, world, ns } = await inNamespace(suite, 'tenant');
    await createCluster(api, { ns, name: 'shop', shards: 1, replicasPerShard: 1 });
    const book = new EndpointBook();
    // The StatefulSet's own pod 0, served by a fake node: proof that the test can see a dial.
    book.set(await createPod(api, { ns, cluster: 'shop', shard: 0, ordinal: 0, ip: '127.0.0.1' }), ownedNode.port, ownedNode.port);
    // The tenant's pod 1: the cluster's labels, a plausible name, no owner; bound to a node and Running.
    const tenant = await apiCall<{ metadata: { uid: string } }>(api, 'POST', `/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'shop-0-1',
        namespace: ns,
        labels: {
          [LABELS.name]: 'valkey',
          [LABELS.instance]: 'shop',
          [LABELS.managedBy]: MANAGED_BY,
          [LABELS.cluster]: 'shop',
          [LABELS.shard]: '0',
          'statefulset.kubernetes.io/pod-name': 'shop-0-1',
          'controller-revision-hash': 'shop-0-5d8f7c9b4',
        },
      },
      spec: { nodeName: 'node-a', automountServiceAccountToken: false, containers: [{ name: 'valkey', image: 'valkey/valkey:9.0.1' }] },
    });
    await setPodRunning(api, ns, 'shop-0-1', '127.0.0.1');
    book.set(tenant.metadata.uid, tenantNode.port, tenantNode.port);

    const controller = await startController({ world, book, namespace: ns });
    try {
      const expected =
        "pod shop-0-1 carries this cluster's labels but is not its StatefulSet's (it is not controlled by StatefulSet shop-0); the controller does not talk to it";
      const seen = await waitForCluster(
        api,
        ns,
        'shop',
        'names the tenant pod',
        (c) => (c.status?.message ?? '').includes(expected),
        30_000,
      );
      expect(seen.status?.state).not.toBe('Active');
      expect(seen.status?.nodes?.map((n) => n.pod)).toEqual(['shop-0-0']);
      const events = await apiCall<{ items: { reason: string; type: string; message: string }[] }>(
        api,
        'GET',
        `/api/v1/namespaces/${ns}/events`,
      );
      expect(events.items.filter((e) => e.reason === 'ForeignPod').map((e) => [e.type, e.message])).toEqual([['Warning', expected]]);
      expect(ownedNode.received.some((c) => c[0] === 'AUTH')).toBe(true);
      expect(tenantNode.received).toEqual([]);
    } finally {
      await controller.stop();
    }
  }, 90_000);
});
