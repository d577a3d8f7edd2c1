import { strictPolicy, type VersionPolicy } from '../../../src/controller/cluster/version-gate.js';

/**
 * TEST ONLY. Debian's redis-server has no valkey_version, so the strict policy (the only one the
 * production entry point can use) rejects it. Formation tests need real servers that speak the
 * cluster protocol, so they accept Redis here, reporting its version as `redis-<x.y.z>`. Valkey
 * servers still go through the strict check.
 */
export const acceptRedisForTests: VersionPolicy = {
  name: 'test-only-accept-redis',
  check(identity) {
    if (identity.kind === 'valkey') return strictPolicy.check(identity);
    if (identity.redisVersion !== undefined) return { ok: true, version: `redis-${identity.redisVersion}` };
    return { ok: false, reason: 'NotValkey', found: 'no version at all' };
  },
};
