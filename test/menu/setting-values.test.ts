// Issue 32: setting values are checked the way Valkey 9.1.2's config loader reads them (type,
// range, units, arity, enum, multi-value), from the bounds the real server printed when the tables
// were generated; test/valkey/setting-values.integration.test.ts starts real 9.1.2 on every verdict.
import { describe, expect, it } from 'vitest';
import { renderAll } from '../../src/render/render-all.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { settingValueRefusal } from '../../src/api/setting-values.js';
import { lookupSetting } from '../../src/api/valkey-table.js';
import { cluster, config, image } from '../support/objects.js';

const render = validateRenderConfig({
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyRenderConfig',
  metadata: { name: 'render' },
  spec: { systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } } },
}).config!;

const errorsFor = (valkey: Record<string, string>) =>
  renderAll(
    [
      image('img'),
      config('tuned', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' }, valkey: { maxmemory: '1gb', ...valkey } }),
      cluster('c', { configRef: 'tuned', replicasPerShard: 1 }),
    ],
    render,
  )
    // The value checks' errors: a shape check's (maxmemory at the 2Gi limit) is on the cluster, not spec.valkey.
    .problems.filter((p) => p.severity === 'error' && p.object?.kind === 'ValkeyConfig')
    .map((p) => ({ field: p.field, message: p.message }));

const refusal = (name: string, value: string) => settingValueRefusal(name, value, lookupSetting(name)!.facts);

describe('a value Valkey 9.1.2 refuses at start-up is a render error naming the config, the field, the value and the accepted form', () => {
  it.each([
    [
      'hz',
      'abc',
      '"abc" is not a value Valkey 9.1.2 accepts for hz: it couldn\'t be parsed into an integer; it takes a whole number from 0 to 2147483647',
    ],
    [
      'io-threads',
      '9999',
      '"9999" is not a value Valkey 9.1.2 accepts for io-threads: it is out of range; it takes a whole number from 1 to 256',
    ],
    [
      'save',
      '60',
      '"60" is not a value Valkey 9.1.2 accepts for save: it has an odd number of words (Invalid save parameters); it takes pairs of <seconds> <changes>',
    ],
    ['maxmemory', '1tb', 'it is not a memory value; it takes a number of bytes, optionally with a unit b, k, kb, m, mb, g or gb'],
    ['maxmemory', '1 gb', 'Valkey reads 2 words where it takes one (wrong number of arguments)'],
    ['maxmemory-clients', '200%', 'the percentage is too large; it takes a number of bytes'],
    ['maxclients', '-1', 'it is out of range; it takes a whole number from 1 to 4294967295'],
    ['timeout', '01', "it couldn't be parsed into an integer"],
    [
      'repl-backlog-size',
      '0',
      'it is out of range; it takes a number of bytes, optionally with a unit b, k, kb, m, mb, g or gb (kb, mb and gb are powers of 1024), such as 512mb (at least 1 bytes)',
    ],
    ['client-output-buffer-limit', 'normal 0 0', 'its words do not come in groups of four'],
    ['client-output-buffer-limit', 'master 0 0 0', '"master" is not a client class it limits'],
    ['notify-keyspace-events', 'KZ', '"Z" is not an event class'],
    ['oom-score-adj-values', '0 200', 'it has 2 word(s), not 3'],
    ['latency-tracking-info-percentiles', '50 101', '"101" is not a number from 0 to 100'],
    ['proc-title-template', '"{title} {nope}"', 'it names an unknown variable'],
    ['shutdown-on-sigterm', 'save nosave', 'save and nosave cannot be used together'],
    ['appendonly', '"maybe"', '"maybe" is not one of its values'],
  ])('%s: %j', (key, value, words) => {
    const errors = errorsFor({ [key]: value });
    expect(errors).toEqual([{ field: `spec.valkey.${key}`, message: expect.stringContaining(words) }]);
    expect(errors[0]!.message).toMatch(/^ValkeyConfig tuned: spec\.valkey\./);
    expect(errors[0]!.message).toContain('every pod of every cluster on this config fails to start');
  });

  it.each([
    ['hz', '500'],
    ['hz', '0'],
    ['io-threads', '256'],
    ['save', '3600 1 300 100 60 10000'],
    ['save', ''],
    ['save', '"3600" 1'],
    ['maxmemory', '1GB'],
    ['maxmemory', '18446744073709551615'],
    ['maxmemory-clients', '100%'],
    ['maxmemory-clients', '0'],
    ['repl-backlog-size', '64mb'],
    ['client-output-buffer-limit', 'pubsub 32mb 8mb 60 replica 256mb 64mb 60'],
    ['notify-keyspace-events', 'Ex'],
    ['notify-keyspace-events', ''],
    ['oom-score-adj-values', '0 200 800'],
    ['latency-tracking-info-percentiles', '50 99 99.9'],
    ['proc-title-template', '"{title} {listen-addr} {server-mode}"'],
    ['proc-title-template', '{port}'],
    ['commandlog-execution-slower-than', '-1'],
    ['list-max-listpack-size', '-2'],
    ['maxmemory-policy', 'ALLKEYS-LRU'],
  ])('%s: %j renders green', (key, value) => {
    expect(errorsFor({ [key]: value })).toEqual([]);
  });

  it('a signed setting reads a memory value above 2^63 - 1 as negative; an unsigned one does not; digits past 2^64 - 1 are refused, a unit wraps', () => {
    expect(refusal('repl-backlog-size', '9223372036854775808')?.why).toBe('it is out of range');
    expect(refusal('maxmemory', '9223372036854775808')).toBeUndefined();
    expect(refusal('maxmemory', '18446744073709551616')?.why).toBe('it is not a memory value');
    // 9.1.2 multiplies without an overflow check: 2^34 gb is 2^64 bytes, read as 0.
    expect(refusal('maxmemory', '17179869184gb')).toBeUndefined();
    expect(refusal('repl-backlog-size', '17179869184gb')?.why).toBe('it is out of range');
    // Bounds below 0 (-1: none) take a plain negative integer too.
    expect(refusal('slot-migration-max-failover-repl-bytes', '-1')).toBeUndefined();
    expect(refusal('slot-migration-max-failover-repl-bytes', '-2')?.why).toBe('it is out of range');
    expect(refusal('maxmemory', '-1')?.why).toBe('it is not a memory value');
  });
});

describe('a setting that makes this cluster refuse work is checked against its shape (issue 32)', () => {
  const findings = (valkey: Record<string, string>, replicasPerShard: number) =>
    renderAll(
      [
        image('img'),
        config('tuned', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' }, valkey: { maxmemory: '1gb', ...valkey } }),
        cluster('c', { configRef: 'tuned', replicasPerShard }),
      ],
      render,
    ).problems.filter((p) => p.field === 'spec.replicasPerShard' && p.severity !== 'info');

  it('min-replicas-to-write above replicasPerShard: an error on the cluster (every write refused, NOREPLICAS), with the fix', () => {
    const found = findings({ 'min-replicas-to-write': '2' }, 1);
    expect(found.map((p) => p.severity)).toEqual(['error']);
    expect(found[0]!.message).toMatch(
      /^ValkeyCluster [^:]+\/c: spec\.replicasPerShard: 1 replica\(s\) per shard, but min-replicas-to-write 2 \(ValkeyConfig tuned\)/,
    );
    expect(found[0]!.message).toContain('NOREPLICAS');
    expect(findings({ 'MIN-SLAVES-TO-WRITE': '1' }, 0).map((p) => p.severity)).toContain('error');
  });

  it('equal to replicasPerShard: a warning (writes refused while a replica is down, as in every roll); below it, or max-lag 0: nothing', () => {
    expect(findings({ 'min-replicas-to-write': '1' }, 1).map((p) => p.severity)).toEqual(['warning']);
    expect(findings({ 'min-replicas-to-write': '1' }, 2)).toEqual([]);
    expect(findings({ 'min-replicas-to-write': '3', 'min-replicas-max-lag': '0' }, 1)).toEqual([]);
    expect(findings({ 'min-replicas-to-write': '0' }, 1)).toEqual([]);
  });
});
