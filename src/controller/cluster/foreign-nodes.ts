import { formatRanges, type SlotRange } from '../../api/contract/slots.js';
import type { ValkeyClusterStatus } from '../../api/index.js';
import { inHandshake, isMyself, type ClusterNode } from './cluster-view.js';
import type { Member } from './observation.js';

/**
 * Which cluster a node in a `CLUSTER NODES` view belongs to (docs/security.md, "One cluster never
 * joins another"). Two clusters merge when one of them meets a node of the other: a pod of cluster B
 * given the address a dead pod of cluster A had, met by A at that address, brings every node of B
 * into A's tables, and the slots of both are decided by config epoch, so one cluster's primaries
 * lose their slots (and their keys) to the other's. Every pass sorts the node ids its members list:
 * - **own**: the `myself` id of a proven pod of this cluster (a member of the pass);
 * - **departed**: not a member, but announcing the hostname of a pod of this cluster
 *   (`<cluster>-<shard>-<ordinal>.<cluster>.<namespace>.svc.`), or announcing none while its id is
 *   one a proven pod of this cluster had (the history below): a replaced pod's old node, a retired
 *   shard's node, a pod that did not answer this pass. Formation forgets it once the cluster marks
 *   it failed, after its replica took its slots over (formation.ts);
 * - **foreign**: anything else. Every rendered pod announces its hostname, so a node announcing
 *   another one, or (once every pod answered) none at all while the cluster's own nodes do and no
 *   pod of this cluster ever had its id, is not of this cluster. It is forgotten on every member
 *   that knows it at once, never met, never failed over to, and nothing else in formation acts
 *   while one is known.
 * A node in handshake (a MEET under way) has a random id until it answers and is left alone.
 *
 * Why the history: Valkey spreads a node's hostname only in that node's own messages (a ping
 * extension), never in gossip about it. A pod that joins after a node died learns the dead node from
 * the others' gossip, with its id, address and flags but no hostname (measured on 9.1.2). Once
 * every member that heard the dead node itself is replaced too (a node-pool upgrade replaces every
 * pod in turn), no member can say whose it was, and the hostname rule alone took this cluster's own
 * departed node for another cluster's: a ForeignNode Warning, formation stopped, and the dead
 * primary forgotten on the primaries whose votes its replica needed. The ids this cluster's proven
 * pods had are therefore kept in status (`nodes[].nodeId`, `nodes[].formerNodeIds`) for as long as a
 * member still lists them, so the record survives a restart or a leader handover of the controller.
 * An id in that record that announces another cluster's hostname is still foreign: the hostname is
 * what the node itself says now.
 */

export interface ClusterIdentity {
  cluster: string;
  namespace: string;
}

/** What the members say about a node that is not one of them. */
export interface OtherNode {
  id: string;
  address: string;
  hostname?: string;
  flags: string[];
  slots: SlotRange[];
  failed: boolean;
  /** The members (pods) that list it, in position order. */
  knownBy: Member[];
  /** The members that replicate it (a member cannot forget its own primary). */
  replicatedBy: Member[];
}

export interface NodeClassification {
  own: ReadonlySet<string>;
  departed: ReadonlyMap<string, OtherNode>;
  foreign: ReadonlyMap<string, OtherNode>;
}

/** Node ids proven this cluster's: id → the pod that had it (from status, see the header). */
export type OwnNodeHistory = ReadonlyMap<string, string>;

/**
 * The ids the given statuses record for this cluster's pods: each pod's `nodeId` and `formerNodeIds`.
 * Both the status the API server shows and the one this process last wrote are passed (the watch
 * may not have brought the last write back yet); the union is taken.
 */
export function ownNodeHistory(...statuses: readonly (ValkeyClusterStatus | undefined)[]): Map<string, string> {
  const history = new Map<string, string>();
  for (const status of statuses)
    for (const n of status?.nodes ?? []) {
      if (n.nodeId !== undefined && !history.has(n.nodeId)) history.set(n.nodeId, n.pod);
      for (const id of n.formerNodeIds ?? []) if (!history.has(id)) history.set(id, n.pod);
    }
  return history;
}

/**
 * How long an id of this cluster's must have been listed by no node before it leaves the history.
 * One pass in which no node lists it is not enough: a pod that did not exist then (a StatefulSet
 * re-creating it) or one that forgot the id only for FORGET's 60 s ban can learn it again from
 * another's gossip, and without the history the id would read as another cluster's node.
 */
export const FORMER_ID_GRACE_MS = 5 * 60_000;

/**
 * Each pod's former node ids for the next status: the ids the history gives it that are no
 * member's own now and that some member still lists, or listed within FORMER_ID_GRACE_MS
 * (`unlistedSince`, this process's memory of when each id was first seen unlisted, updated here;
 * after a restart the grace starts again, so an id is only ever kept longer). Every id is kept
 * while a pod did not answer, since it may list them. Sorted, so the status is the same whatever
 * the order of the views.
 */
export function formerNodeIds(
  history: OwnNodeHistory,
  members: readonly Member[],
  allPodsObserved: boolean,
  grace: { unlistedSince: Map<string, number>; nowMs: number },
): Map<string, string[]> {
  const own = new Set<string>();
  const listed = new Set<string>();
  for (const m of members)
    for (const n of m.view) {
      if (isMyself(n)) own.add(n.id);
      else listed.add(n.id);
    }
  const former = new Map<string, string[]>();
  const { unlistedSince, nowMs } = grace;
  for (const [id, pod] of history) {
    if (own.has(id)) {
      unlistedSince.delete(id);
      continue;
    }
    if (allPodsObserved && !listed.has(id)) {
      const since = unlistedSince.get(id) ?? nowMs;
      unlistedSince.set(id, since);
      if (nowMs - since >= FORMER_ID_GRACE_MS) continue;
    } else unlistedSince.delete(id);
    former.set(pod, [...(former.get(pod) ?? []), id]);
  }
  for (const id of unlistedSince.keys()) if (!history.has(id)) unlistedSince.delete(id);
  for (const ids of former.values()) ids.sort();
  return former;
}

/** The start of the hostname every pod of this cluster announces (`--cluster-announce-hostname`), domain left out. */
export function ownHostnamePattern({ cluster, namespace }: ClusterIdentity): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${esc(cluster)}-(0|[1-9]\\d{0,5})-(0|[1-9]\\d{0,5})\\.${esc(cluster)}\\.${esc(namespace)}\\.svc(\\.|$)`);
}

/** The hostname pod `pod` of this cluster announces, up to the cluster domain. */
export const podHostnamePrefix = (pod: string, { cluster, namespace }: ClusterIdentity): string => `${pod}.${cluster}.${namespace}.svc`;

/**
 * A node answering at a pod's address must be that pod: the hostname it announces (when it
 * announces one) is that pod's. Otherwise another node holds the address (a pod of another
 * cluster given a dead pod's IP, or a stale address in the cache): the pod counts as not answering,
 * so formation never meets that node. Returns why, or undefined when the node is the pod.
 */
export function impostorReason(pod: string, self: ClusterNode | undefined, identity: ClusterIdentity): string | undefined {
  const hostname = self?.hostname;
  if (hostname === undefined) return undefined;
  const prefix = podHostnamePrefix(pod, identity);
  if (hostname === prefix || hostname.startsWith(`${prefix}.`)) return undefined;
  return `the node at its address announces hostname ${JSON.stringify(hostname)}, not ${prefix}.<cluster domain>: another node holds this pod's address, and it is never met`;
}

function collect(members: readonly Member[], own: ReadonlySet<string>): Map<string, OtherNode> {
  const others = new Map<string, OtherNode>();
  for (const m of members) {
    const self = m.view.find(isMyself);
    for (const n of m.view) {
      if (isMyself(n) || inHandshake(n) || own.has(n.id)) continue;
      let o = others.get(n.id);
      if (!o) {
        o = {
          id: n.id,
          address: `${n.ip}:${n.port}`,
          flags: [...n.flags].sort(),
          slots: n.slots,
          failed: false,
          knownBy: [],
          replicatedBy: [],
        };
        others.set(n.id, o);
      }
      o.knownBy.push(m);
      if (self?.primaryId === n.id) o.replicatedBy.push(m);
      o.failed ||= n.flags.has('fail');
      if (o.hostname === undefined && n.hostname) o.hostname = n.hostname;
      if (o.slots.length === 0 && n.slots.length > 0) o.slots = n.slots;
      if (o.address.startsWith(':') && n.ip !== '') o.address = `${n.ip}:${n.port}`;
    }
  }
  return others;
}

/**
 * Sorts every node id the members list into own, departed and foreign. `allPodsObserved`: every pod
 * answered this pass, so a node announcing no hostname cannot be one of ours that did not answer.
 * `history`: the ids this cluster's pods had (a node known only from gossip shows no hostname).
 * Without an identity nothing is foreign (every node no member is counts as departed).
 */
export function classifyNodes(
  members: readonly Member[],
  identity: ClusterIdentity | undefined,
  allPodsObserved: boolean,
  history: OwnNodeHistory = new Map(),
): NodeClassification {
  const own = new Set<string>();
  for (const m of members) {
    const self = m.view.find(isMyself);
    if (self) own.add(self.id);
  }
  const ours = identity ? ownHostnamePattern(identity) : undefined;
  // A cluster whose nodes announce no hostname (older pods, or servers started by hand) cannot tell
  // a departed node from another cluster's by name: such a node is taken as departed, as before.
  const announces = members.length > 0 && members.every((m) => m.view.find(isMyself)?.hostname !== undefined);
  const departed = new Map<string, OtherNode>();
  const foreign = new Map<string, OtherNode>();
  for (const o of collect(members, own).values()) {
    const isForeign = !ours
      ? false
      : o.hostname !== undefined
        ? !ours.test(o.hostname)
        : !history.has(o.id) && announces && allPodsObserved;
    (isForeign ? foreign : departed).set(o.id, o);
  }
  return { own, departed, foreign };
}

/** The status and Event line for a foreign node: its address and what it claims, all of it checked by the parser. */
export function foreignNodeMessage(n: OtherNode): string {
  const claims = [
    `id ${n.id}`,
    n.hostname ? `hostname ${n.hostname}` : 'no hostname',
    `flags ${n.flags.join(',')}`,
    n.slots.length ? `slots ${formatRanges(n.slots)}` : 'no slots',
  ].join(', ');
  const where = n.address.startsWith(':') ? 'with no address' : `at ${n.address}`;
  const slots = n.slots.length
    ? `; it claims slots: they are not moved to it, and once it is forgotten the cluster's own primaries take back the ones of their range that no member holds`
    : '';
  const stuck = n.replicatedBy.length
    ? `; ${n.replicatedBy.map((m) => m.pod).join(', ')} replicate it and cannot forget it: see docs/security.md, "One cluster never joins another"`
    : '';
  return `a node of another cluster ${where} (${claims}) is in this cluster's node tables; it is forgotten on every node that lists it and never met${slots}${stuck}`;
}
