// Available means holds the data (issue 31): the rendered pod is Ready only while it holds a full
// copy of its shard, so the shard's PodDisruptionBudget counts only such pods. What the render
// must say for it: the readiness probe runs `probe.sh ready`, which asks ROLE and CLUSTER NODES as
// the replication user (password from the container's env, the rules granting both), the PDB's
// unhealthy-pod policy is IfHealthyBudget, and the headless Service still publishes pods that are
// not Ready (formation and the bus need them). test/valkey/readiness-probe.integration.test.ts
// runs the script on real Valkey; test/controller/pdb-holds-data.integration.test.ts the eviction (a real API
// server refuses it with 429 while a replica syncs, allows it once in sync) and the preStop handover.
import { describe, expect, it } from 'vitest';
import { SYSTEM_USERNAMES } from '../../src/api/index.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { REPLICATION_RULES } from '../../src/render/acl.js';
import { renderAll } from '../../src/render/render-all.js';
import { cluster, config, image } from '../support/objects.js';

const renderConfig = validateRenderConfig({
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyRenderConfig',
  metadata: { name: 'render' },
  spec: { systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } } },
}).config!;
const objects = (tls = false) =>
  renderAll(
    [
      image('img'),
      config('std', { imageRef: 'img' }),
      cluster('c', { configRef: 'std', shards: 2, replicasPerShard: 1, ...(tls ? { tls: { secretRef: 'c-tls' } } : {}) }),
    ],
    renderConfig,
  ).clusters[0]!.objects as unknown as { kind: string; spec: Record<string, unknown>; data?: Record<string, string> }[];

type Container = { readinessProbe: unknown; livenessProbe: unknown; env: { name: string }[] };
const podSpec = (o: { spec: Record<string, unknown> }) =>
  (o.spec.template as { spec: { containers: Container[]; readinessGates?: unknown } }).spec;

describe('the rendered pod is Ready only while it holds a full copy of its shard', () => {
  it('readiness runs probe.sh ready; liveness still only PINGs; no readiness gate', () => {
    for (const sts of objects().filter((o) => o.kind === 'StatefulSet')) {
      const spec = podSpec(sts);
      const c = spec.containers[0]!;
      expect(c.readinessProbe).toEqual({
        exec: { command: ['sh', '/etc/valkey/conf/probe.sh', 'ready'] },
        periodSeconds: 5,
        timeoutSeconds: 5,
        failureThreshold: 2,
      });
      expect(c.livenessProbe).toMatchObject({ exec: { command: ['sh', '/etc/valkey/conf/probe.sh', 'live'] } });
      expect(c.env.map((e) => e.name)).toContain('VALKEY_REPLICATION_PASSWORD');
      expect(spec.readinessGates).toBeUndefined();
      // The preStop hook holds a stopping primary until the controller hands its shard over.
      expect((c as unknown as { lifecycle: unknown }).lifecycle).toEqual({
        preStop: { exec: { command: ['sh', '/etc/valkey/conf/probe.sh', 'handover'] } },
      });
    }
  });

  it('probe.sh ready asks ROLE and CLUSTER NODES as the replication user, whose rules grant exactly those two more', () => {
    const script = objects().find((o) => o.kind === 'ConfigMap')!.data!['probe.sh']!;
    expect(script).toContain(
      `printf 'ROLE\\nCLUSTER NODES\\n' | VALKEYCLI_AUTH="$VALKEY_REPLICATION_PASSWORD" valkey-cli -h 127.0.0.1 -p 6379 --user ${SYSTEM_USERNAMES.replication}`,
    );
    // Ready: a replica whose link is connected, or a primary whose myself line lists slots.
    expect(script).toContain('slave:connected:* | replica:connected:* | master:*:yes | primary:*:yes) exit 0 ;;');
    // Pure shell: no awk, sed, grep or cut, which an image may lack.
    expect(script).not.toMatch(/\b(awk|sed|grep|cut|tr)\b/);
    expect(REPLICATION_RULES.split(' ')).toEqual(expect.arrayContaining(['+role', '+cluster|nodes']));
    const acl = objects().find((o) => o.kind === 'ConfigMap')!.data!['users.acl']!;
    expect(acl).toContain(`user ${SYSTEM_USERNAMES.replication} on #${'a'.repeat(64)} resetchannels ${REPLICATION_RULES}`);
  });

  it('over TLS the probe presents the pod certificate on every call (the preStop hold, PING, the readiness check)', () => {
    const script = objects(true).find((o) => o.kind === 'ConfigMap')!.data!['probe.sh']!;
    const tlsCli =
      'valkey-cli --tls --cacert /etc/valkey/tls/ca.crt --cert /etc/valkey/tls/tls.crt --key /etc/valkey/tls/tls.key -h 127.0.0.1 -p 6379';
    expect(script.split(tlsCli)).toHaveLength(4);
  });

  it('each shard has a PDB of one disruption that evicts a pod not Ready only within budget; the Service publishes pods not Ready', () => {
    const all = objects();
    const pdbs = all.filter((o) => o.kind === 'PodDisruptionBudget');
    expect(pdbs).toHaveLength(2);
    for (const p of pdbs) expect(p.spec).toMatchObject({ maxUnavailable: 1, unhealthyPodEvictionPolicy: 'IfHealthyBudget' });
    expect(all.find((o) => o.kind === 'Service')!.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
  });
});
