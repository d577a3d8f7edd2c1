// Values to try for every setting a ValkeyConfig may set, made from the Valkey tables (issue 32):
// each bound and the number past it, units, signs, leading zeros, arity, case, every enum value,
// and the forms of the settings with a parser of their own. The cases do not say which are good:
// the render decides, and a real Valkey 9.1.2 must agree (test/valkey/setting-values.test.ts).
import { isManagedSettingName } from '../../src/api/managed-settings.js';
import { knownSettingNames, lookupSetting, type KnownSetting } from '../../src/api/valkey-table.js';

export interface SettingValueCase {
  name: string;
  value: string;
}

const LLONG_MIN = -(2n ** 63n);
const LLONG_MAX = 2n ** 63n - 1n;

/** The settings a config may set and valkey-krm passes to Valkey: every canonical name but the managed, refused and retired ones. */
export function settableSettings(): KnownSetting[] {
  const seen = new Map<string, KnownSetting>();
  for (const name of knownSettingNames()) {
    const known = lookupSetting(name);
    if (!known || seen.has(known.name)) continue;
    const f = known.facts;
    if (isManagedSettingName(known.name) || f.removedAfter || f.ignoredBy || f.fileOnly) continue;
    // Refused for the product's reasons, whatever the value (check-settings.ts).
    if (known.name === 'cluster-databases') continue;
    seen.set(known.name, known);
  }
  return [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

const SPECIAL: Record<string, string[]> = {
  save: ['', '3600 1', '3600 1 300 100 60 10000', '60', '0 1', '60 -1', '"60" 1', '60 1 x 2', '1e3 1'],
  'client-output-buffer-limit': [
    'normal 0 0 0',
    'pubsub 32mb 8mb 60',
    'replica 256mb 64mb 60 pubsub 32mb 8mb 60',
    'slave 1gb 1gb 0',
    'normal 0 0',
    'master 0 0 0',
    'pubsub 32tb 8mb 60',
    'pubsub 32mb 8mb -1',
    'PUBSUB 1MB 1Mb 1',
  ],
  'notify-keyspace-events': ['', 'Ex', 'KEA', 'Kg$lshzxetmdn', 'KZ', 'E x', '"E x"'],
  'oom-score-adj-values': ['0 200 800', '-2000 0 2000', '0 200', '0 200 2001', '0 x 800', '0 200 800 1'],
  'latency-tracking-info-percentiles': ['', '50 99 99.9', '0 100', '101', '-1', 'x', '1e1'],
  'proc-title-template': [
    '"{title} {listen-addr} {server-mode}"',
    '{port}',
    '"{title}"',
    '"{title} {nope}"',
    '"x {"',
    'a}',
    '"{{x"',
    '{title} {port}',
  ],
  'locale-collate': ['C', 'POSIX', '""', 'xx_YY.UTF-8'],
};

function numberValues(k: KnownSetting): string[] {
  const f = k.facts;
  const min = BigInt(f.min ?? '0');
  const max = BigInt(f.max ?? '0');
  const out = new Set<string>([String(min), String(max), 'abc', '+1', '01', '', '1 2', '"7"']);
  if (min > LLONG_MIN) out.add(String(min - 1n));
  if (max < LLONG_MAX) out.add(String(max + 1n));
  if (f.type !== 'integer') {
    for (const v of ['1mb', '2GB', '3g', '512Kb', '1tb', '-1', '1.5mb', '1 mb', 'mb', '0010mb', '18446744073709551616', '17179869184gb'])
      out.add(v);
    if (f.type === 'memory-or-percent') for (const v of ['10%', '100%', '101%', '-5%', '%', '01%']) out.add(v);
  } else out.add('1k');
  return [...out];
}

export function settingValueCases(): SettingValueCase[] {
  const cases: SettingValueCase[] = [];
  for (const k of settableSettings()) {
    const f = k.facts;
    let values: string[];
    if (SPECIAL[k.name]) values = SPECIAL[k.name] as string[];
    else if (f.type === 'integer' || f.type === 'memory' || f.type === 'memory-or-percent') values = numberValues(k);
    else if (f.type === 'bool' || f.type === 'enum') {
      const all = f.values ?? [];
      values = [...all, (all[0] as string).toUpperCase(), `"${all[0]}"`, 'bogus', '', `${all[0]} ${all[1] ?? all[0]}`];
    } else values = ['x']; // a string Valkey takes as it is (a name, a list it parses later)
    for (const value of values) cases.push({ name: k.name, value });
  }
  return cases;
}
