import { ALLOW_EVERY_DATA_LOSS_ROLL, optInCovers, readDataLossOptIn } from '../api/contract/data-loss-opt-in.js';
import { ANNOTATIONS, error, info, valkeyRef, warning, type Problem, type ValkeyCluster } from '../api/index.js';
import type { PreviousCluster } from './previous.js';

const OPT_IN_FIELD = `metadata.annotations["${ANNOTATIONS.allowDataLossRoll}"]`;

export interface RolloutFindings {
  problems: Problem[];
}

/**
 * What a reviewer must see before merging a change to a running cluster, beyond the diff: a roll
 * that cannot keep a shard's data, and a TLS toggle that breaks every client. `restartHash` is the
 * revision this render rolls the pods to.
 */
export function rolloutFindings(cluster: ValkeyCluster, restartHash: string, previous: PreviousCluster | undefined): RolloutFindings {
  const namespace = cluster.metadata.namespace as string;
  const ref = valkeyRef('ValkeyCluster', cluster.metadata.name, namespace);
  const who = `ValkeyCluster ${namespace}/${cluster.metadata.name}`;
  const problems: Problem[] = [];

  const optIn = cluster.metadata.annotations?.[ANNOTATIONS.allowDataLossRoll];
  const wellFormed = readDataLossOptIn(optIn).kind !== 'malformed';
  if (!wellFormed) {
    problems.push(
      error(
        `${who}: ${OPT_IN_FIELD}: "${optIn}" is neither "${ALLOW_EVERY_DATA_LOSS_ROLL}" nor a restart hash (64 lowercase hex digits); set it to "${restartHash}" to allow the roll to this revision only, or "${ALLOW_EVERY_DATA_LOSS_ROLL}" for every roll, or remove it`,
        ref,
        OPT_IN_FIELD,
      ),
    );
  }

  if (cluster.spec.replicasPerShard === 0) {
    problems.push(...zeroReplicaFindings(who, ref, restartHash, wellFormed ? optIn : undefined));
  } else if (optIn !== undefined && wellFormed) {
    problems.push(
      info(
        `${who}: ${OPT_IN_FIELD}: has no effect: every shard has a replica, so a roll fails over first and keeps the data; remove it`,
        ref,
        OPT_IN_FIELD,
      ),
    );
  }

  const tls = cluster.spec.tls !== undefined;
  if (previous !== undefined && previous.tls !== tls) problems.push(tlsToggleWarning(who, ref, tls));

  return { problems };
}

/** The cluster's data-loss opt-in, when it has a well-formed one, to copy onto its StatefulSets. */
export function allowedDataLossRoll(cluster: ValkeyCluster): string | undefined {
  const optIn = cluster.metadata.annotations?.[ANNOTATIONS.allowDataLossRoll];
  return optIn !== undefined && readDataLossOptIn(optIn).kind !== 'malformed' ? optIn : undefined;
}

/**
 * A zero-replica cluster is a warning until a reviewer acknowledges it with an opt-in that covers
 * this render's revision: from then on the annotation in git says it, and repeating it on every
 * render would only teach people to ignore warnings.
 */
function zeroReplicaFindings(who: string, ref: ReturnType<typeof valkeyRef>, restartHash: string, optIn: string | undefined): Problem[] {
  if (optInCovers(readDataLossOptIn(optIn), restartHash)) return [];
  const problems = [
    warning(
      `${who}: spec.replicasPerShard: 0 replicas: each shard's data lives on its one pod (an emptyDir), so rolling the shard (a new image, resources, placement or restart-only setting) or losing its node loses that shard's data. The controller holds such a roll until a reviewer opts in on this ValkeyCluster with ${OPT_IN_FIELD}: "${restartHash}" (this revision) or "${ALLOW_EVERY_DATA_LOSS_ROLL}" (every revision); set replicasPerShard to 1 or more to roll by failover instead`,
      ref,
      'spec.replicasPerShard',
    ),
  ];
  if (optIn !== undefined) {
    problems.push(
      warning(
        `${who}: ${OPT_IN_FIELD}: allows the roll to restart revision ${optIn}, but this render's is ${restartHash}: the opt-in does not cover it, so the controller holds any roll of this cluster; set it to "${restartHash}" to allow this one (losing each shard's data), or remove it`,
        ref,
        OPT_IN_FIELD,
      ),
    );
  }
  return problems;
}

function tlsToggleWarning(who: string, ref: ReturnType<typeof valkeyRef>, tls: boolean): Problem {
  const change = tls
    ? 'turns TLS on for a running cluster (its StatefulSets in the input ran without TLS): every pod restarts serving TLS only, so plaintext clients are refused'
    : 'turns TLS off for a running cluster (its StatefulSets in the input ran with TLS): every pod restarts serving plaintext only, so TLS clients are refused';
  return warning(
    `${who}: spec.tls: ${change} by each node as soon as it restarts, and until the roll ends the restarted nodes and the others cannot reach each other on the cluster bus: a client-visible break, not a rolling update. Switch the clients in the same window, or create a new cluster and move the clients to it`,
    ref,
    'spec.tls',
  );
}
