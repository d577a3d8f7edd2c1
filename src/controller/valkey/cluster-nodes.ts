/**
 * `CLUSTER NODES` and `CLUSTER INFO` replies, parsed into the plain data of cluster/cluster-view.ts.
 *
 * A node is not trusted: every field is checked against what Valkey can print (short ids of
 * letters and digits, ports up to 65535, slots up to 16383, epochs as whole numbers, each node id once), and
 * one bad field makes the whole reply unreadable. The planners then never meet a slot range of
 * 2^53 (which once made the controller count to it) or a NaN port; the node's observation says
 * what was wrong instead, in its own cluster's status.
 */
import { isIP } from 'node:net';
import type { ClusterInfo, ClusterNode, SlotMarker } from '../cluster/cluster-view.js';
import { TOTAL_SLOTS, readSlotRange, type SlotRange } from '../../api/contract/slots.js';
import { parseInfo } from './info.js';

export class ClusterNodesParseError extends Error {}

/** A piece of what the node sent, quoted short enough for a status message. */
export const quote = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);

/**
 * Valkey prints 40 hex digits. The planners only compare ids, so up to 40 lower-case letters and
 * digits are taken (the unit tests name their model nodes `p0`, `r0_1`); nothing longer, nothing else.
 */
const NODE_ID = /^[0-9a-z_]{1,40}$/;
const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
const FLAG = /^[a-z?_-]{1,20}$/;
const LINK_STATES = new Set(['connected', 'disconnected']);
/** Milliseconds since 1970 and config epochs: whole numbers, at most 2^53. */
const WHOLE = /^\d{1,16}$/;

function wholeNumber(text: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = WHOLE.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > max)
    throw new ClusterNodesParseError(`${what} ${quote(text)} is not a whole number from 0 to ${max}`);
  return n;
}

const port = (text: string, what: string): number => wholeNumber(text, what, 65535);
const slot = (text: string): number => wholeNumber(text, 'slot', TOTAL_SLOTS - 1);

function nodeId(text: string, what: string): string {
  if (!NODE_ID.test(text)) throw new ClusterNodesParseError(`${what} ${quote(text)} is not a node id (up to 40 letters, digits and _)`);
  return text;
}

/** `ip:port@cport[,hostname[,key=value...]]`; the ip may be IPv6, so the port is after the last colon. */
function parseAddress(text: string): Pick<ClusterNode, 'ip' | 'port' | 'busPort' | 'hostname'> {
  const [hostPart = '', ...extras] = text.split(',');
  const at = hostPart.indexOf('@');
  const ipPort = at >= 0 ? hostPart.slice(0, at) : hostPart;
  const bus = at >= 0 ? hostPart.slice(at + 1) : '0';
  const colon = ipPort.lastIndexOf(':');
  if (colon < 0) throw new ClusterNodesParseError(`address ${quote(text)} has no port`);
  const ip = ipPort.slice(0, colon);
  // Empty for a node known by id only (`noaddr`).
  if (ip !== '' && isIP(ip) === 0) throw new ClusterNodesParseError(`address ${quote(text)}: ${quote(ip)} is not an IP address`);
  const hostname = extras.find((e) => !e.includes('='));
  if (hostname !== undefined && !HOSTNAME.test(hostname))
    throw new ClusterNodesParseError(`address ${quote(text)}: ${quote(hostname)} is not a host name`);
  return {
    ip,
    port: port(ipPort.slice(colon + 1), 'port'),
    busPort: port(bus, 'bus port'),
    ...(hostname ? { hostname } : {}),
  };
}

/** `[slot->-id]` or `[slot-<-id]`; anything else in brackets is not a marker we know. */
const MARKER = /^\[(\d+)-([<>])-([0-9a-f]+)\]$/;

function parseMarkers(tokens: readonly string[]): Pick<ClusterNode, 'migrating' | 'importing'> {
  const migrating: SlotMarker[] = [];
  const importing: SlotMarker[] = [];
  for (const t of tokens) {
    const m = MARKER.exec(t);
    if (!m) continue;
    (m[2] === '>' ? migrating : importing).push({ slot: slot(m[1] as string), nodeId: nodeId(m[3] as string, 'slot marker node') });
  }
  return { ...(migrating.length ? { migrating } : {}), ...(importing.length ? { importing } : {}) };
}

function parseSlot(token: string): SlotRange | undefined {
  if (token.startsWith('[')) return undefined;
  const range = readSlotRange(token);
  if (!range) throw new ClusterNodesParseError(`slot ${quote(token)} is not a number or range`);
  const [first, last] = token.split('-').map((part) => slot(part)) as [number, number?];
  if (range[1] < range[0]) throw new ClusterNodesParseError(`slot range ${quote(token)} ends before it starts`);
  return [first, last ?? first];
}

function parseLine(line: string): ClusterNode {
  const [id, address, flags, primary, pingSent, pongReceived, epoch, linkState, ...slots] = line.split(' ');
  if (
    id === undefined ||
    address === undefined ||
    flags === undefined ||
    primary === undefined ||
    pingSent === undefined ||
    pongReceived === undefined ||
    epoch === undefined ||
    linkState === undefined
  ) {
    throw new ClusterNodesParseError(`CLUSTER NODES line has too few fields: ${quote(line)}`);
  }
  const flagSet = new Set(flags.split(','));
  for (const f of flagSet) if (!FLAG.test(f)) throw new ClusterNodesParseError(`flag ${quote(f)} is not a node flag`);
  wholeNumber(pingSent, 'ping-sent');
  wholeNumber(pongReceived, 'pong-recv');
  if (!LINK_STATES.has(linkState)) throw new ClusterNodesParseError(`link state ${quote(linkState)} is not connected or disconnected`);
  return {
    id: nodeId(id, 'node id'),
    ...parseAddress(address),
    flags: flagSet,
    ...(primary !== '-' ? { primaryId: nodeId(primary, 'primary id') } : {}),
    configEpoch: wholeNumber(epoch, 'config epoch'),
    linkState,
    slots: slots.map(parseSlot).filter((s): s is SlotRange => s !== undefined),
    ...parseMarkers(slots),
  };
}

/**
 * Lines already parsed in this pass, by what a ClusterNode keeps of them. Every node of a formed
 * cluster lists every other node, so a pass over n pods reads n² lines; nearly all of them say the
 * same about the same node (only ping/pong times differ, which are not kept), so the pass keeps
 * one object per distinct line instead of n² of them (bench/controller.bench.ts measures it).
 * ClusterNode objects are never changed after parsing, which makes sharing them safe.
 */
export type ClusterNodeInterner = Map<string, ClusterNode>;

/** A line without its ping-sent and pong-recv fields: what two views share when they agree. */
function internKey(line: string): string {
  const f = line.split(' ');
  return [f[0], f[1], f[2], f[3], ...f.slice(6)].join(' ');
}

export function parseClusterNodes(text: string, interner?: ClusterNodeInterner): ClusterNode[] {
  const nodes: ClusterNode[] = [];
  const ids = new Set<string>();
  let myself = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    let node: ClusterNode;
    try {
      const key = interner ? internKey(line) : '';
      const known = interner?.get(key);
      node = known ?? parseLine(line);
      if (interner && !known) interner.set(key, node);
    } catch (e) {
      if (e instanceof ClusterNodesParseError && !e.message.startsWith('CLUSTER NODES line'))
        throw new ClusterNodesParseError(`CLUSTER NODES line ${nodes.length + 1}: ${e.message}`);
      throw e;
    }
    if (ids.has(node.id)) throw new ClusterNodesParseError(`CLUSTER NODES lists node ${node.id} twice`);
    ids.add(node.id);
    if (node.flags.has('myself')) myself++;
    nodes.push(node);
  }
  if (nodes.length > 0 && myself !== 1) throw new ClusterNodesParseError(`CLUSTER NODES has ${myself} lines flagged myself (one expected)`);
  return nodes;
}

/** A CLUSTER INFO figure: a whole number up to `max`, 0 when the node leaves it out. */
function infoCount(fields: ReadonlyMap<string, string>, name: string, max: number): number {
  const raw = fields.get(name);
  if (raw === undefined) return 0;
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > max)
    throw new ClusterNodesParseError(`CLUSTER INFO ${name} ${quote(raw)} is not a whole number from 0 to ${max}`);
  return n;
}

export function parseClusterInfo(text: string): ClusterInfo {
  const f = parseInfo(text);
  const state = f.get('cluster_state') ?? 'unknown';
  if (!/^[a-z_]{1,20}$/.test(state)) throw new ClusterNodesParseError(`CLUSTER INFO cluster_state ${quote(state)} is not a state`);
  return {
    state,
    slotsAssigned: infoCount(f, 'cluster_slots_assigned', TOTAL_SLOTS),
    knownNodes: infoCount(f, 'cluster_known_nodes', Number.MAX_SAFE_INTEGER),
    size: infoCount(f, 'cluster_size', TOTAL_SLOTS),
  };
}
