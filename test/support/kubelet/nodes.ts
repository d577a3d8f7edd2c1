// The Nodes the stand-in schedules onto: Ready, roomy, one per zone in turn, all at the host's
// address. Nothing sends heartbeats, which is fine while no node lifecycle controller runs.
import type { ApiServer } from '../apiserver.js';
import { mergePatch } from './merge-patch.js';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];

/** How the Nodes are labelled: the zones they take in turn (default zone-a, zone-b, zone-c) and labels every Node carries. */
export interface NodeLabelling {
  zones?: readonly string[];
  labels?: Record<string, string>;
}

/** The labels each Node gets: its hostname, linux, a zone in turn, and `o.labels`. */
export function nodeLabels(names: readonly string[], o: NodeLabelling = {}): { name: string; labels: Record<string, string> }[] {
  const zones = o.zones ?? ZONES;
  return names.map((name, i) => ({
    name,
    labels: {
      ...o.labels,
      'kubernetes.io/hostname': name,
      'kubernetes.io/os': 'linux',
      'topology.kubernetes.io/zone': zones[i % zones.length] ?? 'zone-a',
    },
  }));
}

export async function registerNodes(api: ApiServer, names: readonly string[], hostIp: string, o: NodeLabelling = {}): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const { name, labels } of nodeLabels(names, o)) {
    const created = await api.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
    if (created.status !== 201 && created.status !== 409) throw new Error(`create node ${name}: ${String(created.status)} ${created.body}`);
    // The TaintNodesByCondition admission plugin adds not-ready:NoSchedule; the node lifecycle
    // controller (not running) would take it off once the node reports Ready.
    await mergePatch(api, `/api/v1/nodes/${name}`, { spec: { taints: null } });
    const capacity = { cpu: '64', memory: '256Gi', pods: '110' };
    await mergePatch(api, `/api/v1/nodes/${name}/status`, {
      status: {
        capacity,
        allocatable: capacity,
        addresses: [
          { type: 'InternalIP', address: hostIp },
          { type: 'Hostname', address: name },
        ],
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'stand-in kubelet',
            lastHeartbeatTime: now,
            lastTransitionTime: now,
          },
        ],
      },
    });
  }
}
