// The controller's own Kubernetes client against a real kube-apiserver: request bodies on every
// method reach the server whole, and a kept-alive socket stays usable after them.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeClientFromConfig, type KubeClient } from '../../../src/controller/kube/client.js';
import { ensureTools, startApiServer, type ApiServer } from '../../support/apiserver.js';

describe('kube client on a real kube-apiserver', () => {
  let server: ApiServer;
  let client: KubeClient;

  beforeAll(async () => {
    await ensureTools();
    server = await startApiServer();
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    client = await kubeClientFromConfig(kc);
  }, 10 * 60_000);

  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  it('DELETE with DeleteOptions: the body is read (foreground deletion keeps the object for the GC) and the next request on the socket works', async () => {
    const ns = 'default';
    for (const name of ['first', 'second'])
      await client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } },
      });
    // No garbage collector runs here: an object deleted in the foreground keeps its
    // foregroundDeletion finalizer, so it is still there, marked. Without the body it would be gone.
    for (const name of ['first', 'second'])
      await client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`, { body: { propagationPolicy: 'Foreground' } });
    for (const name of ['first', 'second']) {
      const cm = await client.request<{ metadata: { finalizers?: string[]; deletionTimestamp?: string } }>(
        'GET',
        `/api/v1/namespaces/${ns}/configmaps/${name}`,
      );
      expect(cm.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(cm.metadata.deletionTimestamp).toBeTruthy();
    }
  });
});
