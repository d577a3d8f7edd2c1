import { canonicalJson } from '../api/canonical-json.js';
import { sha256 } from './configmap.js';

/**
 * What a change to a cluster asks of its running pods, as digests the controller compares:
 * - `restart`: on the pod template. It changes exactly when the pods must restart, and is the same
 *   on every shard, so it also names the revision a roll goes to (and a data-loss opt-in, §6.1).
 * - `live`: on the StatefulSets only. It changes when a live setting or users.acl changes, and
 *   leaves the pod template byte-identical: the controller applies such a change in place.
 * - `acl`: the revision of users.acl, also in the file itself (its marker user).
 * All are opaque: compare them, never recompute them.
 */
export interface ClusterRevisions {
  restart: string;
  live: string;
  acl: string;
}

/**
 * The restart hash: the directive lines that need a restart, and the pod template of shard 0
 * without the hash itself. Every shard's template differs from shard 0's by its shard number only,
 * which never changes for a StatefulSet, so one digest covers them all; and it does not depend on
 * the number of shards, so adding a shard rolls nothing.
 */
export function restartHash(restartLines: readonly string[], shardZeroTemplate: unknown): string {
  return restartHashOfText(restartLines, canonicalJson(shardZeroTemplate));
}

/** restartHash of a pod template whose canonicalJson text is `templateText`. */
export const restartHashOfText = (restartLines: readonly string[], templateText: string): string =>
  sha256(`${restartLines.join('\n')}\n${templateText}`);

/** The live revision: the live directive lines, then the whole users.acl (marker included). */
export function liveRevision(liveLines: readonly string[], usersAcl: string): string {
  return sha256(`${liveLines.join('\n')}\n\n${usersAcl}`);
}
