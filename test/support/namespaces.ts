import type { ApiServer } from './apiserver.js';
import { show } from './kubectl.js';
import { toJsonStream } from './yaml-docs.js';

export interface NamespaceOptions {
  /** Pod Security `restricted` enforced and warned about, as a restricted-by-default cluster has it. */
  restricted?: boolean;
}

/**
 * Namespaces with their `default` ServiceAccount, which the ServiceAccount admission plugin needs
 * before it admits a Pod: a bare API server (no controller-manager) creates none. With a
 * controller-manager running, use KubeWorld.createNamespace, which waits for its own.
 */
export async function createNamespaces(api: ApiServer, names: readonly string[], opts: NamespaceOptions = {}): Promise<void> {
  if (names.length === 0) return;
  const labels = opts.restricted
    ? { labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' } }
    : {};
  const docs = names.flatMap((name) => [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...labels } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: name } },
  ]);
  const r = await api.kubectl(['apply', '--server-side', '--field-manager=valkey-krm-tests', '-f', '-'], { input: toJsonStream(docs) });
  if (r.code !== 0) throw new Error(`creating namespaces ${names.join(', ')} failed:\n${show(r)}`);
}
