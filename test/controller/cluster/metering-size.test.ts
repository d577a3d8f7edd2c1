// A year of a 1,000-cluster fleet is 12,000 records (one per cluster incarnation per month). etcd
// refuses an object over 1.5 MiB (--max-request-bytes) and its database's default quota is 2 GiB:
// the records must stay far below both, whatever a cluster does in its month.
import { describe, expect, it } from 'vitest';
import { API_VERSION, MEMORY_SOURCE, meteringRecordName, meteringRecordStatus, type ValkeyMeteringRecord } from '../../../src/api/index.js';
import { advanceMetering, type MeteringShape } from '../../../src/controller/cluster/metering.js';

const MONTH_START = Date.UTC(2026, 0, 1);
const MONTH_END = Date.UTC(2026, 1, 1);
const ETCD_OBJECT_LIMIT = 1.5 * 1024 * 1024;
const ETCD_DEFAULT_QUOTA = 2 * 1024 ** 3;
const policy = { gapMs: 180_000, checkpointMs: 60_000 };

const shape = (shards: number, source: MeteringShape['memory']['source'] = MEMORY_SOURCE.reserved): MeteringShape => ({
  shards,
  pods: shards * 3,
  memory: { source, podBytes: 12 * 2 ** 30, reason: 'resources.memory 12Gi (StatefulSet a-forty-character-cluster-name-xxxxxxxxx-0)' },
});

/** The record of one month as stored: the longest names there are, every sample through the module. */
function monthRecord(shapeAt: (ms: number) => MeteringShape, outageEvery?: number): ValkeyMeteringRecord {
  let open: { month: string; status: ValkeyMeteringRecord['status'] & object } | undefined;
  let n = 0;
  for (let t = MONTH_START; t < MONTH_END; t += 60_000) {
    n++;
    if (outageEvery && n % outageEvery < 10) continue; // ten minutes with no controller
    for (const w of advanceMetering(open, { nowMs: t, shape: shapeAt(t) }, policy)) open = { month: w.month, status: w.status };
  }
  if (open) open.status = meteringRecordStatus().parse(JSON.parse(JSON.stringify(open.status)));
  const ns = 'n'.repeat(63);
  const name = 'c'.repeat(40);
  const uid = '8f2c1a9e-0b1d-4c5e-9f00-1234567890ab';
  return {
    apiVersion: API_VERSION,
    kind: 'ValkeyMeteringRecord',
    metadata: {
      name: meteringRecordName(ns, name, uid, '2026-01'),
      namespace: 'valkey-system',
      uid,
      resourceVersion: '123456789',
      labels: { 'valkey.gomomento.com/cluster-namespace': ns, 'valkey.gomomento.com/cluster-name': name },
      finalizers: ['valkey.gomomento.com/metering-record'],
    },
    spec: { cluster: { namespace: ns, name, uid }, month: '2026-01' },
    ...(open ? { status: open.status } : {}),
  };
}

const bytes = (o: unknown) => Buffer.byteLength(JSON.stringify(o));

describe('metering records stay well inside etcd', () => {
  it('a steady month, a month of hourly autoscaling with outages, and the worst case: figures per record and for 12,000', () => {
    const steady = monthRecord(() => shape(3));
    const busy = monthRecord((t) => shape(3 + (Math.floor(t / 3_600_000) % 2)), 600);
    const worst = monthRecord(
      (t) => shape(1 + (Math.floor(t / 60_000) % 7), t % 120_000 ? MEMORY_SOURCE.reserved : MEMORY_SOURCE.maxmemory),
      60,
    );
    const sizes = { steady: bytes(steady), busy: bytes(busy), worst: bytes(worst) };
    const fleetYear = { typical: 12_000 * sizes.busy, worst: 12_000 * sizes.worst };
    process.stdout.write(
      `metering record bytes: steady ${sizes.steady}, hourly autoscaling with outages ${sizes.busy}, worst ${sizes.worst}; ` +
        `12,000 records: ${((12_000 * sizes.steady) / 2 ** 20).toFixed(1)} MiB steady, ${(fleetYear.typical / 2 ** 20).toFixed(1)} MiB busy, ${(fleetYear.worst / 2 ** 20).toFixed(1)} MiB worst\n`,
    );
    expect(worst.status?.folded?.segments).toBeGreaterThan(10_000);
    expect(worst.status?.gapsFolded).toBeGreaterThan(100);
    // Per object: under a fiftieth of etcd's limit, even in the worst case.
    expect(sizes.worst).toBeLessThan(ETCD_OBJECT_LIMIT / 50);
    // The fleet's year, every record the worst case: under 5% of etcd's default quota.
    expect(fleetYear.worst).toBeLessThan(ETCD_DEFAULT_QUOTA * 0.05);
  });
});
