/**
 * Shards in: a drained, forgotten shard's PDB and StatefulSet go (the renderer stopped rendering
 * them; prune protection kept them until now).
 *
 * - Only objects valkey-krm rendered for this very shard are deleted (managed-by, cluster and shard
 *   labels). One that is not is left alone and named in the error, after the rest is deleted.
 * - Each delete carries the UID and resourceVersion just read as preconditions, so an object
 *   re-created since (a new StatefulSet of the same name, for a spec that wants the shard again)
 *   is left alone. A resourceVersion that moved on the same object (the disruption controller
 *   writes the PDB's status while the pods come and go) is read again and its labels checked
 *   again, a few times.
 * - The PDB goes first. The StatefulSet is what the planner sees, so a retirement interrupted
 *   between the two is retried by the next pass; a PDB left behind a deleted StatefulSet would be
 *   seen by nothing.
 * - A 404 means an earlier pass got there.
 */
import { LABELS, MANAGED_BY, shardName } from '../../api/index.js';
import { isApiError, type KubeClient } from './client.js';
import { paths } from './paths.js';
import type { ApiObject } from './types.js';

const ATTEMPTS = 3;

export async function deleteRetiredShard(client: KubeClient, namespace: string, cluster: string, shard: number): Promise<void> {
  const name = shardName(cluster, shard);
  const refused: string[] = [];
  for (const [kind, path] of [
    ['PodDisruptionBudget', `${paths.podDisruptionBudgets(namespace)}/${name}`],
    ['StatefulSet', `${paths.statefulSets(namespace)}/${name}`],
  ] as const) {
    const what = `${kind} ${namespace}/${name}`;
    const refusal = await deleteRendered(client, { what, path, cluster, shard });
    if (refusal) refused.push(`${what} ${refusal}`);
  }
  if (refused.length) throw new Error(`${refused.join('; ')}; the controller deletes only what valkey-krm rendered for the shard`);
}

/** Deletes the object at `path` (`what` names it) if valkey-krm rendered it for the shard; why not, when it did not. */
async function deleteRendered(
  client: KubeClient,
  { what, path, cluster, shard }: { what: string; path: string; cluster: string; shard: number },
): Promise<string | undefined> {
  let firstUid: string | undefined;
  for (let attempt = 1; ; attempt++) {
    let live: ApiObject;
    try {
      live = await client.request<ApiObject>('GET', path);
    } catch (e) {
      if (isApiError(e, 404)) return undefined;
      throw e;
    }
    firstUid ??= live.metadata.uid;
    if (live.metadata.uid !== firstUid)
      throw new Error(`${what} was re-created while it was being deleted; left alone, the next pass looks again`);
    const refusal = notRenderedForShard(live, cluster, shard);
    if (refusal) return refusal;
    const preconditions = { uid: live.metadata.uid, resourceVersion: live.metadata.resourceVersion };
    try {
      await client.request('DELETE', path, { body: { propagationPolicy: 'Background', preconditions } });
      return undefined;
    } catch (e) {
      if (isApiError(e, 404)) return undefined;
      if (!isApiError(e, 409)) throw e;
      if (attempt === ATTEMPTS)
        throw new Error(
          `${what} changed ${ATTEMPTS} times between read and delete (UID or resourceVersion); not deleted, the next pass looks again`,
        );
    }
  }
}

/** Why `o` is not the object valkey-krm rendered for `cluster`'s shard `shard`, or undefined when it is. */
function notRenderedForShard(o: ApiObject, cluster: string, shard: number): string | undefined {
  const labels = o.metadata.labels ?? {};
  if (labels[LABELS.managedBy] !== MANAGED_BY) return `is not labelled ${LABELS.managedBy}=${MANAGED_BY}`;
  if (labels[LABELS.cluster] !== cluster || labels[LABELS.shard] !== String(shard))
    return `is not labelled as cluster ${cluster}, shard ${shard}`;
  if (!o.metadata.uid || !o.metadata.resourceVersion) return 'has no UID or resourceVersion to delete it by';
  return undefined;
}
