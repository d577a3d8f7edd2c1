// Watch resilience, unreachable and slow nodes, pods without an IP, TLS, leader election,
// ValkeyImage protection and the shipped RBAC/Deployment, against a real kube-apiserver.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT as REPO } from '../support/paths.js';
import { microTime } from '../../src/controller/runtime/clock.js';
import { IMAGE_FINALIZER } from '../../src/controller/cluster/image-finalizers.js';
import type { ApiServer } from '../support/apiserver.js';
import { freePort, waitFor } from '../support/process.js';
import { config, image } from '../support/objects.js';
import { startSilentServer, type SilentServer } from '../support/servers.js';
import { makePki, type TestPki } from '../support/tls.js';
import {
  EndpointBook,
  apiCall,
  createCluster,
  createPod,
  getLease,
  inNamespace,
  useKubeWorld,
  setPodRunning,
  startController,
  waitForCluster,
  LEASE_PATH,
  controllerMay,
  type AccessScope,
  type ClusterObject,
  type TestController,
} from '../support/controller/world.js';
import { shortLeaseElection } from '../support/controller/api-world.js';

const active = (c: ClusterObject) => c.status?.state === 'Active';

describe('resilience and operations', () => {
  const suite = useKubeWorld();
  const pkis: TestPki[] = [];
  let silent: SilentServer | undefined;
  let silentPort: number;

  beforeAll(async () => {
    silent = await startSilentServer();
    silentPort = silent.port;
  }, 180_000);

  afterAll(async () => {
    await silent?.close();
    for (const p of pkis) p.remove();
  });

  it('a node that times out and a pod with no IP hold up nobody; the controller survives an API server restart', async () => {
    const { api, world, ns, book, startPod } = await inNamespace(suite, 'resilience');
    await createCluster(api, { ns, name: 'stuck', shards: 1, replicasPerShard: 0 });
    await createCluster(api, { ns, name: 'late', shards: 1, replicasPerShard: 0 });
    await createCluster(api, { ns, name: 'fine', shards: 1, replicasPerShard: 1 });
    // stuck-0-0 "runs" on a server that accepts connections and never answers.
    book.set(await createPod(api, { ns, cluster: 'stuck', shard: 0, ordinal: 0, ip: '127.0.0.1' }), silentPort, silentPort + 1);
    // late-0-0 exists but has no IP yet.
    await startPod({ ns, cluster: 'late', shard: 0, ordinal: 0, ip: null });
    for (const o of [0, 1]) await startPod({ ns, cluster: 'fine', shard: 0, ordinal: o });

    const controller = await startController({ world, book, namespace: ns });
    try {
      const t0 = Date.now();
      await waitForCluster(api, ns, 'fine', 'Active', active, 30_000);
      const fineAfterMs = Date.now() - t0;
      const stuck = await waitForCluster(
        api,
        ns,
        'stuck',
        'reported unreachable',
        (c) => c.status?.nodes?.[0]?.health === 'unreachable',
        20_000,
      );
      expect(stuck.status?.state).toBe('Creating');
      expect(stuck.status?.message).toContain(`pod stuck-0-0 does not answer: 127.0.0.1:${silentPort}: no reply to AUTH within 1000 ms`);
      const late = await waitForCluster(api, ns, 'late', 'pending', (c) => c.status?.nodes?.[0]?.health === 'pending', 20_000);
      expect(late.status?.state).toBe('Creating');
      expect(late.status?.message).toMatch(/^pod late-0-0 (has no IP yet|is Pending)/);
      // The stuck cluster was being retried (each pass waits out the node timeout) while the fine one formed.
      expect(controller.metrics.reconcileErrors.get({ kind: 'node' })).toBeGreaterThan(0);
      expect(fineAfterMs).toBeLessThan(20_000);

      // The API server goes away and comes back; the controller must pick up changes made after it.
      const watchErrorsBefore = sumOf(controller, 'valkey_status_sync_watch_errors_total');
      await api.restart();
      await setPodRunning(api, ns, 'late-0-0', '127.0.0.1');
      await waitForCluster(api, ns, 'late', 'Active after the restart', active, 40_000);
      expect(sumOf(controller, 'valkey_status_sync_watch_errors_total')).toBeGreaterThan(watchErrorsBefore);
      // The restarted server's watch cache starts past our resourceVersions: 410 Gone, and a relist.
      expect(controller.metrics.registry.render()).toMatch(
        /valkey_status_sync_watch_errors_total\{phase="watch",reason="gone",resource="[a-z]+"\} [1-9]/,
      );
      // Still stuck, still reported, and the others unaffected.
      expect((await waitForCluster(api, ns, 'fine', 'Active', active)).status?.state).toBe('Active');
    } finally {
      await controller.stop();
    }
  }, 120_000);

  it('TLS clusters: nodes are verified against the CA in the cluster Secret, and a wrong CA is refused', async () => {
    const { api, world, ns, book, startNode } = await inNamespace(suite, 'tls');
    const good = makePki([`*.secure.${ns}.svc.cluster.local`]);
    const other = makePki([`*.forged.${ns}.svc.cluster.local`]);
    const stranger = makePki(['nobody.example']);
    pkis.push(good, other, stranger);
    const secret = async (name: string, caPath: string, pki: TestPki) => {
      const r = await api.kubectl([
        'create',
        'secret',
        'generic',
        name,
        '-n',
        ns,
        `--from-file=ca.crt=${caPath}`,
        `--from-file=tls.crt=${pki.certPath}`,
        `--from-file=tls.key=${pki.keyPath}`,
      ]);
      expect(r.code, r.stderr).toBe(0);
    };
    await secret('secure-tls', good.caPath, good);
    await secret('forged-tls', stranger.caPath, other); // the CA does not match the node's certificate
    for (const [name, pki, secretName] of [
      ['secure', good, 'secure-tls'],
      ['forged', other, 'forged-tls'],
    ] as const) {
      await createCluster(api, { ns, name, shards: 1, replicasPerShard: 0, tlsSecret: secretName });
      const tlsPort = await freePort();
      const node = await startNode({ extraArgs: pki.tlsArgs(tlsPort) });
      book.set(await createPod(api, { ns, cluster: name, shard: 0, ordinal: 0, ip: '127.0.0.1' }), tlsPort, node.busPort);
    }
    const controller = await startController({ world, book, namespace: ns });
    try {
      await waitForCluster(api, ns, 'secure', 'Active over TLS', active, 30_000);
      const forged = await waitForCluster(api, ns, 'forged', 'unreachable', (c) => c.status?.nodes?.[0]?.health === 'unreachable', 30_000);
      expect(forged.status?.message).toMatch(/pod forged-0-0 does not answer: .*(self[- ]signed|unable to verify|certificate)/i);
    } finally {
      await controller.stop();
    }
  }, 90_000);

  it('leader election: one replica leads, a stolen lease stops it, a stopped leader hands over', async () => {
    const { api, world, ns, book, startPod } = await inNamespace(suite, 'leader');
    await createCluster(api, { ns, name: 'solo', shards: 1, replicasPerShard: 0 });
    await startPod({ ns, cluster: 'solo', shard: 0, ordinal: 0 });
    const election = (identity: string) => ({
      leaderElection: shortLeaseElection(identity),
      http: { host: '127.0.0.1', port: 0 },
    });
    const a = await startController({ world, book, namespace: ns, ...election('replica-a') });
    const b = await startController({ world, book, namespace: ns, ...election('replica-b') });
    try {
      await waitFor('exactly one leader', () => Number(a.app.isLeader()) + Number(b.app.isLeader()) === 1, { timeoutMs: 15_000 });
      const [leader, standby] = a.app.isLeader() ? [a, b] : [b, a];
      expect((await getLease(api)).spec.holderIdentity).toBe(leader === a ? 'replica-a' : 'replica-b');
      await waitForCluster(api, ns, 'solo', 'Active', active, 30_000);
      // Both are ready: the leader with synced caches, the standby by standing by.
      for (const c of [a, b]) expect((await fetch(`http://127.0.0.1:${c.app.httpPort}/readyz`)).status).toBe(200);
      expect(standby.metrics.reconciles.get({ kind: 'cluster', result: 'ok' })).toBe(0);

      // Someone else takes the lease (and keeps renewing it): the leader must stop within its renew deadline.
      const intruder = setInterval(() => void steal(api, 'intruder').catch(() => {}), 300);
      try {
        await waitFor('the leader steps down', () => !a.app.isLeader() && !b.app.isLeader(), { timeoutMs: 10_000 });
      } finally {
        clearInterval(intruder);
      }
      // The intruder stops renewing: after the lease duration one replica takes over again.
      await waitFor('a replica leads again', () => a.app.isLeader() || b.app.isLeader(), { timeoutMs: 15_000 });
      const second = a.app.isLeader() ? a : b;
      const other = second === a ? b : a;
      await second.stop();
      await waitFor('hand-over on graceful stop', () => other.app.isLeader(), { timeoutMs: 10_000 });
      const passes = other.metrics.reconciles.get({ kind: 'cluster', result: 'ok' });
      await waitFor('the new leader reconciles', () => other.metrics.reconciles.get({ kind: 'cluster', result: 'ok' }) > passes, {
        timeoutMs: 10_000,
      });
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 90_000);

  it('a referenced ValkeyImage is protected by a finalizer; the delete completes once the last config is gone', async () => {
    const { api, world } = suite;
    const imageName = 'valkey-9-0-protect';
    await apiCall(api, 'POST', '/apis/valkey.gomomento.com/v1alpha1/valkeyimages', image(imageName));
    for (const cfg of ['protect-a', 'protect-b']) {
      await apiCall(api, 'POST', '/apis/valkey.gomomento.com/v1alpha1/valkeyconfigs', config(cfg, { imageRef: imageName }));
    }
    const get = () => api.request('GET', `/apis/valkey.gomomento.com/v1alpha1/valkeyimages/${imageName}`);
    const finalizers = async () => (JSON.parse((await get()).body) as { metadata: { finalizers?: string[] } }).metadata.finalizers ?? [];
    const controller = await startController({ world, book: new EndpointBook(), namespace: 'protect-none' });
    try {
      await waitFor('finalizer added', async () => (await finalizers()).includes(IMAGE_FINALIZER), { timeoutMs: 15_000 });
      const del = await api.kubectl(['delete', 'valkeyimage', imageName, '--wait=false']);
      expect(del.code, del.stderr).toBe(0);
      const marked = JSON.parse((await get()).body) as { metadata: { deletionTimestamp?: string } };
      expect(marked.metadata.deletionTimestamp).toBeDefined();
      await apiCall(api, 'DELETE', '/apis/valkey.gomomento.com/v1alpha1/valkeyconfigs/protect-a');
      // One config still references it: it must stay.
      await waitFor(
        'the controller saw the first config go',
        () => controller.metrics.reconciles.get({ kind: 'images', result: 'ok' }) >= 3,
        { timeoutMs: 10_000 },
      );
      expect((await get()).status).toBe(200);
      await apiCall(api, 'DELETE', '/apis/valkey.gomomento.com/v1alpha1/valkeyconfigs/protect-b');
      await waitFor('image deleted', async () => (await get()).status === 404, { timeoutMs: 15_000 });
      await waitFor('the release counted', () => controller.metrics.finalizerWrites.get({ action: 'release' }) === 1, { timeoutMs: 5_000 });
      expect(controller.metrics.finalizerWrites.get({ action: 'add' })).toBe(1);
    } finally {
      await controller.stop();
    }
  }, 60_000);

  it('the shipped RBAC grants exactly what the controller needs, and the Deployment passes Pod Security "restricted"', async () => {
    const { api } = suite;
    const can = async (verb: string, group: string, resource: string, extra: AccessScope = {}) =>
      `${verb} ${resource}${extra.subresource ? `/${extra.subresource}` : ''}${extra.name ? ` ${extra.name}` : ''}${extra.namespace ? ` -n ${extra.namespace}` : ''}: ${(await controllerMay(api, verb, group, resource, extra)) ? 'yes' : 'no'}`;
    const V = 'valkey.gomomento.com';
    const C = 'coordination.k8s.io';
    const answers = await Promise.all([
      can('list', V, 'valkeyclusters'),
      can('watch', V, 'valkeyclusters'),
      can('watch', '', 'pods'),
      can('list', 'apps', 'statefulsets'),
      can('list', V, 'valkeyconfigs'),
      can('watch', V, 'valkeyimages'),
      can('patch', V, 'valkeyclusters', { namespace: 'team', subresource: 'status' }),
      can('patch', V, 'valkeyimages'),
      can('get', '', 'secrets', { namespace: 'team', name: 'tls' }),
      can('create', C, 'leases', { namespace: 'valkey-system' }),
      can('update', C, 'leases', { namespace: 'valkey-system', name: 'valkey-status-sync' }),
      can('patch', V, 'valkeyclusters', { namespace: 'team' }),
      can('update', V, 'valkeyclusters', { namespace: 'team' }),
      can('update', V, 'valkeyconfigs'),
      can('delete', V, 'valkeyimages'),
      can('list', '', 'secrets', { namespace: 'team' }),
      can('watch', '', 'secrets'),
      can('delete', '', 'pods', { namespace: 'team' }),
      can('create', '', 'pods', { namespace: 'team' }),
      can('update', 'apps', 'statefulsets', { namespace: 'team' }),
      can('delete', 'apps', 'statefulsets', { namespace: 'team' }),
      can('update', C, 'leases', { namespace: 'valkey-system', name: 'someone-else' }),
      can('create', C, 'leases', { namespace: 'team' }),
      can('get', 'policy', 'poddisruptionbudgets', { namespace: 'team' }),
      can('delete', 'policy', 'poddisruptionbudgets', { namespace: 'team' }),
      can('list', 'policy', 'poddisruptionbudgets', { namespace: 'team' }),
      can('update', 'policy', 'poddisruptionbudgets', { namespace: 'team' }),
      can('deletecollection', 'apps', 'statefulsets', { namespace: 'team' }),
    ]);
    expect(answers).toEqual([
      'list valkeyclusters: yes',
      'watch valkeyclusters: yes',
      'watch pods: yes',
      'list statefulsets: yes',
      'list valkeyconfigs: yes',
      'watch valkeyimages: yes',
      'patch valkeyclusters/status -n team: yes',
      'patch valkeyimages: yes',
      'get secrets tls -n team: yes',
      'create leases -n valkey-system: yes',
      'update leases valkey-status-sync -n valkey-system: yes',
      // patch: the metering finalizer only; deploy/controller/admission-policy.yaml refuses any other change (metering.integration).
      'patch valkeyclusters -n team: yes',
      'update valkeyclusters -n team: no',
      'update valkeyconfigs: no',
      'delete valkeyimages: no',
      'list secrets -n team: no',
      'watch secrets: no',
      'delete pods -n team: no',
      'create pods -n team: no',
      'update statefulsets -n team: no',
      'delete statefulsets -n team: yes', // a drained shard's StatefulSet, once no slot or key is left on it (scale-in)
      'update leases someone-else -n valkey-system: no',
      'create leases -n team: no',
      'get poddisruptionbudgets -n team: yes', // read first: only a PDB labelled as the retired shard's is deleted
      'delete poddisruptionbudgets -n team: yes', // with its UID and resourceVersion as preconditions
      'list poddisruptionbudgets -n team: no',
      'update poddisruptionbudgets -n team: no',
      'deletecollection statefulsets -n team: no',
    ]);

    const r = await api.kubectl(['apply', '--dry-run=server', '-f', join(REPO, 'deploy/controller/deployment.yaml')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/violate|PodSecurity/);
    const k = await api.kubectl(['kustomize', join(REPO, 'deploy/controller')]);
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout).toContain('kind: Deployment');
  }, 60_000);
});

function sumOf(c: TestController, metric: string): number {
  return c.metrics.registry
    .render()
    .split('\n')
    .filter((l) => l.startsWith(`${metric}{`) || l.startsWith(`${metric} `))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

/** Writes the lease as another holder would (a fresh renewTime each call). */
async function steal(api: ApiServer, holder: string): Promise<void> {
  const lease = await getLease(api);
  await apiCall(api, 'PUT', LEASE_PATH, {
    ...lease,
    spec: { ...lease.spec, holderIdentity: holder, renewTime: microTime(Date.now()), leaseDurationSeconds: 2 },
  });
}
