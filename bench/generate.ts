// Synthetic menus and clusters for the benchmark: chains up to 10 deep, clusters of 3 shards × 2 replicas.
import { stringify } from 'yaml';
import { API_VERSION as API } from '../src/api/group.js';

const HASH = 'a153ef84fde0607be195d513251bfcf51fe53ec5cadd6323b3f350c30d7348d8';

export function menuObjects(chains = 10, depth = 10): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < 5; i++)
    out.push({
      apiVersion: API,
      kind: 'ValkeyImage',
      metadata: { name: `valkey-9-${i}` },
      spec: { repository: 'valkey/valkey', tag: `9.${i}.1`, version: `9.${i}.1` },
    });
  out.push({
    apiVersion: API,
    kind: 'ValkeyRole',
    metadata: { name: 'app' },
    spec: {
      categories: [
        { name: 'read', access: 'allow' },
        { name: 'write', access: 'allow' },
      ],
    },
  });
  for (let c = 0; c < chains; c++) {
    for (let d = 0; d < depth; d++) {
      const spec: Record<string, unknown> =
        d === depth - 1
          ? {
              imageRef: `valkey-9-${c % 5}`,
              resources: { cpu: '1', memory: '2Gi' },
              valkey: { maxmemory: '1500mb', 'maxmemory-policy': 'allkeys-lru' },
            }
          : { baseRef: `chain${c}-level${d + 1}`, valkey: { hz: String(10 + d) } };
      if (d === 0)
        spec.acl = [
          { username: 'monitor', passwordHashes: [HASH], permissions: [{ roleRef: 'app', keys: [{ pattern: '*', access: 'read' }] }] },
        ];
      out.push({ apiVersion: API, kind: 'ValkeyConfig', metadata: { name: `chain${c}-level${d}` }, spec });
    }
  }
  return out;
}

export function clusterObjects(n: number, chains = 10): unknown[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: API,
    kind: 'ValkeyCluster',
    metadata: { name: `cache-${i}`, namespace: `team-${i % 50}` },
    spec: {
      configRef: `chain${i % chains}-level${i % 3}`,
      shards: 3,
      replicasPerShard: 2,
      acl: [
        {
          username: `app-${i}`,
          passwordHashes: [HASH],
          permissions: [{ roleRef: 'app', keys: [{ pattern: `app-${i}:*`, access: 'readwrite' }] }],
        },
      ],
      placement: { zones: ['a', 'b', 'c'] },
    },
  }));
}

export const renderConfig = {
  apiVersion: API,
  kind: 'ValkeyRenderConfig',
  metadata: { name: 'render', annotations: { 'config.kubernetes.io/local-config': 'true' } },
  spec: { systemUsers: { replication: { passwordHash: HASH }, controller: { passwordHash: HASH } } },
};

/** A ResourceList as kpt sends it. */
export function resourceListText(objects: unknown[]): string {
  const items = objects.map((o) => `- ${stringify(o, { indentSeq: false }).trimEnd().replace(/\n/g, '\n  ')}\n`).join('');
  const fc = stringify(renderConfig).trimEnd().replace(/^/gm, '  ');
  return `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}functionConfig:\n${fc}\n`;
}
