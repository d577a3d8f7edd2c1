// spec.autoscaling as the function reads it (issue 26): the ranges, minShards <= shards <=
// maxShards, and a scale-in threshold below its scale-out twin, each said in a sentence with its
// path. The API server's verdicts on the same objects are in test/apiserver/agreement-rows.ts.
import { describe, expect, it } from 'vitest';
import { parseMenu } from '../../src/menu/parse.js';
import { cluster } from '../support/objects.js';

const autoscaled = (shards: number, autoscaling: Record<string, unknown>) =>
  cluster('cache', { shards, autoscaling: { minShards: 2, maxShards: 8, scaleOut: { memoryPercent: 80 }, ...autoscaling } });
const messages = (object: unknown): string[] => parseMenu([object]).problems.map((p) => p.message);

describe('spec.autoscaling', () => {
  it.each([
    [
      'shards below minShards',
      autoscaled(1, {}),
      'ValkeyCluster team-a/cache: spec.shards: must be within autoscaling.minShards and autoscaling.maxShards (2-8); got 1',
    ],
    [
      'shards above maxShards',
      autoscaled(9, {}),
      'ValkeyCluster team-a/cache: spec.shards: must be within autoscaling.minShards and autoscaling.maxShards (2-8); got 9',
    ],
    ['minShards above maxShards', autoscaled(3, { minShards: 4, maxShards: 3 }), 'minShards must not be above maxShards'],
    [
      'no scale-out threshold',
      autoscaled(3, { scaleOut: {} }),
      'ValkeyCluster team-a/cache: spec.autoscaling.scaleOut: must set at least one threshold',
    ],
    [
      'memoryPercent 0',
      autoscaled(3, { scaleOut: { memoryPercent: 0 } }),
      'ValkeyCluster team-a/cache: spec.autoscaling.scaleOut.memoryPercent: must be at least 1',
    ],
    ['cpuPercent 150', autoscaled(3, { scaleOut: { cpuPercent: 150 } }), 'must be at most 100'],
    ['a fractional bandwidth', autoscaled(3, { scaleOut: { bandwidthMbps: 0.5 } }), 'must be a whole number from 1 to 100000'],
    [
      'a window under 30 s',
      autoscaled(3, { scaleInWindowSeconds: 29 }),
      'ValkeyCluster team-a/cache: spec.autoscaling.scaleInWindowSeconds: must be at least 30',
    ],
    [
      'scale-in at its scale-out twin',
      autoscaled(3, { scaleOut: { cpuPercent: 60 }, scaleIn: { cpuPercent: 60 } }),
      'ValkeyCluster team-a/cache: spec.autoscaling.scaleIn.cpuPercent: scaleIn.cpuPercent must be below scaleOut.cpuPercent, or the cluster would scale in and out on the same load',
    ],
    ['an unknown field', autoscaled(3, { target: 4 }), 'spec.autoscaling.target'],
  ])('%s', (_name, object, expected) => {
    expect(messages(object)).toContainEqual(expect.stringContaining(expected));
  });

  it.each([
    ['at minShards', autoscaled(2, {})],
    ['at maxShards', autoscaled(8, {})],
    [
      'every field',
      autoscaled(4, {
        scaleOut: { memoryPercent: 80, cpuPercent: 70, bandwidthMbps: 800 },
        scaleIn: { memoryPercent: 40, cpuPercent: 30, bandwidthMbps: 200 },
        scaleInWindowSeconds: 300,
        scaleOutCooldownSeconds: 180,
        scaleInCooldownSeconds: 900,
      }),
    ],
    ['a scale-in threshold with no scale-out twin', autoscaled(4, { scaleIn: { cpuPercent: 20 } })],
  ])('accepts %s', (_name, object) => {
    expect(messages(object)).toEqual([]);
  });
});
