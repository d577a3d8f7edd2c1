// The controller's own Kubernetes client against a real kube-apiserver: request bodies on every
// method reach the server whole, and a kept-alive socket stays usable after them.
import { describe, expect, it } from 'vitest';
import { useApiServerClient } from '../../support/controller/suite.js';

describe('kube client on a real kube-apiserver', () => {
  const suite = useApiServerClient();

  it('DELETE with DeleteOptions: the body is read (foreground deletion keeps the object for the GC) and the next request on the socket works', async () => {
    const ns = 'default';
    for (const name of ['first', 'second'])
      await suite.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } },
      });
    // No garbage collector runs here: an object deleted in the foreground keeps its
    // foregroundDeletion finalizer, so it is still there, marked. Without the body it would be gone.
    for (const name of ['first', 'second'])
      await suite.client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`, { body: { propagationPolicy: 'Foreground' } });
    for (const name of ['first', 'second']) {
      const cm = await suite.client.request<{ metadata: { finalizers?: string[]; deletionTimestamp?: string } }>(
        'GET',
        `/api/v1/namespaces/${ns}/configmaps/${name}`,
      );
      expect(cm.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(cm.metadata.deletionTimestamp).toBeTruthy();
    }
  });
});
