import type { ValkeyClusterSpec } from '../api/index.js';
import { clusterLabels } from './labels.js';
import type { KubeObject } from './object.js';

/** cert-manager's API, which renders of spec.tls.clientCertificates are written against. */
export const CERT_MANAGER_API_VERSION = 'cert-manager.io/v1';
const CERT_MANAGER_GROUP = 'cert-manager.io';

/** The Certificate, and the Secret it writes, of one client user: `<cluster>-client-<user>`. */
export const clientCertificateName = (cluster: string, user: string) => `${cluster}-client-${user}`;
/** Every rendered client Certificate's name starts so; the rest is the user (a DNS label). */
export const clientCertificatePrefix = (cluster: string) => `${cluster}-client-`;

type ClientCertificates = NonNullable<NonNullable<ValkeyClusterSpec['tls']>['clientCertificates']>;

/**
 * One cert-manager Certificate per listed user (docs/connecting.md): a client certificate (usage
 * `client auth` only, so it cannot serve as a node's certificate) from the issuer that issues the
 * cluster's own, which is what the servers' `tls-auth-clients yes` asks of a client before it may
 * log in. The common name is the user, for people reading the certificate: Valkey does not map
 * it to the user, the password still decides who logs in. Duration, renewal and key are
 * cert-manager's defaults (90 days, renewed at two thirds); cert-manager writes tls.crt, tls.key
 * and ca.crt into the Secret of the same name, in the cluster's namespace only: a rendered object
 * never reaches into another team's namespace.
 */
export function renderClientCertificates(cluster: string, namespace: string, clients: ClientCertificates): KubeObject[] {
  return clients.users.map((user) => {
    const name = clientCertificateName(cluster, user);
    return {
      apiVersion: CERT_MANAGER_API_VERSION,
      kind: 'Certificate',
      metadata: { name, namespace, labels: clusterLabels(cluster) },
      spec: {
        secretName: name,
        commonName: user,
        usages: ['client auth'],
        issuerRef: { group: CERT_MANAGER_GROUP, kind: clients.issuerRef.kind, name: clients.issuerRef.name },
      },
    };
  });
}
