import { describe, expectTypeOf, it } from 'vitest';
import type {
  AclBinding,
  AutoscalingSpec,
  AutoscalingStatus,
  ScaleDirection,
  RenderConfig,
  ValkeyCluster,
  ValkeyClusterSpec,
  ValkeyConfigSpec,
  ValkeyImageSpec,
  ZoneSpread,
} from '../../src/api/index.js';

describe('types inferred from the schemas', () => {
  it('ValkeyCluster spec fields', () => {
    expectTypeOf<ValkeyClusterSpec['configRef']>().toEqualTypeOf<string>();
    expectTypeOf<ValkeyClusterSpec['shards']>().toEqualTypeOf<number>();
    expectTypeOf<ValkeyClusterSpec['tls']>().toEqualTypeOf<
      | {
          secretRef: string;
          clientCertificates?: { issuerRef: { kind: 'ClusterIssuer' | 'Issuer'; name: string }; users: string[] } | undefined;
        }
      | undefined
    >();
    expectTypeOf<NonNullable<ValkeyClusterSpec['placement']>['zoneSpread']>().toEqualTypeOf<ZoneSpread | undefined>();
    expectTypeOf<ZoneSpread>().toEqualTypeOf<'bestEffort' | 'required'>();
    expectTypeOf<ValkeyCluster['kind']>().toEqualTypeOf<'ValkeyCluster'>();
  });

  it('autoscaling fields: min and max required, thresholds whole numbers, the decision in status', () => {
    expectTypeOf<ValkeyClusterSpec['autoscaling']>().toEqualTypeOf<AutoscalingSpec | undefined>();
    expectTypeOf<AutoscalingSpec['minShards']>().toEqualTypeOf<number>();
    expectTypeOf<AutoscalingSpec['scaleOut']['memoryPercent']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<AutoscalingSpec['scaleInWindowSeconds']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<AutoscalingStatus['desiredShards']>().toEqualTypeOf<number>();
    expectTypeOf<AutoscalingStatus['lastDecision']>().toEqualTypeOf<ScaleDirection | undefined>();
    expectTypeOf<ScaleDirection>().toEqualTypeOf<'ScaleOut' | 'ScaleIn'>();
  });

  it('menu item fields', () => {
    expectTypeOf<ValkeyImageSpec>().toEqualTypeOf<{ repository: string; tag: string; version: string }>();
    expectTypeOf<NonNullable<ValkeyConfigSpec['resources']>['cpu']>().toEqualTypeOf<string | number | undefined>();
    expectTypeOf<ValkeyConfigSpec['valkey']>().toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<AclBinding['permissions'][number]['keys'][number]['access']>().toEqualTypeOf<'read' | 'write' | 'readwrite'>();
  });

  it('the render config has its defaults applied', () => {
    expectTypeOf<RenderConfig['outputDir']>().toEqualTypeOf<string>();
    expectTypeOf<RenderConfig['systemUsers']['replication']['secretName']>().toEqualTypeOf<string>();
  });

  it('a team cannot set an image on a cluster (type level)', () => {
    const spec: ValkeyClusterSpec = {
      configRef: 'standard',
      shards: 1,
      replicasPerShard: 0,
      // @ts-expect-error image is not a ValkeyCluster field
      image: 'valkey/valkey:9.0.1',
    };
    expectTypeOf(spec).toEqualTypeOf<ValkeyClusterSpec>();
  });
});
