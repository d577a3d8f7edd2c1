import type { ClusterInfo, ClusterNode } from './cluster-nodes.js';
import type { Endpoint } from './formation.js';
import type { ServerIdentity } from './info.js';
import type { GateVerdict } from './version-gate.js';

/** Which pod, in which shard, at which ordinal (`<cluster>-<shard>-<ordinal>`). */
export interface PodPlace {
  pod: string;
  shard: number;
  ordinal: number;
  ip?: string;
}

/** Pods in shard order, then ordinal order. */
export const byPosition = (a: Pick<PodPlace, 'shard' | 'ordinal'>, b: Pick<PodPlace, 'shard' | 'ordinal'>): number => a.shard - b.shard || a.ordinal - b.ordinal;

/** What one probe of one pod found. Every outcome is data; probes never throw. */
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
      }
  );

export type Answered = Extract<NodeObservation, { state: 'answered' }>;
export type Rejected = Extract<NodeObservation, { state: 'rejected' }>;

export const isAnswered = (o: NodeObservation): o is Answered => o.state === 'answered';
export const isRejected = (o: NodeObservation): o is Rejected => o.state === 'rejected';
