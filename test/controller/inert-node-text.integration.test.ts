// Status is inert: a node that answers with terminal escapes (an OSC title, a screen clear, a C1
// CSI, a bidi override, a bell, a line break) reaches status, Events, logs and metric labels only
// as visible escapes, bounded in length.
import { afterEach, describe, expect, it } from 'vitest';
import { LABELS } from '../../src/api/index.js';
import { strictPolicy } from '../../src/controller/cluster/version-gate.js';
import { eventRecorder } from '../../src/controller/kube/event-recorder.js';
import type { KubeClient } from '../../src/controller/kube/client.js';
import type { Pod } from '../../src/controller/kube/types.js';
import { inertStatus } from '../../src/controller/reconcile/reconcile-cluster.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { sessionOpener } from '../../src/controller/valkey/node-session.js';
import { observeNode, podPlace } from '../../src/controller/valkey/observe-node.js';
import { startHostileNode, type HostileNode } from '../support/hostile-node.js';

const ESCAPES = 'ERR \u001b]0;pwned\u0007\u001b[2J\u001b[31mAll clusters Active\u009b0m \u202egnp.exe\u202c \u007f\u0008';
// Raw control characters a terminal acts on (tab and line feed aside, which JSON itself escapes).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const nodes: HostileNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'cache-0-0', namespace: 'shop', labels: { [LABELS.cluster]: 'cache', [LABELS.shard]: '0' } },
  spec: { nodeName: 'node-a' },
  status: { phase: 'Running', podIP: '127.0.0.1' },
};

async function hostileObservation(errorText: string | undefined, infoServer?: string) {
  const node = await startHostileNode({ ...(errorText === undefined ? {} : { errorText }), ...(infoServer ? { infoServer } : {}) });
  nodes.push(node);
  const open = sessionOpener(async () => ({ username: 'valkey-krm-controller', password: 'p' }), { connectMs: 1000, commandMs: 1000 });
  const place = podPlace(pod);
  if (!place) throw new Error('no place');
  return observeNode(pod, place, { open, policy: strictPolicy, endpointOf: () => ({ host: '127.0.0.1', port: node.port, busPort: 0 }) });
}

describe('what a hostile node says is inert', () => {
  it('its error reply, in the observation, in status.message and in every condition', async () => {
    const { observation } = await hostileObservation(ESCAPES);
    expect(observation.state).toBe('unreachable');
    const error = observation.state === 'unreachable' ? observation.error : '';
    expect(error).not.toMatch(RAW);
    expect(error).toContain('\\u001b]0;pwned\\u0007\\u001b[2J');
    expect(error).toContain('\\u202egnp.exe');
    const status = inertStatus({
      namespace: 'shop',
      generation: 1,
      shards: 1,
      replicasPerShard: 0,
      observations: [observation],
      plan: { actions: [], waiting: [], primaries: new Map() },
      actionErrors: [`CLUSTER MEET: ${ESCAPES}`],
      now: '2026-01-01T00:00:00Z',
    });
    const text = JSON.stringify(status);
    expect(status.message).toContain('does not answer');
    expect(JSON.parse(text, (_k, v) => (typeof v === 'string' && RAW.test(v) ? 'RAW' : v))).toEqual(status);
    expect(text).not.toContain('RAW');
  });

  it('a reply as long as the framing allows is bounded where it becomes our words', async () => {
    const { observation } = await hostileObservation(`ERR ${'\u001b[2J'.repeat(10_000)}`);
    const error = observation.state === 'unreachable' ? observation.error : '';
    expect(error.length).toBeLessThan(800);
    expect(error).toMatch(/more characters\)/);
    expect(error).not.toMatch(RAW);
  });

  it('an Event and a log line carrying it', async () => {
    const bodies: unknown[] = [];
    const client = { request: async (_m: string, _p: string, o?: { body?: unknown }) => bodies.push(o?.body) } as unknown as KubeClient;
    const lines: string[] = [];
    const log = jsonLogger({ write: (l) => lines.push(l) });
    const events = eventRecorder(client, { now: () => 0 } as never, log);
    events.record({ apiVersion: 'v1', kind: 'ValkeyCluster', namespace: 'shop', name: 'cache' }, 'Warning', 'AclLoadFailed', ESCAPES);
    log.warn(ESCAPES, { error: new Error(ESCAPES), detail: { nested: [ESCAPES] } });
    await new Promise((r) => setTimeout(r, 50));
    const message = (bodies[0] as { message: string }).message;
    expect(message).not.toMatch(RAW);
    expect(message).toContain('\\u001b[31mAll clusters Active');
    // JSON escapes C0 controls itself; DEL, C1 and bidi overrides it leaves raw, the logger does not.
    for (const line of lines) expect(JSON.stringify(JSON.parse(line))).not.toMatch(RAW);
    expect(lines.join('')).not.toMatch(RAW);
  });

  it('a made-up version is no metric label', async () => {
    const metrics = controllerMetrics();
    metrics.setClusterVersions('shop/cache', ['9.1.2', '\u001b[2J9.9.9', 'not-valkey']);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/valkey_status_sync_nodes\{version="unparseable"\} 1/);
    expect(text).not.toMatch(RAW);
  });

  it('a made-up identity (INFO server) is short and inert in the observation and in status', async () => {
    const made = `${ESCAPES}${'9'.repeat(30_000)}`;
    const { observation } = await hostileObservation(undefined, `# Server\r\nvalkey_version:${made}\r\nserver_mode:${made}\r\n`);
    expect(observation.state).toBe('rejected');
    const identity = observation.state === 'rejected' ? observation.identity : undefined;
    expect(identity?.kind).toBe('valkey');
    expect(identity?.kind === 'valkey' ? identity.version.length : 0).toBeLessThan(120);
    const status = inertStatus({
      namespace: 'shop',
      generation: 1,
      shards: 1,
      replicasPerShard: 0,
      observations: [observation],
      plan: { actions: [], waiting: [], primaries: new Map() },
      actionErrors: [],
      now: '2026-01-01T00:00:00Z',
    });
    const text = JSON.stringify(status);
    // Before, the version went into status.nodes and the message as said, 30,000 characters each.
    expect(text.length).toBeLessThan(4000);
    expect(text).toContain('\\u001b]0;pwned');
    expect(JSON.parse(text, (_k, v) => (typeof v === 'string' && RAW.test(v) ? 'RAW' : v))).toEqual(status);
  });

  it('an Event reason and the per-cluster metric labels are inert too, whoever passes them', async () => {
    const bodies: unknown[] = [];
    const client = { request: async (_m: string, _p: string, o?: { body?: unknown }) => bodies.push(o?.body) } as unknown as KubeClient;
    const events = eventRecorder(client, { now: () => 0 } as never, jsonLogger({ write: () => {} }));
    events.record(
      { apiVersion: 'v1', kind: 'ValkeyCluster', namespace: 'shop', name: 'cache' },
      'Warning',
      `${ESCAPES}${'x'.repeat(500)}`,
      'm',
    );
    await new Promise((r) => setTimeout(r, 50));
    const reason = (bodies[0] as { reason: string }).reason;
    expect(reason).not.toMatch(RAW);
    expect(reason.length).toBeLessThan(160);

    const metrics = controllerMetrics();
    metrics.setClusterStatus('sh\u001b[2Jop/ca\u202eche', { state: 'Active', conditions: [], nodes: new Map(), replicasNotInSync: 0 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('valkey_status_sync_cluster_state{cluster="ca\\\\u202eche",namespace="sh\\\\u001b[2Jop"');
    expect(text).not.toMatch(RAW);
  });
});
