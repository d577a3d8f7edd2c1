// Retiring a shard's objects against a real kube-apiserver: what is deleted, in which order, and
// what is left alone. The concurrent writers a live cluster has (the disruption controller writing
// a PDB's status, a StatefulSet re-created for a spec that wants the shard again) are real writes
// to the same API server, made between the controller's read and its delete.
import { describe, expect, it } from 'vitest';
import { LABELS, MANAGED_BY } from '../../../src/api/index.js';
import type { KubeClient } from '../../../src/controller/kube/client.js';
import { deleteRetiredShard } from '../../../src/controller/kube/delete-shard.js';
import { useApiServerClient } from '../../support/controller/suite.js';

const NS = 'retire';
const labels = (cluster: string, shard: number) => ({
  [LABELS.managedBy]: MANAGED_BY,
  [LABELS.cluster]: cluster,
  [LABELS.shard]: String(shard),
});
const selector = { matchLabels: { app: 'x' } };

const pdb = (name: string, l: Record<string, string>) => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name, labels: l },
  spec: { maxUnavailable: 1, selector },
});
const sts = (name: string, l: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, labels: l },
  spec: {
    serviceName: name,
    replicas: 0,
    selector,
    template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'valkey', image: 'valkey:9.1.2' }] } },
  },
});

const PDBS = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
const SETS = `/apis/apps/v1/namespaces/${NS}/statefulsets`;

describe('deleteRetiredShard on a real kube-apiserver', () => {
  const suite = useApiServerClient([NS]);

  const create = (path: string, body: unknown) => suite.client.request('POST', path, { body });
  const exists = async (path: string) => (await suite.server.request('GET', path)).status === 200;

  /** The client, with `hook` run once right after the first GET of a path ending in `suffix`. */
  function interleaved(suffix: string, hook: () => Promise<void>) {
    /** Every DELETE sent, refused or not. */
    const deletes: string[] = [];
    let fired = false;
    const wrapped: KubeClient = {
      watch: (p, i) => suite.client.watch(p, i),
      async request<T>(method: Parameters<KubeClient['request']>[0], path: string, init?: Parameters<KubeClient['request']>[2]) {
        if (method === 'DELETE') deletes.push(path.split('/').slice(-2).join('/'));
        const r = await suite.client.request<T>(method, path, init);
        if (method === 'GET' && path.endsWith(suffix) && !fired) {
          fired = true;
          await hook();
        }
        return r;
      },
    };
    return { client: wrapped, deletes };
  }

  it('deletes the PDB first, then the StatefulSet, even when the PDB status is written between the read and the delete', async () => {
    await create(PDBS, pdb('a-3', labels('a', 3)));
    await create(SETS, sts('a-3', labels('a', 3)));
    const { client: c, deletes } = interleaved('/poddisruptionbudgets/a-3', async () => {
      // What the disruption controller does as the shard's pods go: a status write, a new resourceVersion.
      const live = await suite.client.request<{ metadata: { resourceVersion: string } }>('GET', `${PDBS}/a-3`);
      await suite.client.request('PUT', `${PDBS}/a-3/status`, {
        body: {
          ...pdb('a-3', labels('a', 3)),
          metadata: { name: 'a-3', labels: labels('a', 3), resourceVersion: live.metadata.resourceVersion },
          status: { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0, observedGeneration: 1 },
        },
      });
    });
    await deleteRetiredShard(c, NS, 'a', 3);
    // The first delete of the PDB carried the old resourceVersion (refused, 409); read again, deleted.
    expect(deletes).toEqual(['poddisruptionbudgets/a-3', 'poddisruptionbudgets/a-3', 'statefulsets/a-3']);
    expect(await exists(`${PDBS}/a-3`)).toBe(false);
    expect(await exists(`${SETS}/a-3`)).toBe(false);
    // Once more: both already gone is success.
    await deleteRetiredShard(suite.client, NS, 'a', 3);
  });

  it('a StatefulSet re-created between the read and the delete is left alone', async () => {
    await create(SETS, sts('b-3', labels('b', 3)));
    const { client: c } = interleaved('/statefulsets/b-3', async () => {
      await suite.client.request('DELETE', `${SETS}/b-3`);
      await create(SETS, sts('b-3', labels('b', 3)));
    });
    await expect(deleteRetiredShard(c, NS, 'b', 3)).rejects.toThrow(
      `StatefulSet ${NS}/b-3 was re-created while it was being deleted; left alone, the next pass looks again`,
    );
    expect(await exists(`${SETS}/b-3`)).toBe(true);
  });

  it('objects valkey-krm did not render for the shard are left alone and named; the rest is deleted', async () => {
    await create(PDBS, pdb('c-3', { team: 'own' }));
    await create(SETS, sts('c-3', labels('c', 3)));
    await create(SETS, sts('d-3', labels('other', 3)));
    await expect(deleteRetiredShard(suite.client, NS, 'c', 3)).rejects.toThrow(
      `PodDisruptionBudget ${NS}/c-3 is not labelled ${LABELS.managedBy}=${MANAGED_BY}; the controller deletes only what valkey-krm rendered for the shard`,
    );
    expect(await exists(`${PDBS}/c-3`)).toBe(true);
    expect(await exists(`${SETS}/c-3`)).toBe(false);
    await expect(deleteRetiredShard(suite.client, NS, 'd', 3)).rejects.toThrow(
      `StatefulSet ${NS}/d-3 is not labelled as cluster d, shard 3`,
    );
    expect(await exists(`${SETS}/d-3`)).toBe(true);
  });
});
