// The test world for day-2 work (DESIGN §8): real etcd, kube-apiserver and
// kube-controller-manager; the stand-in scheduler + kubelet running real Valkey processes.
//
//   const world = await startKubeWorld({ images: { 'valkey/valkey:9.0.1': { build: '9.1.2' } } });
//   await world.apply(objects);           // kubectl apply --server-side
//   await world.stop();
import { startApiServer, type ApiServer } from './apiserver.js';
import { startControllerManager, type ControllerManager } from './controller-manager.js';
import { Kubelet, type KubeletOptions } from './kubelet.js';
import { waitFor } from './process.js';

export interface KubeWorld {
  api: ApiServer;
  controllerManager: ControllerManager;
  kubelet: Kubelet;
  /** `kubectl apply --server-side` of the objects; throws with kubectl's stderr when it fails. */
  apply(objects: readonly unknown[]): Promise<void>;
  /** A namespace, once its "default" ServiceAccount (from the controller-manager) exists: pods are admitted. */
  createNamespace(name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startKubeWorld(kubeletOptions: KubeletOptions): Promise<KubeWorld> {
  const api = await startApiServer();
  let controllerManager: ControllerManager | undefined;
  let kubelet: Kubelet | undefined;
  const stop = async (): Promise<void> => {
    await kubelet?.stop();
    await controllerManager?.stop();
    await api.stop();
  };
  try {
    controllerManager = await startControllerManager(api);
    kubelet = await Kubelet.start(api, kubeletOptions);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    api,
    controllerManager,
    kubelet,
    async apply(objects) {
      const input = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
      const r = await api.kubectl(['apply', '--server-side', '--field-manager=valkey-krm', '-f', '-'], { input });
      if (r.code !== 0) throw new Error(`kubectl apply failed (${String(r.code)}):\n${r.stderr}`);
    },
    async createNamespace(name) {
      const res = await api.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      if (res.status !== 201) throw new Error(`create namespace ${name}: ${String(res.status)} ${res.body}`);
      await waitFor(
        `ServiceAccount ${name}/default`,
        async () => (await api.request('GET', `/api/v1/namespaces/${name}/serviceaccounts/default`)).status === 200,
        { timeoutMs: 30_000 },
      );
    },
    stop,
  };
}
