// The namespaced install (deploy/controller-namespaced/, applied whole with `kubectl apply -k`)
// against a real kube-apiserver: the ServiceAccount may do, in each namespace it lists, what the
// controller does there, and nothing in any other namespace; the controller started with the same
// list (--namespace team-a,team-b) forms a cluster in team-a on real Valkey 9.1.2 without one
// refused request, and never looks at a cluster in a namespace it was not given.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT as REPO } from '../support/paths.js';
import {
  apiCall,
  controllerMay,
  type AccessScope,
  clusterInfo,
  createCluster,
  inNamespace,
  NAMESPACED_INSTALL_NAMESPACES,
  startController,
  useKubeWorld,
  waitForCluster,
  waitFor,
  type ClusterObject,
} from '../support/controller/world.js';

describe('the namespaced install: RBAC in the listed namespaces only, and a controller that stays inside them', () => {
  const suite = useKubeWorld({ install: 'namespaced' });

  it('grants in team-a and team-b what the controller needs there, nothing in another namespace, and no namespaced object cluster-wide', async () => {
    const can = async (verb: string, group: string, resource: string, extra: AccessScope = {}) => {
      const where = extra.namespace ? ` -n ${extra.namespace}` : ' (all namespaces)';
      const allowed = await controllerMay(suite.api, verb, group, resource, extra);
      return `${verb} ${resource}${extra.subresource ? `/${extra.subresource}` : ''}${where}: ${allowed ? 'yes' : 'no'}`;
    };
    const V = 'valkey.gomomento.com';
    const inside = (ns: string) => [
      can('list', V, 'valkeyclusters', { namespace: ns }),
      can('watch', '', 'pods', { namespace: ns }),
      can('watch', 'apps', 'statefulsets', { namespace: ns }),
      can('list', '', 'configmaps', { namespace: ns }),
      can('patch', V, 'valkeyclusters', { namespace: ns, subresource: 'status' }),
      can('get', '', 'secrets', { namespace: ns, name: 'tls' }),
      can('create', '', 'pods', { namespace: ns, subresource: 'eviction' }),
      can('delete', 'apps', 'statefulsets', { namespace: ns }),
      can('delete', 'policy', 'poddisruptionbudgets', { namespace: ns }),
      can('create', '', 'events', { namespace: ns }),
      can('list', '', 'secrets', { namespace: ns }),
      can('delete', '', 'pods', { namespace: ns }),
      can('update', 'apps', 'statefulsets', { namespace: ns }),
    ];
    const answers = await Promise.all([
      ...inside('team-a'),
      ...inside('other'),
      can('list', V, 'valkeyclusters'),
      can('list', '', 'pods'),
      can('get', '', 'secrets', { namespace: 'kube-system', name: 'tls' }),
      can('list', V, 'valkeyconfigs'),
      can('patch', V, 'valkeyimages'),
      can('update', V, 'valkeyconfigs'),
      can('create', '', 'events', { namespace: 'default' }),
      can('create', 'coordination.k8s.io', 'leases', { namespace: 'valkey-system' }),
    ]);
    const yesNo = (ns: string, allowed: boolean) =>
      [
        'list valkeyclusters',
        'watch pods',
        'watch statefulsets',
        'list configmaps',
        'patch valkeyclusters/status',
        'get secrets',
        'create pods/eviction',
        'delete statefulsets',
        'delete poddisruptionbudgets',
        'create events',
      ]
        .map((q) => `${q} -n ${ns}: ${allowed ? 'yes' : 'no'}`)
        .concat(['list secrets', 'delete pods', 'update statefulsets'].map((q) => `${q} -n ${ns}: no`));
    expect(answers).toEqual([
      ...yesNo('team-a', true),
      ...yesNo('other', false),
      'list valkeyclusters (all namespaces): no',
      'list pods (all namespaces): no',
      'get secrets -n kube-system: no',
      'list valkeyconfigs (all namespaces): yes',
      'patch valkeyimages (all namespaces): yes',
      'update valkeyconfigs (all namespaces): no',
      'create events -n default: yes', // Events about ValkeyImages (cluster-scoped) live in default
      'create leases -n valkey-system: yes',
    ]);
    // The install is the default one's Deployment with the namespace list added, nothing else changed.
    const k = await suite.api.kubectl(['kustomize', join(REPO, 'deploy/controller-namespaced')]);
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout).toContain(`--namespace=${NAMESPACED_INSTALL_NAMESPACES.join(',')}`);
    expect(k.stdout).not.toMatch(/kind: ClusterRoleBinding\n(?:.*\n){0,6}?\s+name: valkey-status-sync\n/);
  }, 60_000);

  it('the controller with --namespace team-a,team-b forms team-a’s cluster with no request refused, and never touches a cluster elsewhere', async () => {
    const a = await inNamespace(suite, 'team-a');
    const other = await inNamespace(suite, 'other');
    await createCluster(a.api, { ns: 'team-a', name: 'inside', shards: 1, replicasPerShard: 1 });
    await createCluster(other.api, { ns: 'other', name: 'outside', shards: 1, replicasPerShard: 1 });
    for (const ordinal of [0, 1]) await a.startPod({ ns: 'team-a', cluster: 'inside', shard: 0, ordinal });
    // In the same endpoint book as team-a's: the controller could dial them if it looked.
    const outside = [
      await a.startPod({ ns: 'other', cluster: 'outside', shard: 0, ordinal: 0 }),
      await a.startPod({ ns: 'other', cluster: 'outside', shard: 0, ordinal: 1 }),
    ];
    const controller = await startController({ world: a.world, book: a.book, namespaces: NAMESPACED_INSTALL_NAMESPACES });
    try {
      await waitForCluster(a.api, 'team-a', 'inside', 'Active', (c) => c.status?.state === 'Active', 60_000);
      await waitFor('three passes', () => controller.metrics.reconciles.get({ kind: 'cluster', result: 'ok' }) >= 3, { timeoutMs: 15_000 });
      const far = await apiCall<ClusterObject>(a.api, 'GET', '/apis/valkey.gomomento.com/v1alpha1/namespaces/other/valkeyclusters/outside');
      expect(far.status).toBeUndefined();
      for (const s of outside) expect(await clusterInfo(s.port)).toMatchObject({ cluster_known_nodes: '1', cluster_slots_assigned: '0' });
      expect(controller.logs.filter((l) => /forbidden|: 403 /i.test(l))).toEqual([]);
      expect(controller.logs.some((l) => l.includes('other/outside'))).toBe(false);
    } finally {
      await controller.stop();
    }
  }, 120_000);
});
