// Below the floor as it really happens, in the kube world (real kube-apiserver, etcd and
// kube-controller-manager, the kubelet stand-in running real Valkey processes, the controller
// in-process as its ServiceAccount): an image that declares 9.0.1 but carries Valkey 8.0.1 (a
// mislabelled image; the schema refuses a declared version below the floor). 8.0.1 refuses the
// rendered valkey.conf at 9.0's `shutdown-on-sigterm failover` (and would refuse users.acl's
// `+cluster|syncslots` next) and exits at start-up, so it never answers INFO; the
// controller reads the version from the container's termination message (the rendered
// FallbackToLogsOnError), reports the cluster Failed naming it, and never joins the node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/controller/app.js';
import { jsonLogger } from '../../src/controller/runtime/log.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { ensureTools } from '../support/apiserver.js';
import { prepareWorld } from '../support/controller/api-world.js';
import {
  apiJson,
  clusterPods,
  renderClusterObjects,
  startDay2World,
  startKubeController,
  stopControllerAndWorld,
} from '../support/controller/day2-world.js';
import type { KubeWorld } from '../support/kube-world.js';
import { cluster, role } from '../support/objects.js';
import { waitFor } from '../support/process.js';

const NS = 'below-floor';
const NAME = 'old';
const REPLICATION_PASSWORD = 'replication-password-for-below-floor';
const CONTROLLER_PASSWORD = 'controller-password-for-below-floor';

interface ClusterObject {
  status?: {
    state?: string;
    message?: string;
    nodes?: { pod: string; role: string; health: string; version?: string }[];
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}
interface PodObject {
  metadata: { name: string };
  status?: { containerStatuses?: { state?: { terminated?: { exitCode?: number } }; lastState?: { terminated?: { exitCode?: number } } }[] };
}

describe('below the floor in the kube world: an image carrying Valkey 8.0.1', () => {
  let world: KubeWorld;
  let app: App | undefined;
  const logs: string[] = [];

  beforeAll(async () => {
    await ensureTools();
  }, 45 * 60_000);

  beforeAll(async () => {
    world = await startDay2World({
      // The guide menu's image declares 9.0.1; this kubelet runs the 8.0.1 binary for it.
      images: { 'valkey/valkey:9.0.1': { build: '8.0.1' } },
      configSyncDelayMs: 1_000,
      namespace: NS,
      replicationPassword: REPLICATION_PASSWORD,
    });
    const prepared = await prepareWorld(world.api);
    const valkeyCluster = cluster(NAME, { shards: 1, replicasPerShard: 1 }, NS);
    await world.apply([
      ...renderClusterObjects({ replication: REPLICATION_PASSWORD, controller: CONTROLLER_PASSWORD }, [role('reader'), valkeyCluster]),
      valkeyCluster,
    ]);
    app = await startKubeController({
      controllerKubeconfig: prepared.controllerKubeconfig,
      namespace: NS,
      controllerPassword: CONTROLLER_PASSWORD,
      log: jsonLogger({ level: 'info', write: (l) => logs.push(l) }),
      metrics: controllerMetrics(),
    });
  }, 180_000);

  afterAll(async () => {
    await stopControllerAndWorld(app, logs, world);
  }, 60_000);

  it('creation ends Failed, naming 8.0.1 from the termination message, and no node is joined', async () => {
    const path = `/apis/valkey.gomomento.com/v1alpha1/namespaces/${NS}/valkeyclusters/${NAME}`;
    let c: ClusterObject = {};
    await waitFor(
      'the cluster Failed with both pods named',
      async () => {
        c = await apiJson<ClusterObject>(world, 'GET', path);
        return c.status?.state === 'Failed' && c.status.nodes?.filter((n) => n.health === 'failed').length === 2;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    ).catch(async (e: unknown) => {
      const pods = await clusterPods<PodObject>(world, NS, NAME);
      throw new Error(`${String(e)}; status: ${JSON.stringify(c.status)}; pods: ${JSON.stringify(pods.map((p) => p.status))}`);
    });
    console.log(`status.message: ${c.status?.message}`);
    for (const pod of [`${NAME}-0-0`, `${NAME}-0-1`])
      expect(c.status?.message).toMatch(
        new RegExp(
          `Pod ${NS}/${pod} runs valkey_version 8\\.0\\.1 \\(read from its start-up log: its container exits at start-up with "\\*\\*\\* FATAL CONFIG FILE ERROR \\(Version 8\\.0\\.1\\) \\*\\*\\* / Reading the configuration file, at line \\d+ / >>> 'shutdown-on-sigterm failover' / argument`,
        ),
      );
    expect(c.status?.nodes).toEqual([
      expect.objectContaining({ pod: `${NAME}-0-0`, role: 'unknown', health: 'failed', version: '8.0.1' }),
      expect.objectContaining({ pod: `${NAME}-0-1`, role: 'unknown', health: 'failed', version: '8.0.1' }),
    ]);
    expect(c.status?.conditions?.find((x) => x.type === 'VersionCheck')).toMatchObject({ status: 'False', reason: 'BelowFloor' });
    expect(c.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({ status: 'False', reason: 'Failed' });
    // The containers really exit (code 1): nothing ever answered, nothing was sent.
    const pods = await clusterPods<PodObject>(world, NS, NAME);
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      const s = p.status?.containerStatuses?.[0];
      expect((s?.state?.terminated ?? s?.lastState?.terminated)?.exitCode, p.metadata.name).toBe(1);
    }
    expect(logs.filter((l) => l.includes('"formation step'))).toEqual([]);
  }, 150_000);
});
