import { CLIENT_PORT, GROUP, podFqdn, podName, serviceName, shardName } from '../api/index.js';
import { clientCertificateName } from './client-certificate.js';
import { clusterLabels } from './labels.js';
import type { KubeObject } from './object.js';

/**
 * The connection document (issue 33): per cluster, a ConfigMap in its namespace with what an
 * application needs to connect (seed endpoints, port, TLS and where its CA is, the usernames it
 * may use) and nothing secret: valkey-krm holds password hashes only, never a password.
 * docs/connecting.md shows a client connecting from it.
 */

export const connectionConfigMapName = (cluster: string) => `${cluster}-connection`;

/** The label `kubectl get configmaps -l valkey.gomomento.com/connection` finds every connection document by. */
export const CONNECTION_LABEL = `${GROUP}/connection`;
/** Its value: how a client must connect, `tls` or `plaintext`, a column of `-L valkey.gomomento.com/connection`. */
export type ConnectionKind = 'tls' | 'plaintext';

export interface ConnectionInput {
  cluster: string;
  namespace: string;
  shards: number;
  clusterDomain: string;
  /** spec.tls.secretRef; absent: a plaintext cluster. */
  tlsSecret?: string;
  /** spec.tls.clientCertificates.users: the users whose client certificate the render asks cert-manager for. */
  clientCertificateUsers?: readonly string[];
  /** The application users' names: the config chain's bindings, then the cluster's own. */
  users: readonly string[];
}

/** The `users` entry: the application users' names, comma-separated. */
export const connectionUsers = (users: readonly string[]): string => users.join(',');

export function renderConnectionConfigMap(o: ConnectionInput): KubeObject {
  const kind: ConnectionKind = o.tlsSecret ? 'tls' : 'plaintext';
  const service = `${serviceName(o.cluster)}.${o.namespace}.svc.${o.clusterDomain}`;
  const seeds = Array.from(
    { length: o.shards },
    (_, s) => `${podFqdn(podName(shardName(o.cluster, s), 0), o.cluster, o.namespace, o.clusterDomain)}:${CLIENT_PORT}`,
  );
  const data: Record<string, string> = {
    'cluster-mode': 'yes',
    service,
    port: String(CLIENT_PORT),
    seeds: seeds.join(','),
    tls: o.tlsSecret ? 'yes' : 'no',
    users: connectionUsers(o.users),
    'password-from':
      'your own Secret: the cluster holds only the SHA-256 hashes listed in its ValkeyCluster or ValkeyConfig spec.acl, never a password',
  };
  if (o.tlsSecret) {
    data['tls-ca-secret'] = o.tlsSecret;
    data['tls-ca-key'] = 'ca.crt';
    data['tls-server-names'] = `*.${service}`;
    data['tls-client-certificate'] =
      'required: present a certificate (usage client auth) signed by the CA in tls-ca-secret, e.g. a cert-manager Certificate from the issuer of the cluster certificate (docs/connecting.md)';
    if (o.clientCertificateUsers?.length)
      data['tls-client-secrets'] = o.clientCertificateUsers.map((u) => `${u}=${clientCertificateName(o.cluster, u)}`).join(',');
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: connectionConfigMapName(o.cluster),
      namespace: o.namespace,
      labels: { ...clusterLabels(o.cluster), [CONNECTION_LABEL]: kind },
    },
    data,
  };
}
