import { inHandshake, isFailed, isMyself, isPrimary, type ClusterNode } from './cluster-view.js';
import { classifyNodes, foreignNodeMessage, type ClusterIdentity, type OtherNode, type OwnNodeHistory } from './foreign-nodes.js';
import { byPosition, type Endpoint, type Member } from './observation.js';
import { formatRanges, shardSlotRange, type SlotRange } from '../../api/contract/slots.js';

export interface PlanInput {
  shards: number;
  members: readonly Member[];
  /**
   * False while some pod with an IP did not answer. Such a node might own slots or be alive
   * behind a partition, so nothing that could collide with it (slots, forgetting) happens.
   */
  allPodsObserved: boolean;
  /**
   * Dead primaries whose replica may take over without the vote (lost-primaries.ts: the cluster
   * lost its majority and Kubernetes holds the pods gone), by dead primary id.
   */
  takeovers?: ReadonlyMap<string, { replica: string; why: string }>;
  /**
   * Whose nodes these are: with it, a node that announces another cluster's hostname is foreign
   * (foreign-nodes.ts) and is forgotten at once; without it every node that is no member's is taken
   * as departed, as before.
   */
  identity?: ClusterIdentity;
  /** The node ids this cluster's pods had (status): a departed node known without its hostname is still this cluster's. */
  history?: OwnNodeHistory;
}

export type FormationAction =
  | { kind: 'forget'; on: string; nodeId: string }
  | { kind: 'meet'; on: string; target: string; endpoint: Endpoint }
  | { kind: 'addSlots'; on: string; ranges: SlotRange[] }
  | { kind: 'replicate'; on: string; primaryId: string; primaryPod: string }
  | { kind: 'takeover'; on: string; deadPrimaryId: string };

export interface FormationPlan {
  /** In execution order: forget, meet, slots, replicate, takeover. */
  actions: FormationAction[];
  /** Why the cluster is not formed yet, one short sentence each. */
  waiting: string[];
  /** The pod chosen (or found) as each shard's primary. */
  primaries: ReadonlyMap<number, string>;
  /** Nodes of another cluster in the members' tables (foreign-nodes.ts), each with its status line; absent when none. */
  foreign?: readonly ForeignNodeReport[];
}

export interface ForeignNodeReport {
  node: OtherNode;
  message: string;
}

type ForeignNode = Pick<OtherNode, 'id' | 'address' | 'failed' | 'slots' | 'knownBy'>;

const selfOf = (m: Member): ClusterNode => {
  const self = m.view.find(isMyself);
  if (!self) throw new Error(`pod ${m.pod}: CLUSTER NODES has no "myself" line`);
  return self;
};

/** The slots someone owns: what members claim for themselves and what they say about others. */
function ownedRanges(members: readonly Member[], foreign: Iterable<ForeignNode>): SlotRange[] {
  // Merged ranges, not a slot-by-slot table: a pass over a formed cluster looks at every range
  // once instead of all 16,384 slots per node.
  const ranges: SlotRange[] = [];
  for (const m of members) ranges.push(...selfOf(m).slots);
  for (const f of foreign) ranges.push(...f.slots);
  ranges.sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const [a, b] of ranges) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}

/** The slots of first..last that no range of `owned` (merged, in order) covers. */
function freeRanges(first: number, last: number, owned: readonly SlotRange[]): SlotRange[] {
  const free: SlotRange[] = [];
  let next = first;
  for (const [a, b] of owned) {
    if (b < next) continue;
    if (a > last) break;
    if (a > next) free.push([next, a - 1]);
    next = b + 1;
    if (next > last) return free;
  }
  if (next <= last) free.push([next, last]);
  return free;
}

type ShardPrimary =
  | { kind: 'primary'; member: Member; note?: string }
  | { kind: 'failover'; deadId: string; replica: Member }
  | { kind: 'none'; note: string };

function findShardPrimary(
  shard: number,
  inShard: readonly Member[],
  byId: ReadonlyMap<string, Member>,
  foreign: ReadonlyMap<string, ForeignNode>,
): ShardPrimary {
  if (inShard.length === 0) return { kind: 'none', note: `shard ${shard}: no pod has answered yet` };
  const owners = inShard.filter((m) => isPrimary(selfOf(m)) && selfOf(m).slots.length > 0);
  const [first, ...others] = owners;
  if (first) {
    const note = others.length
      ? `shard ${shard}: pods ${owners.map((o) => o.pod).join(', ')} all hold slots; ${first.pod} is taken as the primary`
      : undefined;
    return { kind: 'primary', member: first, ...(note ? { note } : {}) };
  }
  for (const m of inShard) {
    const followed = selfOf(m).primaryId;
    if (followed === undefined) continue;
    const live = byId.get(followed);
    if (live?.shard === shard) return { kind: 'primary', member: live };
    const dead = foreign.get(followed);
    if (dead && dead.slots.length > 0) return { kind: 'failover', deadId: followed, replica: m };
  }
  // A new shard (or one whose only data-bearing node is gone): the lowest ordinal that is free.
  const empty = inShard.find((m) => isPrimary(selfOf(m)) && selfOf(m).primaryId === undefined);
  return empty ? { kind: 'primary', member: empty } : { kind: 'none', note: `shard ${shard}: no pod can become primary yet` };
}

/**
 * The node that meets the others: the one that already knows the most nodes (so a healing
 * cluster is joined from inside, not the other way round), then one holding slots, then the
 * lowest shard and ordinal.
 */
function chooseAnchor(members: readonly Member[]): Member | undefined {
  const score = (m: Member): [number, number] => [m.view.filter((n) => !inHandshake(n)).length, selfOf(m).slots.length > 0 ? 1 : 0];
  let best: Member | undefined;
  for (const m of members) {
    if (!best) {
      best = m;
      continue;
    }
    const [a1, a2] = score(m);
    const [b1, b2] = score(best);
    if (a1 > b1 || (a1 === b1 && a2 > b2)) best = m;
  }
  return best;
}

/**
 * The facts every phase reads: members in position order, by node id, the departed nodes no member
 * is (`foreign`, replaced pods or pods we could not reach) and the nodes of another cluster.
 */
interface Formation {
  shards: number;
  members: readonly Member[];
  byId: ReadonlyMap<string, Member>;
  foreign: ReadonlyMap<string, ForeignNode>;
  intruders: ReadonlyMap<string, OtherNode>;
  allPodsObserved: boolean;
  takeovers?: PlanInput['takeovers'];
}

/** What one phase decided: its commands, and why it could not do more yet. */
interface Step {
  actions: FormationAction[];
  waiting: string[];
}

/** Phase 1: each shard's primary, or a takeover by a replica of a dead one, or why there is none. */
function choosePrimaries(f: Formation): Step & { primaries: Map<number, Member> } {
  const takeover: FormationAction[] = [];
  const waiting: string[] = [];
  const primaries = new Map<number, Member>();
  for (let s = 0; s < f.shards; s++) {
    const found = findShardPrimary(
      s,
      f.members.filter((m) => m.shard === s),
      f.byId,
      f.foreign,
    );
    if (found.kind === 'none') {
      waiting.push(found.note);
    } else if (found.kind === 'failover') {
      const dead = f.foreign.get(found.deadId);
      const seenFailed = found.replica.view.some((n) => n.id === found.deadId && isFailed(n));
      const lost = f.takeovers?.get(found.deadId);
      if (dead?.failed && seenFailed && f.allPodsObserved) {
        takeover.push({ kind: 'takeover', on: found.replica.pod, deadPrimaryId: found.deadId });
      } else if (lost) {
        // No majority left to vote, and Kubernetes holds the old primary's pod gone.
        takeover.push({ kind: 'takeover', on: lost.replica, deadPrimaryId: found.deadId });
        waiting.push(`shard ${s}: primary ${found.deadId} is gone (${lost.why}); replica ${lost.replica} takes over without the vote`);
        continue;
      }
      waiting.push(`shard ${s}: primary ${found.deadId} is gone; waiting for replica ${found.replica.pod} to take over`);
    } else {
      primaries.set(s, found.member);
      if (found.note) waiting.push(found.note);
    }
  }
  return { actions: takeover, waiting, primaries };
}

/** Phase 2: forget the nodes that belong to no pod, once the cluster itself marked them failed. */
function forgetFailed(f: Formation): Step {
  const forget: FormationAction[] = [];
  const waiting: string[] = [];
  for (const n of f.foreign.values()) {
    if (!n.failed) {
      waiting.push(`node ${n.id} (${n.address}) belongs to no pod; it is forgotten once the cluster marks it failed`);
      continue;
    }
    if (!f.allPodsObserved) continue;
    const hasReplicas = f.members.some((m) => selfOf(m).primaryId === n.id);
    if (n.slots.length > 0 && hasReplicas) continue; // its replica takes over first
    for (const m of n.knownBy) {
      // A replica cannot forget its own primary; it is re-pointed below and forgets next time.
      if (selfOf(m).primaryId !== n.id) forget.push({ kind: 'forget', on: m.pod, nodeId: n.id });
    }
  }
  return { actions: forget, waiting };
}

/**
 * Phase 3: the anchor meets every member it does not know at its current address. Members of
 * shards at or above `shards` are leaving (shards in): they are drained and forgotten by the
 * others, so they are never met again, never the anchor (a leaving node that still knows every
 * node would otherwise look like the best connected one), and never a reason to wait.
 */
function meetMembers(f: Formation): Step & { joined: ReadonlySet<Member> } {
  const meet: FormationAction[] = [];
  const waiting: string[] = [];
  const staying = f.members.filter((m) => m.shard < f.shards);
  const anchor = chooseAnchor(staying);
  const joined = new Set<Member>(anchor ? [anchor] : []);
  if (anchor) {
    const anchorId = selfOf(anchor).id;
    for (const m of staying) {
      if (m === anchor) continue;
      const seen = anchor.view.find((n) => n.id === selfOf(m).id);
      const sameAddress = seen !== undefined && seen.ip === m.endpoint.host && seen.port === m.endpoint.port;
      if (!seen || !sameAddress || seen.flags.has('noaddr')) {
        meet.push({ kind: 'meet', on: anchor.pod, target: m.pod, endpoint: m.endpoint });
      } else if (m.view.some((n) => n.id === anchorId)) {
        joined.add(m);
      } else {
        waiting.push(`pod ${m.pod} is meeting the cluster`);
      }
    }
  }
  return { actions: meet, waiting, joined };
}

/** Phase 4: each primary takes the slots of its shard's range that nobody owns. */
function assignFreeSlots(f: Formation, primaries: ReadonlyMap<number, Member>): Step {
  if (!f.allPodsObserved) return { actions: [], waiting: ['slots are not assigned while a pod does not answer'] };
  const slots: FormationAction[] = [];
  const owned = ownedRanges(f.members, [...f.foreign.values(), ...f.intruders.values()]);
  for (const [s, p] of primaries) {
    const [first, last] = shardSlotRange(s, f.shards);
    const free = freeRanges(first, last, owned);
    if (free.length > 0) slots.push({ kind: 'addSlots', on: p.pod, ranges: free });
  }
  return { actions: slots, waiting: [] };
}

/** Phase 5: the other members of a shard replicate its primary, once they know it. */
function replicatePrimaries(f: Formation, primaries: ReadonlyMap<number, Member>, joined: ReadonlySet<Member>): Step {
  const replicate: FormationAction[] = [];
  const waiting: string[] = [];
  for (const [s, p] of primaries) {
    const primaryId = selfOf(p).id;
    for (const m of f.members) {
      if (m.shard !== s || m === p) continue;
      const self = selfOf(m);
      if (self.primaryId === primaryId) continue;
      if (isPrimary(self) && self.slots.length > 0) {
        waiting.push(`pod ${m.pod} holds slots ${formatRanges(self.slots)} but ${p.pod} is the primary of shard ${s}`);
      } else if (!joined.has(m) || !m.view.some((n) => n.id === primaryId)) {
        waiting.push(`pod ${m.pod} does not know its primary ${p.pod} yet`);
      } else {
        replicate.push({ kind: 'replicate', on: m.pod, primaryId, primaryPod: p.pod });
      }
    }
  }
  return { actions: replicate, waiting };
}

/**
 * What to do next to form (or heal) one cluster. Pure and idempotent: it only adds what is
 * missing, never resets a node, never assigns a slot someone owns, and forgets only nodes the
 * cluster itself marked failed. Run it again after the actions to make the next step.
 */
export function planFormation({ shards, members: unsorted, allPodsObserved, takeovers, identity, history }: PlanInput): FormationPlan {
  const members = [...unsorted].sort(byPosition);
  const byId = new Map(members.map((m) => [selfOf(m).id, m]));
  const nodes = classifyNodes(members, identity, allPodsObserved, history);
  const formation: Formation = {
    shards,
    members,
    byId,
    foreign: nodes.departed,
    intruders: nodes.foreign,
    allPodsObserved,
    ...(takeovers ? { takeovers } : {}),
  };

  const primaries = choosePrimaries(formation);
  if (formation.intruders.size > 0) return refuseIntruders(formation, primaries.primaries);
  const forget = forgetFailed(formation);
  const meet = meetMembers(formation);
  const slots = assignFreeSlots(formation, primaries.primaries);
  const replicate = replicatePrimaries(formation, primaries.primaries, meet.joined);

  return {
    // The order of FormationPlan.actions; takeovers were decided with the primaries but go last.
    actions: [...forget.actions, ...meet.actions, ...slots.actions, ...replicate.actions, ...primaries.actions],
    waiting: [...primaries.waiting, ...forget.waiting, ...meet.waiting, ...slots.waiting, ...replicate.waiting],
    primaries: new Map([...primaries.primaries].map(([s, m]) => [s, m.pod])),
  };
}

/**
 * Nodes of another cluster are in the tables: each is forgotten on every member that lists it, in
 * this one pass (a node forgets an id for 60 s, so a member that still listed it would gossip it
 * back to the others), and again in every pass it is seen. Nothing else acts until they are gone:
 * a meet would spread them to the members that do not know them, slots they claim are not assigned
 * under them, and no replica fails over to one. A member that replicates one cannot forget it
 * (Valkey refuses to forget a node's own primary); it is named in status for a person.
 */
function refuseIntruders(f: Formation, primaries: ReadonlyMap<number, Member>): FormationPlan {
  const actions: FormationAction[] = [];
  const foreign: ForeignNodeReport[] = [];
  for (const n of f.intruders.values()) {
    for (const m of n.knownBy) if (!n.replicatedBy.includes(m)) actions.push({ kind: 'forget', on: m.pod, nodeId: n.id });
    foreign.push({ node: n, message: foreignNodeMessage(n) });
  }
  return {
    actions,
    waiting: foreign.map((x) => x.message),
    primaries: new Map([...primaries].map(([s, m]) => [s, m.pod])),
    foreign,
  };
}
