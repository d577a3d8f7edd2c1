#!/usr/bin/env node
// GB-hours per namespace per month, as CSV, from the records `kubectl get -o json` prints:
//
//   kubectl get valkeymeteringrecords -n valkey-system -o json | node metering-csv.mjs > usage.csv
//
// Sums the exact byte-seconds of every record (BigInt: no rounding until the GB-hours column,
// 10^9 bytes × 3600 s, three decimals). A month whose records are not all closed yet is marked
// `open`: its figure still grows. No dependencies; Node 18 or later.
import { readFileSync } from 'node:fs';

const list = JSON.parse(readFileSync(0, 'utf8'));
const items = list.kind === 'ValkeyMeteringRecord' ? [list] : (list.items ?? []);
const rows = new Map();
for (const r of items) {
  if (r.kind !== 'ValkeyMeteringRecord' || !r.status) continue;
  const key = `${r.spec.month}\u0000${r.spec.cluster.namespace}`;
  const row = rows.get(key) ?? {
    month: r.spec.month,
    namespace: r.spec.cluster.namespace,
    byteSeconds: 0n,
    clusters: new Set(),
    open: false,
  };
  row.byteSeconds += BigInt(r.status.byteSeconds);
  row.clusters.add(r.spec.cluster.uid);
  row.open ||= !r.status.closed;
  rows.set(key, row);
}
const gbHours = (bs) => {
  const milli = (bs * 1000n) / 3_600_000_000_000n;
  return `${milli / 1000n}.${(milli % 1000n).toString().padStart(3, '0')}`;
};
const csv = (s) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
const out = ['month,namespace,gb_hours,byte_seconds,clusters,state'];
for (const row of [...rows.values()].sort((a, b) => (a.month + a.namespace < b.month + b.namespace ? -1 : 1)))
  out.push(
    [row.month, csv(row.namespace), gbHours(row.byteSeconds), row.byteSeconds, row.clusters.size, row.open ? 'open' : 'closed'].join(','),
  );
process.stdout.write(`${out.join('\n')}\n`);
