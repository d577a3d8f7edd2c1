// spec.tls.clientCertificates (issue 33): the render asks cert-manager for each listed user's client
// certificate, from the issuer of the cluster's own, in the cluster's namespace; users that are not
// the cluster's ACL users, names that cannot name a Secret and lists without an issuer are errors
// naming the field. A real client with such a certificate: test/controller/team-clusters-sync.
import { describe, expect, it } from 'vitest';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { isEarlierOutput, renderedNameMatches } from '../../src/krm/ownership.js';
import { renderAll } from '../../src/render/render-all.js';
import { binding, cluster, config, image, renderConfigObject, role } from '../support/objects.js';

const render = validateRenderConfig(renderConfigObject()).config!;
const menu = [
  image('img'),
  config('std', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' }, acl: [binding('platform-reader', 'rw')] }),
  role('rw'),
];
const issuerRef = { kind: 'ClusterIssuer', name: 'internal-ca' };

const renderWith = (clientCertificates: unknown, acl = [binding('orders-api', 'rw')]) =>
  renderAll(
    [
      ...menu,
      cluster(
        'orders',
        { configRef: 'std', shards: 1, replicasPerShard: 1, acl, tls: { secretRef: 'orders-tls', clientCertificates } },
        'shop',
      ),
    ],
    render,
  );
const errors = (out: ReturnType<typeof renderAll>) => out.problems.filter((p) => p.severity === 'error').map((p) => p.message);

describe('spec.tls.clientCertificates', () => {
  it('renders one client-auth Certificate per user, <cluster>-client-<user>, first, from the named issuer; the connection document names their Secrets', () => {
    const out = renderWith({ issuerRef, users: ['orders-api', 'platform-reader'] });
    expect(errors(out)).toEqual([]);
    const objects = out.clusters[0]!.objects;
    expect(objects.slice(0, 2)).toEqual(
      ['orders-api', 'platform-reader'].map((user) => ({
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: {
          name: `orders-client-${user}`,
          namespace: 'shop',
          labels: {
            'app.kubernetes.io/name': 'valkey',
            'app.kubernetes.io/instance': 'orders',
            'app.kubernetes.io/managed-by': 'valkey-krm',
            'valkey.gomomento.com/cluster': 'orders',
          },
          annotations: { 'valkey.gomomento.com/rendered-for': 'shop/orders' },
        },
        spec: {
          secretName: `orders-client-${user}`,
          commonName: user,
          usages: ['client auth'],
          issuerRef: { group: 'cert-manager.io', kind: 'ClusterIssuer', name: 'internal-ca' },
        },
      })),
    );
    expect(objects.filter((o) => o.kind === 'Certificate')).toHaveLength(2);
    const doc = objects.find((o) => o.metadata.name === 'orders-connection') as unknown as { data: Record<string, string> };
    expect(doc.data['tls-client-secrets']).toBe('orders-api=orders-client-orders-api,platform-reader=orders-client-platform-reader');
  });

  it('renders no Certificate and no tls-client-secrets without the field', () => {
    const out = renderAll(
      [...menu, cluster('orders', { configRef: 'std', shards: 1, replicasPerShard: 0, tls: { secretRef: 'orders-tls' } }, 'shop')],
      render,
    );
    const objects = out.clusters[0]!.objects;
    expect(objects.map((o) => o.kind)).not.toContain('Certificate');
    expect(Object.keys((objects.at(-1) as unknown as { data: Record<string, string> }).data)).not.toContain('tls-client-secrets');
  });

  it('a user that is not an ACL user of the cluster is an error naming the field, the users it has and the fix; nothing is rendered', () => {
    const out = renderWith({ issuerRef, users: ['orders-api', 'billing-api'] });
    expect(errors(out)).toEqual([
      'ValkeyCluster shop/orders: spec.tls.clientCertificates.users: billing-api is not an ACL user of this cluster (its spec.acl or config chain std lists platform-reader, orders-api): a certificate gets a client past the handshake only to log in as a user, so add the user to spec.acl or remove it here',
    ]);
    expect(out.clusters[0]?.objects ?? []).toEqual([]);
  });

  it.each([
    ['a user that cannot name a Secret', { issuerRef, users: ['Orders_API'] }, /users\[0\]: must be an ACL user whose name is a DNS label/],
    ['a user listed twice', { issuerRef, users: ['orders-api', 'orders-api'] }, /users.*lists a user twice/],
    ['no users', { issuerRef, users: [] }, /users.*at least one user/],
    ['no issuer', { users: ['orders-api'] }, /issuerRef/],
    [
      'an issuer kind cert-manager does not have',
      { issuerRef: { kind: 'Vault', name: 'x' }, users: ['orders-api'] },
      /ClusterIssuer or Issuer/,
    ],
  ])('%s is an error', (_what, clientCertificates, message) => {
    const out = renderWith(clientCertificates, [binding('orders-api', 'rw'), binding('Orders_API', 'rw')]);
    expect(errors(out).join('\n')).toMatch(message);
  });

  it("the render's earlier Certificates are its own on a re-render; a team's Certificate of another name is not claimed", () => {
    expect(renderedNameMatches('cert-manager.io/v1', 'Certificate', 'orders-client-orders-api', 'orders')).toBe(true);
    expect(renderedNameMatches('cert-manager.io/v1', 'Certificate', 'orders-tls', 'orders')).toBe(false);
    expect(renderedNameMatches('cert-manager.io/v1', 'Certificate', 'orders-client-', 'orders')).toBe(false);
    expect(renderedNameMatches('cert-manager.io/v1alpha2', 'Certificate', 'orders-client-orders-api', 'orders')).toBe(false);
    const earlier = renderWith({ issuerRef, users: ['orders-api'] }).clusters[0]!.objects[0];
    expect(isEarlierOutput(earlier, undefined)).toBe(true);
    // Output of a release before the rendered-for annotation, read from its file.
    const { annotations: _, ...meta } = (earlier as unknown as { metadata: Record<string, unknown> }).metadata;
    const fromFile = { ...earlier, metadata: { ...meta, annotations: { 'config.kubernetes.io/path': 'rendered/shop/orders.yaml' } } };
    expect(isEarlierOutput(fromFile, 'rendered')).toBe(true);
  });
});
