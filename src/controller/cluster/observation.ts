import { isMyself, type ClusterInfo, type ClusterNode } from './cluster-view.js';
import type { ServerIdentity } from './server-identity.js';
import type { GateVerdict } from './version-gate.js';

/** Which pod, in which shard, at which ordinal (`<cluster>-<shard>-<ordinal>`). */
export interface PodPlace {
  pod: string;
  shard: number;
  ordinal: number;
  ip?: string;
}

/** Pods in shard order, then ordinal order. */
export const byPosition = (a: Pick<PodPlace, 'shard' | 'ordinal'>, b: Pick<PodPlace, 'shard' | 'ordinal'>): number =>
  a.shard - b.shard || a.ordinal - b.ordinal;

/** Where a node listens: MEET needs an IP, the client port and the cluster bus port. */
export interface Endpoint {
  host: string;
  port: number;
  busPort: number;
}

/** From `INFO replication`: whether a replica has every write of its primary. */
export interface Replication {
  role: 'primary' | 'replica';
  /** A replica's `master_link_status:up`. */
  linkUp: boolean;
  /** A replica's `master_sync_in_progress:1` (a full sync running). */
  syncing: boolean;
  /** `master_repl_offset` on a primary; `slave_repl_offset` on a replica. */
  offset: number;
}

/** What asking one pod found. Every outcome is data; asking never throws. */
export type NodeObservation = PodPlace &
  (
    | { state: 'pending'; reason: string }
    | { state: 'unreachable'; error: string }
    | { state: 'loading' }
    | { state: 'rejected'; identity: ServerIdentity; verdict: Extract<GateVerdict, { ok: false }> }
    | {
        state: 'answered';
        identity: ServerIdentity;
        version: string;
        endpoint: Endpoint;
        view: ClusterNode[];
        info: ClusterInfo;
        replication?: Replication;
      }
  );

export type Answered = Extract<NodeObservation, { state: 'answered' }>;
export type Rejected = Extract<NodeObservation, { state: 'rejected' }>;

/** The replication offset of the primary a node replicates, as that primary reported it; undefined if it did not answer. */
export function primaryOffsetOf(node: Answered, answered: readonly Answered[]): number | undefined {
  const primaryId = node.view.find(isMyself)?.primaryId;
  if (primaryId === undefined) return undefined;
  const primary = answered.find((o) => o.view.some((n) => isMyself(n) && n.id === primaryId));
  return primary?.replication?.offset;
}

export const isAnswered = (o: NodeObservation): o is Answered => o.state === 'answered';

/** Every pod with a server answered (none unreachable or loading): a node no member is cannot be one of them. */
export const everyPodObserved = (observations: readonly NodeObservation[]): boolean =>
  observations.every((o) => o.state !== 'unreachable' && o.state !== 'loading');
export const isRejected = (o: NodeObservation): o is Rejected => o.state === 'rejected';

/**
 * A pod whose server answered and passed the version gate, with its own view of the cluster: what
 * formation plans from. Every answered observation is one.
 */
export interface Member {
  pod: string;
  shard: number;
  ordinal: number;
  endpoint: Endpoint;
  /** Its `CLUSTER NODES`, including the `myself` line. */
  view: readonly ClusterNode[];
}
