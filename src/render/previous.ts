import { ANNOTATIONS, LABELS, MANAGED_BY } from '../api/index.js';

/**
 * What the renderer's own earlier output says about a cluster that already runs. kpt sends a
 * package's rendered files back in on every re-render, so the previous StatefulSets of a cluster
 * are in the input: comparing with them is how a render sees a change that is not just a new
 * revision but a break (TLS turned on or off).
 */
export interface PreviousCluster {
  /** Some previous StatefulSet of the cluster named a TLS Secret. */
  tls: boolean;
}

interface ObjectLike {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { namespace?: unknown; labels?: Record<string, unknown>; annotations?: Record<string, unknown> };
}

/** By `namespace/name`: the clusters whose StatefulSets, rendered by valkey-krm, are in `objects`. */
export function previousClusters(objects: readonly unknown[]): Map<string, PreviousCluster> {
  const found = new Map<string, PreviousCluster>();
  for (const value of objects) {
    const o = value as ObjectLike | null;
    if (o === null || typeof o !== 'object' || o.apiVersion !== 'apps/v1' || o.kind !== 'StatefulSet') continue;
    const labels = o.metadata?.labels ?? {};
    const cluster = labels[LABELS.cluster];
    const namespace = o.metadata?.namespace;
    if (labels[LABELS.managedBy] !== MANAGED_BY || typeof cluster !== 'string' || typeof namespace !== 'string') continue;
    const key = `${namespace}/${cluster}`;
    // Any shard on TLS counts, so the answer does not depend on the order of the input.
    const tls = typeof o.metadata?.annotations?.[ANNOTATIONS.tls] === 'string' || found.get(key)?.tls === true;
    found.set(key, { tls });
  }
  return found;
}
