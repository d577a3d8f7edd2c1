// deploy/metering/metering-csv.mjs, the export script docs/metering.md gives: GB-hours per
// namespace per month from `kubectl get valkeymeteringrecords -o json`, summed exactly.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/paths.js';

const SCRIPT = join(REPO_ROOT, 'deploy/metering/metering-csv.mjs');
const record = (ns: string, uid: string, month: string, byteSeconds: string, closed = true) => ({
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyMeteringRecord',
  metadata: { name: `${ns}.c.${uid}.${month}`, namespace: 'valkey-system' },
  spec: { cluster: { namespace: ns, name: 'c', uid }, month },
  status: { byteSeconds, closed },
});
const csv = (input: unknown) => execFileSync(process.execPath, [SCRIPT], { input: JSON.stringify(input), encoding: 'utf8' });

describe('metering-csv.mjs', () => {
  it('sums each namespace per month exactly (figures past 2^53), counts clusters, marks a month still open', () => {
    const big = (2n ** 60n).toString(); // far past a double's exact integers
    const items = [
      record('team-b', 'u1', '2026-12', '3600000000000'),
      record('team-a', 'u2', '2026-12', big),
      record('team-a', 'u3', '2026-12', '1'),
      record('team-a', 'u2', '2027-01', '1800000000000', false),
    ];
    expect(csv({ apiVersion: 'v1', kind: 'List', items })).toBe(
      [
        'month,namespace,gb_hours,byte_seconds,clusters,state',
        '2026-12,team-a,320255.973,1152921504606846977,2,closed',
        '2026-12,team-b,1.000,3600000000000,1,closed',
        '2027-01,team-a,0.500,1800000000000,1,open',
        '',
      ].join('\n'),
    );
  });

  it('an empty list prints the header only', () => {
    expect(csv({ apiVersion: 'v1', kind: 'List', items: [] })).toBe('month,namespace,gb_hours,byte_seconds,clusters,state\n');
  });
});
