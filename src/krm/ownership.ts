import { ANNOTATIONS, DNS1123_LABEL, LABELS, MANAGED_BY, shardName } from '../api/index.js';
import { configMapName } from '../render/object.js';
import { connectionConfigMapName } from '../render/connection.js';
import { CERT_MANAGER_API_VERSION, clientCertificatePrefix } from '../render/client-certificate.js';
import { own, ownPath } from '../menu/own.js';
import { fileOf } from './annotations.js';

/** Wears our managed-by label: earlier output, or a user's object that copied our labels. */
export const wearsOurLabel = (value: unknown): boolean => ownPath(value, 'metadata', 'labels', LABELS.managedBy) === MANAGED_BY;

/**
 * The ValkeyCluster name whose rendered objects include one of this kind and name: ConfigMaps
 * `C-config` and `C-connection`, Service and NetworkPolicy `C`, StatefulSet and PodDisruptionBudget `C-<shard>`,
 * cert-manager Certificate `C-client-<user>` (spec.tls.clientCertificates).
 */
export function renderedNameMatches(apiVersion: unknown, kind: unknown, name: string, cluster: string): boolean {
  if (kind === 'ConfigMap' && apiVersion === 'v1') return name === configMapName(cluster) || name === connectionConfigMapName(cluster);
  if (kind === 'Service' && apiVersion === 'v1') return name === cluster;
  if (kind === 'NetworkPolicy' && apiVersion === 'networking.k8s.io/v1') return name === cluster;
  if (kind === 'Certificate' && apiVersion === CERT_MANAGER_API_VERSION) {
    const prefix = clientCertificatePrefix(cluster);
    return name.startsWith(prefix) && DNS1123_LABEL.test(name.slice(prefix.length));
  }
  if ((kind === 'StatefulSet' && apiVersion === 'apps/v1') || (kind === 'PodDisruptionBudget' && apiVersion === 'policy/v1')) {
    const shard = name.startsWith(`${cluster}-`) ? name.slice(cluster.length + 1) : '';
    return /^(0|[1-9][0-9]{0,3})$/.test(shard) && name === shardName(cluster, Number(shard));
  }
  return false;
}

/** The cluster names an object of this kind and name could have been rendered for (at most two readings). */
export function clustersNamedBy(kind: unknown, name: string): string[] {
  if (kind === 'ConfigMap') {
    for (const suffix of ['-config', '-connection']) if (name.endsWith(suffix)) return [name.slice(0, -suffix.length)];
    return [];
  }
  if (kind === 'Service' || kind === 'NetworkPolicy') return [name];
  if (kind === 'Certificate') {
    const out: string[] = [];
    for (let i = name.indexOf('-client-'); i > 0; i = name.indexOf('-client-', i + 1)) out.push(name.slice(0, i));
    return out;
  }
  const dash = name.lastIndexOf('-');
  return dash > 0 ? [name.slice(0, dash)] : [];
}

/**
 * Is this item the function's own output from an earlier run, to be replaced? It must wear our
 * label and be an object we render (kind, name and namespace) for the cluster named either by the
 * `rendered-for` annotation the renderer writes, or, for output of releases before that
 * annotation, by the file kpt read it from (`<outputDir>/<namespace>/<cluster>.yaml`). A user's
 * object that merely copied our labels is neither, and is kept.
 */
export function isEarlierOutput(value: unknown, outputDir: string | undefined): boolean {
  if (!wearsOurLabel(value)) return false;
  const v = { apiVersion: own(value, 'apiVersion'), kind: own(value, 'kind') };
  const name = ownPath(value, 'metadata', 'name');
  const namespace = ownPath(value, 'metadata', 'namespace');
  if (typeof name !== 'string' || typeof namespace !== 'string') return false;
  const owner = ownPath(value, 'metadata', 'annotations', ANNOTATIONS.renderedFor);
  if (owner !== undefined) {
    if (typeof owner !== 'string') return false;
    const slash = owner.indexOf('/');
    const [ns, cluster] = [owner.slice(0, slash), owner.slice(slash + 1)];
    return slash > 0 && ns === namespace && renderedNameMatches(v.apiVersion, v.kind, name, cluster);
  }
  const path = fileOf(value)?.path;
  if (outputDir === undefined || path === undefined) return false;
  return clustersNamedBy(v.kind, name).some(
    (cluster) => path === `${outputDir}/${namespace}/${cluster}.yaml` && renderedNameMatches(v.apiVersion, v.kind, name, cluster),
  );
}
