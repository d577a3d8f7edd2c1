// Worst cases for the menu checks (src/menu) and the renderer: long and cyclic baseRef chains,
// many dangling references that each earn a did-you-mean, one missing image named by many configs.
import { API_VERSION as API } from '../src/api/group.js';
import type { GrowthCase } from './growth.bench.js';
import { renderConfig } from './generate.js';

const HASH = 'a153ef84fde0607be195d513251bfcf51fe53ec5cadd6323b3f350c30d7348d8';

/** A ResourceList in JSON (kpt accepts both): quick to generate at any size. */
export function jsonResourceList(items: unknown[]): string {
  return `${JSON.stringify({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items, functionConfig: renderConfig })}\n`;
}

const image = {
  apiVersion: API,
  kind: 'ValkeyImage',
  metadata: { name: 'valkey-9' },
  spec: { repository: 'valkey/valkey', tag: '9.0.1', version: '9.0.1' },
};
const role = { apiVersion: API, kind: 'ValkeyRole', metadata: { name: 'app' }, spec: { categories: [{ name: 'read', access: 'allow' }] } };
const config = (name: string, spec: Record<string, unknown>) => ({ apiVersion: API, kind: 'ValkeyConfig', metadata: { name }, spec });
const cluster = (name: string, configRef: string, acl?: unknown[]) => ({
  apiVersion: API,
  kind: 'ValkeyCluster',
  metadata: { name, namespace: 'team' },
  spec: { configRef, shards: 1, replicasPerShard: 0, ...(acl ? { acl } : {}) },
});
/** Names of one length, so no length filter tells them apart. */
const pad = (i: number) => String(i).padStart(7, '0');

export const menuCases: GrowthCase[] = [
  {
    name: 'baseRef chain n long',
    make: (n) =>
      jsonResourceList([
        image,
        ...Array.from({ length: n }, (_, i) =>
          config(`c${pad(i)}`, i === n - 1 ? { imageRef: 'valkey-9' } : { baseRef: `c${pad(i + 1)}` }),
        ),
        cluster('cache', `c${pad(0)}`),
      ]),
  },
  {
    name: 'baseRef cycle of n configs',
    make: (n) =>
      jsonResourceList([image, ...Array.from({ length: n }, (_, i) => config(`c${pad(i)}`, { baseRef: `c${pad((i + 1) % n)}` }))]),
  },
  {
    name: 'n clusters naming n missing configs',
    make: (n) =>
      jsonResourceList([
        image,
        ...Array.from({ length: n }, (_, i) => config(`c${pad(i)}`, { imageRef: 'valkey-9' })),
        ...Array.from({ length: n }, (_, i) => cluster(`k${pad(i)}`, `x${pad(i)}`)),
      ]),
  },
  {
    name: 'n bindings naming n missing roles',
    make: (n) =>
      jsonResourceList([
        image,
        config('base', { imageRef: 'valkey-9' }),
        ...Array.from({ length: n }, (_, i) => ({ ...role, metadata: { name: `r${pad(i)}` } })),
        ...Array.from({ length: n }, (_, i) =>
          cluster(`k${pad(i)}`, 'base', [
            { username: 'u', passwordHashes: [HASH], permissions: [{ roleRef: `x${pad(i)}`, keys: [{ pattern: '*', access: 'read' }] }] },
          ]),
        ),
      ]),
  },
  {
    name: 'n configs naming one missing image',
    make: (n) =>
      jsonResourceList([
        ...Array.from({ length: n }, (_, i) => config(`c${pad(i)}`, { imageRef: 'nope' })),
        ...Array.from({ length: n }, (_, i) => cluster(`k${pad(i)}`, `c${pad(i)}`)),
      ]),
  },
  {
    name: 'n configs each naming a missing image',
    make: (n) =>
      jsonResourceList([
        ...Array.from({ length: n }, (_, i) => ({ ...image, metadata: { name: `i${pad(i)}` } })),
        ...Array.from({ length: n }, (_, i) => config(`c${pad(i)}`, { imageRef: `x${pad(i)}` })),
      ]),
  },
  {
    name: 'n clusters rendered (green)',
    base: 500,
    make: (n) =>
      jsonResourceList([
        image,
        role,
        config('base', { imageRef: 'valkey-9' }),
        ...Array.from({ length: n }, (_, i) => cluster(`k${pad(i)}`, 'base')),
      ]),
  },
];
