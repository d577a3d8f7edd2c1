import { ANNOTATIONS, describeRef, error, LABELS, type Problem } from '../api/index.js';
import { isValkeyObject, objectRefOf } from '../menu/parse.js';
import { own, ownPath } from '../menu/own.js';
import { clustersNamedBy, isEarlierOutput, renderedNameMatches, wearsOurLabel } from './ownership.js';
import type { InputItem } from './run-function.js';

/**
 * Everything in a package that claims to be valkey-krm's output must be exactly what the render
 * writes, once. A pull request can add a StatefulSet named like a shard (`<cluster>-7`, with the
 * cluster's labels) or a hand-edited second copy of a rendered object in another file: the render
 * and the plan would leave it alone, `kubectl apply -R` or a GitOps tool would run it, and its
 * pods would look like the cluster's. Such an object is an error naming what it claims and how.
 */

/** A ValkeyCluster of the package, as far as claims go. */
export interface PackageCluster {
  namespace: string;
  name: string;
  /** spec.shards, when it is a number. */
  shards?: number;
}

/** Kinds that make pods: the cluster's label on them (or on their pod template) claims its pods. */
const POD_MAKERS = new Set(['Pod', 'StatefulSet', 'Deployment', 'ReplicaSet', 'DaemonSet', 'Job', 'CronJob', 'ReplicationController']);

export interface ClaimOptions {
  outputDir?: string;
  /**
   * Earlier output of a shard at or above spec.shards is a finding too (plan): a render replaces
   * it, so only a package read as it is (plan, kubectl apply -R) would keep it.
   */
  earlierOutputBeyondShards?: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The clusters `value` claims to be output of, each with how. */
function claims(value: unknown, clusters: ReadonlyMap<string, PackageCluster>): { cluster: PackageCluster; how: string }[] {
  const namespace = str(ownPath(value, 'metadata', 'namespace')) ?? '';
  const name = str(ownPath(value, 'metadata', 'name')) ?? '';
  const [apiVersion, kind] = [own(value, 'apiVersion'), own(value, 'kind')];
  const out = new Map<string, { cluster: PackageCluster; how: string }>();
  const add = (key: string, how: string): void => {
    const cluster = clusters.get(key);
    if (cluster && !out.has(key)) out.set(key, { cluster, how });
  };
  const owner = str(ownPath(value, 'metadata', 'annotations', ANNOTATIONS.renderedFor));
  if (owner !== undefined) add(owner, `its ${ANNOTATIONS.renderedFor} annotation`);
  // The clusters its name could be rendered for (at most one reading per kind), looked up: not
  // every cluster of the package tried against every item.
  for (const cluster of clustersNamedBy(kind, name))
    if (clusters.has(`${namespace}/${cluster}`) && renderedNameMatches(apiVersion, kind, name, cluster))
      add(`${namespace}/${cluster}`, 'its kind and name');
  if (typeof kind === 'string' && POD_MAKERS.has(kind)) {
    const own = str(ownPath(value, 'metadata', 'labels', LABELS.cluster));
    const template =
      str(ownPath(value, 'spec', 'template', 'metadata', 'labels', LABELS.cluster)) ??
      str(ownPath(value, 'spec', 'jobTemplate', 'spec', 'template', 'metadata', 'labels', LABELS.cluster));
    if (own !== undefined) add(`${namespace}/${own}`, `its ${LABELS.cluster} label`);
    if (template !== undefined) add(`${namespace}/${template}`, `the ${LABELS.cluster} label of its pods`);
  }
  // Any other kind says it is ours by wearing both our managed-by label and the cluster's label
  // (a Service, NetworkPolicy or ConfigMap the render does not write, e.g. `<cluster>-extra`).
  const labelled = str(ownPath(value, 'metadata', 'labels', LABELS.cluster));
  if (labelled !== undefined && wearsOurLabel(value) && !isValkeyObject(apiVersion, kind))
    add(`${namespace}/${labelled}`, `its ${LABELS.managedBy} and ${LABELS.cluster} labels`);
  return [...out.values()];
}

/** The shard a StatefulSet or PodDisruptionBudget named `<cluster>-<n>` is for. */
function shardOf(value: unknown, cluster: string): number | undefined {
  const kind = own(value, 'kind');
  if (kind !== 'StatefulSet' && kind !== 'PodDisruptionBudget') return undefined;
  const name = str(ownPath(value, 'metadata', 'name')) ?? '';
  const rest = name.startsWith(`${cluster}-`) ? name.slice(cluster.length + 1) : '';
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}

const identity = (value: unknown): string => {
  const r = objectRefOf(value);
  return JSON.stringify([r.apiVersion, r.kind, r.namespace ?? '', r.name]);
};

const placeOf = (item: InputItem): string =>
  item.file ? `${item.file.path}${item.file.index !== undefined ? ` #${item.file.index}` : ''}` : 'the input';

export function claimedOutputProblems(
  items: readonly InputItem[],
  packageClusters: readonly PackageCluster[],
  options: ClaimOptions = {},
): Problem[] {
  const clusters = new Map(packageClusters.map((c) => [`${c.namespace}/${c.name}`, c]));
  const problems: Problem[] = [];
  const claimed = new Map<string, InputItem[]>();
  for (const item of items) {
    const value = item.value;
    if (typeof own(value, 'kind') !== 'string' || typeof own(value, 'apiVersion') !== 'string') continue;
    const found = claims(value, clusters);
    if (found.length === 0) continue;
    const key = identity(value);
    const copies = claimed.get(key);
    if (copies) copies.push(item);
    else claimed.set(key, [item]);
    const first = found[0] as { cluster: PackageCluster; how: string };
    // The words of a finding, made only for one: nearly every claim is earlier output, in order.
    const ref = () => objectRefOf(value);
    const where = () => describeRef(ref());
    const of = `ValkeyCluster ${first.cluster.namespace}/${first.cluster.name}`;
    if (!isEarlierOutput(value, options.outputDir)) {
      problems.push(
        error(
          `${where()} (${placeOf(item)}): claims to be part of ${of} by ${first.how}, but valkey-krm did not render it; a cluster's objects come only from the render (its pods would pass for the cluster's): remove it, or rename it and drop the cluster's labels`,
          ref(),
        ),
      );
      continue;
    }
    const shard = shardOf(value, first.cluster.name);
    if (options.earlierOutputBeyondShards && shard !== undefined && first.cluster.shards !== undefined && shard >= first.cluster.shards)
      problems.push(
        error(
          `${where()} (${placeOf(item)}): committed as rendered output for shard ${shard} of ${of}, which has spec.shards ${first.cluster.shards}: a fresh render no longer writes it; run kpt fn render (or render-valkey over the package) and commit what it writes`,
          ref(),
        ),
      );
  }
  for (const [, copies] of [...claimed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (copies.length < 2) continue;
    const ref = objectRefOf(copies[0]?.value);
    problems.push(
      error(
        `${describeRef(ref)}: defined ${copies.length} times (${copies.map(placeOf).join(', ')}); a rendered object is written once, by the render, and kubectl apply -R would run whichever copy comes last: remove the copies`,
        ref,
      ),
    );
  }
  return problems;
}

/** The package's ValkeyClusters, from the objects sortInputs found. */
export function packageClusters(valkeyObjects: readonly unknown[]): PackageCluster[] {
  return valkeyObjects.flatMap((v) => {
    if (own(v, 'kind') !== 'ValkeyCluster') return [];
    const namespace = str(ownPath(v, 'metadata', 'namespace'));
    const name = str(ownPath(v, 'metadata', 'name'));
    const shards = ownPath(v, 'spec', 'shards');
    return namespace && name ? [{ namespace, name, ...(typeof shards === 'number' ? { shards } : {}) }] : [];
  });
}
