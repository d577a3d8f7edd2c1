// A real kube-controller-manager (built by scripts/build-tools.sh from the same k8s.io/kubernetes
// module as kube-apiserver) against the harness's API server, running only the controllers whose
// behaviour the day-2 tests rely on being Kubernetes' own:
//
//   statefulset       creates the pods, computes controller-revision-hash / updateRevision for
//                     OnDelete, re-creates a deleted pod from the current template
//   disruption        keeps PodDisruptionBudget status (disruptionsAllowed) current, which the
//                     Eviction API consults
//   garbagecollector  removes pods (and ControllerRevisions) whose StatefulSet is deleted
//   serviceaccount    creates each namespace's "default" ServiceAccount, without which the
//                     ServiceAccount admission plugin rejects every pod
//
// Nothing else runs: no node lifecycle (the stand-in kubelet sends no heartbeats and no taint
// should appear), no endpoints, no token controllers (the rendered pods mount no token, so no
// --service-account-private-key-file or --root-ca-file is needed). Leader election is off and
// the HTTPS endpoint is off (--secure-port=0): readiness is judged from what the controllers do.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTools, type ApiServer } from './apiserver.js';
import { Reaper, spawnDaemon, tailFile, waitFor, type Daemon } from './process.js';

export const CONTROLLERS = ['statefulset', 'disruption', 'garbagecollector', 'serviceaccount'] as const;

export interface ControllerManager {
  /** kube-controller-manager.log lives here. */
  readonly dir: string;
  readonly logPath: string;
  stop(): Promise<void>;
}

export interface StartControllerManagerOptions {
  /** Extra flags, appended after the harness's own. */
  args?: string[];
  readyTimeoutMs?: number;
}

export async function startControllerManager(api: ApiServer, opts: StartControllerManagerOptions = {}): Promise<ControllerManager> {
  const tools = await ensureTools();
  const dir = await mkdtemp(join(tmpdir(), 'valkey-krm-kcm-'));
  const reaper = new Reaper(dir);
  const logPath = join(dir, 'kube-controller-manager.log');
  const args = [
    `--kubeconfig=${api.kubeconfigPath}`,
    `--controllers=${CONTROLLERS.join(',')}`,
    '--leader-elect=false',
    '--use-service-account-credentials=false',
    '--secure-port=0',
    '--v=2',
    ...(opts.args ?? []),
  ];
  let daemon: Daemon;
  try {
    daemon = spawnDaemon('kube-controller-manager', tools.kubeControllerManager, args, logPath);
    reaper.add(daemon);
    // The serviceaccount controller creates default/default once its informers are synced:
    // the first sign that the controllers are running.
    await waitFor(
      'kube-controller-manager: ServiceAccount default/default',
      async () => (await api.request('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status === 200,
      { timeoutMs: opts.readyTimeoutMs ?? 60_000, intervalMs: 200, abort: () => (daemon.hasExited() ? 'exited' : undefined) },
    );
  } catch (e) {
    const text = `${(e as Error).message}\n----- kube-controller-manager log (${logPath}) -----\n${tailFile(logPath, 60)}`;
    reaper.cleanupSync();
    throw new Error(text, { cause: e });
  }
  let stopped = false;
  return {
    dir,
    logPath,
    async stop() {
      if (stopped) return;
      stopped = true;
      await daemon.stop(5_000);
      reaper.cleanupSync();
    },
  };
}
