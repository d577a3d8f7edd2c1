/** `CLUSTER NODES` and `CLUSTER INFO` replies, parsed into the plain data of cluster/cluster-view.ts. */
import type { ClusterInfo, ClusterNode, SlotMarker } from '../cluster/cluster-view.js';
import { readSlotRange, type SlotRange } from '../../api/contract/slots.js';
import { parseInfo } from './info.js';

export class ClusterNodesParseError extends Error {}

/** `ip:port@cport[,hostname[,key=value...]]`; the ip may be IPv6, so the port is after the last colon. */
function parseAddress(text: string): Pick<ClusterNode, 'ip' | 'port' | 'busPort' | 'hostname'> {
  const [hostPart = '', ...extras] = text.split(',');
  const at = hostPart.indexOf('@');
  const ipPort = at >= 0 ? hostPart.slice(0, at) : hostPart;
  const bus = at >= 0 ? hostPart.slice(at + 1) : '0';
  const colon = ipPort.lastIndexOf(':');
  if (colon < 0) throw new ClusterNodesParseError(`address "${text}" has no port`);
  const hostname = extras.find((e) => !e.includes('='));
  return {
    ip: ipPort.slice(0, colon),
    port: Number(ipPort.slice(colon + 1)),
    busPort: Number(bus),
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
    (m[2] === '>' ? migrating : importing).push({ slot: Number(m[1]), nodeId: m[3] as string });
  }
  return { ...(migrating.length ? { migrating } : {}), ...(importing.length ? { importing } : {}) };
}

function parseSlot(token: string): SlotRange | undefined {
  if (token.startsWith('[')) return undefined;
  const range = readSlotRange(token);
  if (!range) throw new ClusterNodesParseError(`slot "${token}" is not a number or range`);
  return range;
}

export function parseClusterNodes(text: string): ClusterNode[] {
  const nodes: ClusterNode[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const [id, address, flags, primary, , , epoch, linkState, ...slots] = line.split(' ');
    if (id === undefined || address === undefined || flags === undefined || primary === undefined || linkState === undefined) {
      throw new ClusterNodesParseError(`CLUSTER NODES line has too few fields: "${line}"`);
    }
    nodes.push({
      id,
      ...parseAddress(address),
      flags: new Set(flags.split(',')),
      ...(primary !== '-' ? { primaryId: primary } : {}),
      configEpoch: Number(epoch),
      linkState,
      slots: slots.map(parseSlot).filter((s): s is SlotRange => s !== undefined),
      ...parseMarkers(slots),
    });
  }
  return nodes;
}

export function parseClusterInfo(text: string): ClusterInfo {
  const f = parseInfo(text);
  return {
    state: f.get('cluster_state') ?? 'unknown',
    slotsAssigned: Number(f.get('cluster_slots_assigned') ?? 0),
    knownNodes: Number(f.get('cluster_known_nodes') ?? 0),
    size: Number(f.get('cluster_size') ?? 0),
  };
}
