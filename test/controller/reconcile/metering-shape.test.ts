import { describe, expect, it } from 'vitest';
import { provisionedShape } from '../../../src/controller/reconcile/metering-shape.js';
import type { StatefulSet } from '../../../src/controller/kube/types.js';

const set = (name: string, replicas: number, memory?: string): StatefulSet => ({
  metadata: { name },
  spec: {
    replicas,
    template: {
      spec: { containers: [{ name: 'valkey', ...(memory ? { resources: { requests: { memory }, limits: { memory } } } : {}) }] },
    },
  },
});

describe('provisioned shape: StatefulSets and valkey.conf', () => {
  it.each([
    [
      'Reserved: resources.memory wins over maxmemory',
      [set('c-0', 2, '2Gi'), set('c-1', 2, '2Gi')],
      'maxmemory 1500mb\n',
      undefined,
      'Reserved',
      2 * 2 ** 30,
    ],
    [
      'Maxmemory when no resources.memory (Valkey units: mb is 1024²)',
      [set('c-0', 3)],
      'maxmemory 1500mb\n',
      undefined,
      'Maxmemory',
      1500 * 2 ** 20,
    ],
    ['Maxmemory 0 is unlimited: the observed peak', [set('c-0', 1)], 'maxmemory 0\n', 300_000_000, 'Observed', 300_000_000],
    ['Observed when neither is set', [set('c-0', 1)], 'appendonly no\n', 250_000_000, 'Observed', 250_000_000],
    ['the floor: a 64Mi pod counts as 100 MB', [set('c-0', 1, '64Mi')], undefined, undefined, 'Reserved', 100_000_000],
    ['nothing known yet: the floor', [set('c-0', 1)], undefined, undefined, 'None', 100_000_000],
    [
      'during a memory change the larger figure counts',
      [set('c-0', 2, '1Gi'), set('c-1', 2, '2Gi')],
      undefined,
      undefined,
      'Reserved',
      2 * 2 ** 30,
    ],
  ] as const)('%s', (_name, sets, conf, peak, source, podBytes) => {
    const s = provisionedShape(sets, conf, peak);
    expect(s.memory).toMatchObject({ source, podBytes });
    expect(s.shards).toBe(sets.length);
    expect(s.pods).toBe(sets.reduce((n, x) => n + (x.spec?.replicas ?? 0), 0));
  });

  it('the reason names the figure and where it was read', () => {
    expect(provisionedShape([set('c-0', 1, '64Mi')], undefined).memory.reason).toBe(
      'resources.memory 64Mi (StatefulSet c-0); below the 100 MB floor, counted as 100 MB',
    );
    expect(provisionedShape([], undefined)).toMatchObject({ shards: 0, pods: 0 });
  });
});
