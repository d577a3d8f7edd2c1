import { describe, expect, it } from 'vitest';
import { highestPeak, observedPeakBytes, provisionedShape } from '../../../src/controller/reconcile/metering-shape.js';
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

describe("the Observed source: the nodes' peak as the metrics last read it", () => {
  const sample = (usedMemoryPeakBytes?: number, usedMemoryBytes?: number) => ({
    atMs: 0,
    stats: {
      ...(usedMemoryPeakBytes !== undefined ? { usedMemoryPeakBytes } : {}),
      ...(usedMemoryBytes !== undefined ? { usedMemoryBytes } : {}),
    },
  });
  const MiB = 2 ** 20;

  it('the highest used_memory_peak of the nodes, used_memory where a node gave no peak, up to a whole MiB', () => {
    expect(observedPeakBytes([sample(300 * MiB + 1, 10), sample(200 * MiB), sample(undefined, 310 * MiB)])).toBe(310 * MiB);
    expect(observedPeakBytes([sample(300 * MiB + 1, 10), sample(200 * MiB)])).toBe(301 * MiB);
    expect(observedPeakBytes([sample(), sample()])).toBeUndefined();
    expect(observedPeakBytes([])).toBeUndefined();
  });

  it('a cluster with neither resources.memory nor maxmemory is metered from it, with the floor and the reason', () => {
    const shape = provisionedShape([set('c-0', 2), set('c-1', 2)], 'appendonly no\n', observedPeakBytes([sample(512 * MiB)]));
    expect(shape).toMatchObject({ pods: 4, memory: { source: 'Observed', podBytes: 512 * MiB } });
    expect(shape.memory.reason).toBe('no resources.memory and no maxmemory; the highest used_memory_peak of the nodes');
    expect(provisionedShape([set('c-0', 1)], undefined, observedPeakBytes([sample(3 * MiB)])).memory).toEqual({
      source: 'Observed',
      podBytes: 100_000_000,
      reason: 'no resources.memory and no maxmemory; the highest used_memory_peak of the nodes; below the 100 MB floor, counted as 100 MB',
    });
  });

  it.each([
    ["nothing read yet after a restart: the record's own peak goes on", undefined, { source: 'Observed', podBytes: 700 }, 700],
    ['a node restarted, its peak lower: the higher one stays', 500, { source: 'Observed', podBytes: 700 }, 700],
    ['a higher peak', 900, { source: 'Observed', podBytes: 700 }, 900],
    ['the record counted another source: only what the nodes say now', 500, { source: 'Reserved', podBytes: 700 }, 500],
    ['no record, nothing read', undefined, undefined, undefined],
  ] as const)('%s', (_name, now, recorded, expected) => {
    expect(highestPeak(now, recorded && { ...recorded, reason: '' })).toBe(expected);
  });
});
