// plan (issue 32): a menu edit that makes a cluster refuse work is never "live". A setting the
// cluster's shape turns into a standing refusal (min-replicas-to-write above replicasPerShard, a
// maxclients below the cluster's own connections, maxmemory at the memory limit) or a value Valkey
// refuses makes the change invalid, with the reason (exit 1); one that refuses work when something
// ordinary happens (min-replicas-to-write equal to replicasPerShard: writes stop while a replica
// is down, as in every roll; a memory limit a full sync can exceed) makes the cluster risky, with
// the reason, so --fail-on risky trips (exit 3).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPlanCommand } from '../../src/krm/plan-command.js';
import { cluster, config, image, renderConfigObject } from '../support/objects.js';

const dir = mkdtempSync(join(tmpdir(), 'valkey-krm-shape-risk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A package: the standard config with `valkey` and `memory`, and team-a/cache with `replicas` per shard (1). */
function write(file: string, valkey: Record<string, string>, memory = '2Gi', replicas = 1) {
  const docs = [
    renderConfigObject({ outputDir: 'valkey' }),
    image('valkey-9-0'),
    config('standard', { imageRef: 'valkey-9-0', resources: { cpu: '1', memory }, valkey: { maxmemory: '1500mb', ...valkey } }),
    cluster('cache', { shards: 3, replicasPerShard: replicas }),
  ];
  writeFileSync(join(dir, file), docs.map((d) => `---\n${JSON.stringify(d)}\n`).join(''));
}

const plan = (change: string) => runPlanCommand(['--base', 'base.yaml', '--fail-on', 'risky', change], { cwd: dir });

describe('plan: settings that make a cluster refuse work', () => {
  write('base.yaml', {});

  it.each([
    [
      'min-replicas-to-write equal to replicasPerShard',
      { 'min-replicas-to-write': '1' },
      '2Gi',
      /a shard refuses writes \(NOREPLICAS\) whenever one of its replicas is down or behind/,
    ],
    [
      'maxmemory leaving less room than the replication buffer',
      {},
      '1700Mi',
      /leaves 200Mi of the 1700Mi memory limit, but a primary with replicas holds up to 256Mi of replication buffer outside maxmemory/,
    ],
  ])('%s: risky with the reason, and --fail-on risky exits 3', (_what, valkey, memory, reason) => {
    const file = `risky-${memory}-${Object.keys(valkey).length}.yaml`;
    write(file, valkey, memory);
    const out = plan(file);
    expect(out.stdout).toMatch(/^risky \(1 cluster\):/m);
    expect(out.stdout).toMatch(new RegExp(`^ {4}risky: ValkeyCluster team-a/cache: .*${reason.source}`, 'm'));
    expect(out.stdout).not.toMatch(/^live /m);
    expect(out.exitCode).toBe(3);
  });

  it.each([
    [
      'min-replicas-to-write above replicasPerShard',
      { 'min-replicas-to-write': '2' },
      /ValkeyCluster team-a\/cache: spec\.replicasPerShard: 1 replica\(s\) per shard, but min-replicas-to-write 2 .* refuse every write/,
    ],
    ['maxclients below the cluster bus links', { maxclients: '12' }, /maxclients 12 .* 10 cluster bus links .* 15 in all/],
    ['a value Valkey refuses', { hz: 'abc' }, /spec\.valkey\.hz: "abc" is not a value Valkey 9\.1\.2 accepts for hz/],
    [
      'io-threads out of range',
      { 'io-threads': '9999' },
      /"9999" is not a value Valkey 9\.1\.2 accepts for io-threads: it is out of range/,
    ],
  ])('%s: the change is invalid, with the reason (exit 1)', (_what, valkey, reason) => {
    const file = `invalid-${Object.keys(valkey)[0]}.yaml`;
    write(file, valkey);
    const out = plan(file);
    expect(out.stdout).toMatch(/^The change is invalid:/m);
    expect(out.stdout).toMatch(reason);
    expect(out.stdout).not.toMatch(/^live /m);
    expect(out.exitCode).toBe(1);
  });

  it('a maxmemory at the memory limit is invalid on the cluster (every pod OOM-killed before Valkey evicts)', () => {
    write('at-limit.yaml', { maxmemory: '2gb' });
    const out = plan('at-limit.yaml');
    expect(out.stdout).toMatch(/ValkeyCluster team-a\/cache: maxmemory 2gb .* is at or above the container's memory limit 2Gi/);
    expect(out.exitCode).toBe(1);
  });

  it('cluster-replica-no-failover yes with replicas: risky (a dead primary is never replaced), not live', () => {
    write('no-failover.yaml', { 'cluster-replica-no-failover': 'yes' });
    const out = plan('no-failover.yaml');
    expect(out.stdout).toMatch(
      /^ {4}risky: ValkeyCluster team-a\/cache: spec\.replicasPerShard: 1 replica\(s\) per shard with cluster-replica-no-failover yes \(ValkeyConfig standard\): a replica never takes over when its primary fails/m,
    );
    expect(out.exitCode).toBe(3);
  });

  it('cluster-require-full-coverage back to yes (the default) without replicas: risky (one pod away stops every shard)', () => {
    write('zero-partial.yaml', { 'cluster-require-full-coverage': 'no' }, '2Gi', 0);
    for (const [file, valkey] of [
      ['zero-full.yaml', {}],
      ['zero-full-explicit.yaml', { 'cluster-require-full-coverage': 'yes' }],
    ] as const) {
      write(file, valkey, '2Gi', 0);
      const out = runPlanCommand(['--base', 'zero-partial.yaml', '--fail-on', 'risky', file], { cwd: dir });
      expect(out.stdout).toMatch(
        /^ {4}risky: ValkeyCluster team-a\/cache: spec\.replicasPerShard: 0 replicas with cluster-require-full-coverage yes .*every node refuses every command \(CLUSTERDOWN\), so all 3 shards stop, not one/m,
      );
      expect(out.exitCode).toBe(3);
    }
    // Back the other way the warning goes, and with it the risk.
    const back = runPlanCommand(['--base', 'zero-full.yaml', '--fail-on', 'risky', 'zero-partial.yaml'], { cwd: dir });
    expect(back.stdout).not.toMatch(/cluster-require-full-coverage yes/);
    expect(back.exitCode).toBe(0);
  });

  it('a warning the base already had is not news: the cluster is live again', () => {
    write('base-warned.yaml', { 'min-replicas-to-write': '1' });
    write('still-warned.yaml', { 'min-replicas-to-write': '1', 'maxmemory-policy': 'allkeys-lru' });
    const out = runPlanCommand(['--base', 'base-warned.yaml', '--fail-on', 'risky', 'still-warned.yaml'], { cwd: dir });
    expect(out.stdout).toMatch(/^live \(1 cluster\):/m);
    expect(out.exitCode).toBe(0);
  });
});
