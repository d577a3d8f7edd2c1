// The plan's metering figures (src/plan/metering.ts): the controller's memory rule read from the
// render, per 30-day month, shown only where it changes. Goldens show it in every format
// (cases/memory-doubled, metering-sources, shards-up...); this pins the rule's edges.
import { describe, expect, it } from 'vitest';
import { configuredPodMemory } from '../../src/api/metering-memory.js';
import { compareMetering, meteringFigure, meteringReason, namespaceMetering } from '../../src/plan/metering.js';
import type { RenderedCluster } from '../../src/plan/rendered-cluster.js';

/** A render as far as metering reads it: the namespace, the pods, the StatefulSets' memory and valkey.conf. */
const cluster = (namespace: string, name: string, pods: number, memory: string | undefined, conf = ''): RenderedCluster =>
  ({ namespace, name, metering: { pods, configured: configuredPodMemory([{ name: `${name}-0`, memory }], conf) } }) as RenderedCluster;

describe('plan: metering figure of one cluster', () => {
  it.each([
    ['Reserved', cluster('a', 'c', 6, '2Gi', 'maxmemory 1gb\n'), 'Reserved', 2 ** 31, '9277.129', false, 'resources.memory 2Gi'],
    [
      'Maxmemory, Valkey units',
      cluster('a', 'c', 3, undefined, 'maxmemory 1gb\n'),
      'Maxmemory',
      2 ** 30,
      '2319.282',
      false,
      'maxmemory 1gb (no resources.memory)',
    ],
    [
      'below the floor',
      cluster('a', 'c', 1, '64Mi'),
      'Reserved',
      100_000_000,
      '72.000',
      false,
      'resources.memory 64Mi, below the 100 MB floor: counted as 100 MB',
    ],
    [
      'Observed: unknown at plan time, at least the floor',
      cluster('a', 'c', 2, undefined, 'maxmemory 0\n'),
      'Observed',
      100_000_000,
      '144.000',
      true,
      'observed peak (unknown at plan time), at least the 100 MB floor',
    ],
  ] as const)('%s', (_name, c, source, podBytes, gbHoursPerMonth, atLeast, memory) => {
    expect(meteringFigure(c)).toEqual({ pods: c.metering.pods, source, memory, podBytes, gbHoursPerMonth, atLeast });
  });
});

describe('plan: metering only where it changes', () => {
  it('the same bytes written another way are no change; more pods or more memory are', () => {
    expect(compareMetering(cluster('a', 'c', 6, '2Gi'), cluster('a', 'c', 6, '2048Mi'))).toBeUndefined();
    expect(compareMetering(cluster('a', 'c', 6, '2Gi'), cluster('a', 'c', 8, '2Gi'))?.after?.gbHoursPerMonth).toBe('12369.505');
    const doubled = compareMetering(cluster('a', 'c', 6, '2Gi'), cluster('a', 'c', 6, '4Gi'));
    expect(doubled && meteringReason(doubled)).toBe(
      'metering: 6 pods x resources.memory 2Gi -> 6 pods x resources.memory 4Gi: 9,277.129 -> 18,554.258 GB-hours per 30-day month',
    );
  });

  it('a change of source alone is shown, and an unknown peak is a lower bound', () => {
    const m = compareMetering(cluster('a', 'c', 1, '100M'), cluster('a', 'c', 1, undefined));
    expect(m && meteringReason(m)).toBe(
      'metering: 1 pod x resources.memory 100M -> 1 pod x observed peak (unknown at plan time), at least the 100 MB floor: 72.000 -> at least 72.000 GB-hours per 30-day month',
    );
  });

  it('per namespace: every cluster summed exactly, only namespaces that change, by name, whatever the order', () => {
    const base = [cluster('b', 'x', 6, '2Gi'), cluster('a', 'y', 2, '1Gi'), cluster('a', 'z', 3, '1Gi')];
    const change = [cluster('b', 'x', 6, '4Gi'), cluster('a', 'z', 3, '1Gi'), cluster('a', 'y', 2, '1Gi'), cluster('c', 'w', 1, undefined)];
    const byKey = (list: RenderedCluster[]) => new Map(list.map((c) => [`${c.namespace}/${c.name}`, c]));
    const plan = namespaceMetering(byKey(base), byKey(change));
    expect(plan).toEqual({
      hoursPerMonth: 720,
      namespaces: [
        {
          namespace: 'b',
          before: { gbHoursPerMonth: '9277.129', atLeast: false },
          after: { gbHoursPerMonth: '18554.258', atLeast: false },
        },
        { namespace: 'c', before: { gbHoursPerMonth: '0.000', atLeast: false }, after: { gbHoursPerMonth: '72.000', atLeast: true } },
      ],
    });
    expect(namespaceMetering(byKey([...base].reverse()), byKey([...change].reverse()))).toEqual(plan);
    expect(namespaceMetering(byKey(base), byKey(base))).toBeUndefined();
  });
});
