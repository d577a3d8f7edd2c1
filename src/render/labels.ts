import { LABELS, MANAGED_BY, shardLabelValue } from '../api/index.js';

/** Labels on every generated object of cluster `name`. */
export function clusterLabels(name: string): Record<string, string> {
  return {
    [LABELS.name]: 'valkey',
    [LABELS.instance]: name,
    [LABELS.managedBy]: MANAGED_BY,
    [LABELS.cluster]: name,
  };
}

export function shardLabels(name: string, shard: number): Record<string, string> {
  return { ...clusterLabels(name), [LABELS.shard]: shardLabelValue(shard) };
}

/** Selectors stay minimal: a StatefulSet's selector can never change once created. */
export const clusterSelector = (name: string) => ({ [LABELS.cluster]: name });
export const shardSelector = (name: string, shard: number) => ({ [LABELS.cluster]: name, [LABELS.shard]: shardLabelValue(shard) });
