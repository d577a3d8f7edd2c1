// The Nodes the stand-in schedules onto: Ready, roomy, one per zone in turn, all at the host's
// address. Nothing sends heartbeats, which is fine while no node lifecycle controller runs.
import type { ApiServer } from '../apiserver.js';
import { mergePatch } from './merge-patch.js';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];

/** The labels each Node gets: its hostname, linux, and a zone in turn. */
export function nodeLabels(names: readonly string[]): { name: string; labels: Record<string, string> }[] {
  return names.map((name, i) => ({
    name,
    labels: {
      'kubernetes.io/hostname': name,
      'kubernetes.io/os': 'linux',
      'topology.kubernetes.io/zone': ZONES[i % ZONES.length] ?? 'zone-a',
    },
  }));
}

export async function registerNodes(api: ApiServer, names: readonly string[], hostIp: string): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const { name, labels } of nodeLabels(names)) {
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
