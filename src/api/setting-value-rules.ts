import type { CelRule } from './common.js';
import type { SettingFacts } from './valkey-table-types.js';
import { knownSettingNames, lookupSetting } from './valkey-table.js';

/**
 * The admission twin of the function's value check (setting-values.ts): one CEL rule per setting
 * whose accepted form a rule can state, for its lowercase name and each lowercase alias, from the
 * same tables. A rule refuses only what Valkey 9.1.2 refuses too; where the exact answer needs
 * more than a rule can afford (a 19-digit integer near 2^63, a memory value past 9 digits whose
 * product may wrap, a setting with its own parser not modelled here) it lets the value through and
 * the function decides. Like the function, a value with a quote in it is left to the function
 * (Valkey unquotes it first), and a key in another case is checked by the function only (a rule
 * per setting cannot afford to scan every key).
 *
 * Cost: every rule first asks `'name' in self` (constant) and then reads one value of at most 4,096
 * characters with a few regular expressions; test/apiserver/setting-values-admission.test.ts
 * installs the CRD on a real API server, which checks the estimated cost, and sends it every
 * value of test/support/setting-value-cases.ts.
 */
export function settingValueRules(): CelRule[] {
  const spellings = new Map<string, string[]>();
  for (const name of knownSettingNames()) {
    const known = lookupSetting(name);
    if (!known || known.facts.fileOnly || known.facts.removedAfter || known.facts.ignoredBy) continue;
    spellings.set(known.name, [...(spellings.get(known.name) ?? []), name]);
  }
  const rules: CelRule[] = [];
  for (const [canonical, names] of [...spellings].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const facts = lookupSetting(canonical)?.facts as SettingFacts;
    for (const name of [...new Set(names)].sort()) {
      const v = `self[${cel(name)}]`;
      const check = valueCheck(canonical, facts, v);
      if (!check) continue;
      rules.push({
        rule: `!(${cel(name)} in self) || ${v}.matches('[\\'"]') || ${check.expression}`,
        message: `${name} takes ${check.accepted}`,
        messageExpression: `${cel(`${name}: "`)} + ${v} + ${cel(`" is not a value Valkey takes; it takes ${check.accepted}`)}`,
      });
    }
  }
  return rules;
}

/** A CEL string literal. */
const cel = (s: string): string => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** `v` matches the whole regular expression `re` (RE2), spaces around it allowed (Valkey splits the line on them). */
const whole = (v: string, re: string): string => `${v}.matches(${cel(`^\\s*(${re})\\s*$`)})`;

const LLONG_MAX = 2n ** 63n - 1n;
const EIGHTEEN_DIGITS = 10n ** 18n;

/** An integer `string2ll` reads, up to 18 digits: no + sign, no leading zero (fits a CEL int). */
const SMALL_INT = '0|-?[1-9][0-9]{0,17}';

/** Memory units `memtoull` reads, in lowercase, with their factors. */
const UNIT_FACTORS: readonly [string, number][] = [
  ['gb', 1024 ** 3],
  ['mb', 1024 ** 2],
  ['kb', 1024],
  ['g', 1000 ** 3],
  ['m', 1000 ** 2],
  ['k', 1000],
  ['b', 1],
];
const MEMORY_WORD = '[0-9]*([bkmg]|[kmg]b)?';
/** One word of several: not empty (an empty match would let a missing word through). */
const MEMORY_WORD_SOME = '([0-9]+([bkmg]|[kmg]b)?|[bkmg]|[kmg]b)';
const MEMORY_FORM = 'a number of bytes with an optional unit b, k, kb, m, mb, g or gb';

function valueCheck(name: string, facts: SettingFacts, v: string): { expression: string; accepted: string } | undefined {
  const t = `${v}.trim()`;
  switch (facts.type) {
    case 'bool':
    case 'enum': {
      const values = facts.values ?? [];
      const one = `(${values.join('|')})`;
      const several = facts.multi ? 'one or more of' : 'one of';
      return {
        expression: `${v}.lowerAscii().matches(${cel(facts.multi ? `^\\s*${one}(\\s+${one})*\\s*$` : `^\\s*${one}\\s*$`)})`,
        accepted: `${several}: ${values.join(', ')}`,
      };
    }
    case 'integer': {
      if (facts.min === undefined || facts.max === undefined) return undefined;
      const [min, max] = [BigInt(facts.min), BigInt(facts.max)];
      // A bound at the end of the 64-bit range holds for every value that fits a CEL int.
      const bounds = [...(min > -LLONG_MAX - 1n ? [`int(${t}) >= ${min}`] : []), ...(max < LLONG_MAX ? [`int(${t}) <= ${max}`] : [])];
      // A 19-digit value may still be within 64 bits: the function reads it exactly.
      const long = [
        ...(max >= EIGHTEEN_DIGITS ? [whole(v, '[1-9][0-9]{18}')] : []),
        ...(min <= -EIGHTEEN_DIGITS ? [whole(v, '-[1-9][0-9]{18}')] : []),
      ];
      const range = max >= LLONG_MAX ? `of at least ${min}` : `from ${min} to ${max}`;
      return {
        expression: `(${[whole(v, SMALL_INT), ...bounds].join(' && ')})${long.map((l) => ` || ${l}`).join('')}`,
        accepted: `a whole number ${range}, written plainly (no unit, no + sign, no leading zero)`,
      };
    }
    case 'memory':
    case 'memory-or-percent': {
      const min = BigInt(facts.min ?? '0');
      const lower = `${t}.lowerAscii()`;
      // Up to 9 digits the product with any unit fits 2^63 (and cannot wrap), so the lower bound is exact.
      let form = whole(`${v}.lowerAscii()`, MEMORY_WORD);
      if (min > 0n) {
        const digits = `${lower}.find('^[0-9]*')`;
        const factor = UNIT_FACTORS.reduceRight((rest, [unit, f]) => `${lower}.endsWith('${unit}') ? ${f} : ${rest}`, '1');
        form = `(${form} && (size(${digits}) > 9 || (${digits} == '' ? 0 : int(${digits})) * (${factor}) >= ${min}))`;
      }
      const alternatives = [form];
      if (min < 0n) alternatives.push(`(${whole(v, SMALL_INT)} && int(${t}) >= ${min})`);
      let accepted = `${MEMORY_FORM}${min > 0n ? `, at least ${min} bytes` : ''}`;
      if (facts.type === 'memory-or-percent') {
        const most = facts.maxPercent ?? 100;
        alternatives.push(`(${whole(v, '(0|[1-9][0-9]{0,17})%')} && int(${t}.substring(0, size(${t}) - 1)) <= ${most})`);
        accepted += `, or a percentage up to ${most}%`;
      }
      return { expression: alternatives.join(' || '), accepted };
    }
    case 'special':
      return specialCheck(name, facts, v);
    default:
      return undefined;
  }
}

/** strtoll words as `save` and `client-output-buffer-limit` read them: at least 1, at least 0. */
const AT_LEAST_ONE = '\\+?0*[1-9][0-9]*';
const AT_LEAST_ZERO = '\\+?[0-9]+|-0+';

function specialCheck(name: string, facts: SettingFacts, v: string): { expression: string; accepted: string } | undefined {
  switch (name) {
    case 'save': {
      const pair = `(${AT_LEAST_ONE})\\s+(${AT_LEAST_ZERO})`;
      return {
        expression: `${v}.matches('^\\\\s*$') || ${whole(v, `${pair}(\\s+${pair})*`)}`,
        accepted: 'pairs of <seconds> <changes> (seconds at least 1), such as "3600 1 300 100", or "" for no snapshots',
      };
    }
    case 'client-output-buffer-limit': {
      const group = `(normal|replica|slave|pubsub)\\s+${MEMORY_WORD_SOME}\\s+${MEMORY_WORD_SOME}\\s+(${AT_LEAST_ZERO})`;
      return {
        expression: whole(`${v}.lowerAscii()`, `${group}(\\s+${group})*`),
        accepted:
          'groups of <class> <hard limit> <soft limit> <soft seconds>, class normal, replica or pubsub, such as "pubsub 32mb 8mb 60"',
      };
    }
    case 'oom-score-adj-values': {
      const adj = '[+-]?0*([0-9]{1,3}|1[0-9]{3}|2000)';
      return {
        expression: whole(v, `${adj}\\s+${adj}\\s+${adj}`),
        accepted: 'three whole numbers from -2000 to 2000, such as "0 200 800"',
      };
    }
    case 'notify-keyspace-events': {
      // Case matters: K and k are different classes.
      const chars = [...(facts.chars ?? '')].map((c) => (/[\\\]^-]/.test(c) ? `\\${c}` : c)).join('');
      return {
        expression: whole(v, `[${chars}]*`),
        accepted: `the event class characters ${facts.chars ?? ''}, or "" for none`,
      };
    }
    default:
      return undefined;
  }
}
