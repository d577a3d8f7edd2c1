// The connection document (issue 33): one ConfigMap per cluster, in its namespace, with what an
// application needs to connect and nothing secret; found with `kubectl get configmaps -l
// valkey.gomomento.com/connection` (its value, tls or plaintext, is a -L column).
import { describe, expect, it } from 'vitest';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { renderAll } from '../../src/render/render-all.js';
import { cluster, config, image } from '../support/objects.js';

const HASH = 'c'.repeat(64);
const render = validateRenderConfig({
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyRenderConfig',
  metadata: { name: 'render' },
  spec: {
    clusterDomain: 'example.internal',
    systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } },
  },
}).config!;
const role = {
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyRole',
  metadata: { name: 'rw' },
  spec: { categories: [{ name: 'read', access: 'allow' }] },
};
const binding = (username: string) => ({
  username,
  passwordHashes: [HASH],
  permissions: [{ roleRef: 'rw', keys: [{ pattern: 'k:*', access: 'readwrite' }] }],
});
const menu = [
  image('img'),
  config('std', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' }, acl: [binding('platform-reader')] }),
  role,
];

function connectionOf(spec: Record<string, unknown>) {
  const out = renderAll([...menu, cluster('orders', { configRef: 'std', ...spec }, 'shop')], render);
  expect(out.problems.filter((p) => p.severity === 'error')).toEqual([]);
  const objects = out.clusters[0]!.objects;
  const cms = objects.filter((o) => o.kind === 'ConfigMap');
  expect(cms.map((c) => c.metadata.name)).toEqual(['orders-config', 'orders-connection']);
  return cms[1] as unknown as { metadata: { namespace: string; labels: Record<string, string> }; data: Record<string, string> };
}

describe('the connection ConfigMap', () => {
  it('a plaintext cluster: the Service, one seed per shard, the port, the users of the config and of the cluster, no TLS keys', () => {
    const cm = connectionOf({ shards: 3, replicasPerShard: 1, acl: [binding('orders-api')] });
    expect(cm.metadata.namespace).toBe('shop');
    expect(cm.metadata.labels['valkey.gomomento.com/connection']).toBe('plaintext');
    expect(cm.metadata.labels['valkey.gomomento.com/cluster']).toBe('orders');
    expect(cm.data).toMatchObject({
      'cluster-mode': 'yes',
      service: 'orders.shop.svc.example.internal',
      port: '6379',
      seeds: [0, 1, 2].map((s) => `orders-${s}-0.orders.shop.svc.example.internal:6379`).join(','),
      tls: 'no',
      users: 'platform-reader,orders-api',
    });
    expect(Object.keys(cm.data).filter((k) => k.startsWith('tls-'))).toEqual([]);
  });

  it('a TLS cluster: where the CA is (Secret and key), the names the server certificates carry, and that a client certificate is required', () => {
    const cm = connectionOf({ shards: 1, replicasPerShard: 0, tls: { secretRef: 'orders-tls' } });
    expect(cm.metadata.labels['valkey.gomomento.com/connection']).toBe('tls');
    expect(cm.data).toMatchObject({
      tls: 'yes',
      'tls-ca-secret': 'orders-tls',
      'tls-ca-key': 'ca.crt',
      'tls-server-names': '*.orders.shop.svc.example.internal',
    });
    expect(cm.data['tls-client-certificate']).toMatch(/^required: /);
  });

  it('never holds a password or a password hash, nor a system user', () => {
    const cm = connectionOf({ shards: 1, replicasPerShard: 0, acl: [binding('orders-api')] });
    const text = JSON.stringify(cm);
    expect(text).not.toContain(HASH);
    expect(text).not.toContain('a'.repeat(64));
    expect(text).not.toContain('b'.repeat(64));
    expect(cm.data.users?.split(',')).not.toContain('valkey-krm-controller');
    expect(cm.data.users?.split(',')).not.toContain('valkey-krm-replication');
  });
});
