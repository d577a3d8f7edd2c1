import { splitValkeyArgs } from './contract/valkey-conf.js';
import type { SettingFacts } from './valkey-table-types.js';

/**
 * Whether Valkey 9.1.2 takes a setting's value at start-up, checked the way its config loader does
 * (config.c): the words of the line (arity: one value, or several for the multi-value settings), a
 * bool or enum word, an integer (`string2ll`: no sign but `-`, no leading zero, no unit), a memory
 * value (`memtoull`: digits and a unit b, k, kb, m, mb, g or gb), a percentage, each within the
 * bounds the server printed when the tables were generated (valkey-settings.ts), and the
 * settings with a parser of their own (save, client-output-buffer-limit, notify-keyspace-events,
 * oom-score-adj-values, latency-tracking-info-percentiles, proc-title-template), and the two values
 * Valkey reads and then exits on at start-up (a locale the image may lack, an RDMA port).
 * Pure, and built only from the facts it is handed: no table is scanned per value.
 * test/valkey/setting-values.integration.test.ts starts real 9.1.2 on every verdict.
 */

export interface ValueRefusal {
  /** What is wrong, in Valkey's terms where it has them. */
  why: string;
  /** The form the setting accepts, for the message. */
  accepted: string;
  /** The word refused, when one word of several is. */
  word?: string;
}

const LLONG_MIN = -(2n ** 63n);
const LLONG_MAX = 2n ** 63n - 1n;
const TWO_64 = 2n ** 64n;

/** `string2ll`: an optional `-`, then `0` alone or digits not starting with 0, fewer than 21 characters, within 64 bits. */
function string2ll(s: string): bigint | undefined {
  if (s.length === 0 || s.length >= 21 || !/^(0|-?[1-9][0-9]*)$/.test(s)) return undefined;
  const v = BigInt(s);
  return v < LLONG_MIN || v > LLONG_MAX ? undefined : v;
}

const UNITS: Record<string, bigint> = {
  '': 1n,
  b: 1n,
  k: 1000n,
  kb: 1024n,
  m: 1000n ** 2n,
  mb: 1024n ** 2n,
  g: 1000n ** 3n,
  gb: 1024n ** 3n,
};

/** `memtoull`: digits (none reads as 0) then a unit, case-insensitively; the product within 64 bits, unsigned. */
function memtoull(s: string): bigint | undefined {
  const m = /^([0-9]*)([a-zA-Z]*)$/.exec(s);
  const mul = m ? UNITS[(m[2] as string).toLowerCase()] : undefined;
  if (!m || mul === undefined || (m[1] as string).length >= 128) return undefined;
  const v = (m[1] as string) === '' ? 0n : BigInt(m[1] as string);
  // Digits past 2^64 - 1 are a range error, which 9.1.2 refuses; the product with the unit wraps
  // (17179869184gb is 0), as 9.1.2's does.
  if (v >= TWO_64) return undefined;
  return BigInt.asUintN(64, v * mul);
}

/** `strtoll` with the whole word used: leading C spaces, a sign, digits; saturating. An empty word is 0. */
function strtoll(s: string): bigint | undefined {
  if (s === '') return 0n;
  const m = /^[ \t\n\v\f\r]*([+-]?[0-9]+)$/.exec(s);
  if (!m) return undefined;
  const v = BigInt(m[1] as string);
  return v < LLONG_MIN ? LLONG_MIN : v > LLONG_MAX ? LLONG_MAX : v;
}

const MEMORY_FORM = 'a number of bytes, optionally with a unit b, k, kb, m, mb, g or gb (kb, mb and gb are powers of 1024), such as 512mb';

/** The bounds as Valkey compares them: a value above 2^63 - 1 is negative to a signed setting, not to an unsigned one (max above 2^63 - 1). */
function within(v: bigint, facts: SettingFacts): boolean {
  if (facts.min === undefined || facts.max === undefined) return true;
  const min = BigInt(facts.min);
  const max = BigInt(facts.max);
  let x = v > LLONG_MAX ? v - TWO_64 : v; // as the long long Valkey stores it
  if (max > LLONG_MAX && x < 0n) x += TWO_64;
  return x >= min && x <= max;
}

const range = (facts: SettingFacts): string =>
  facts.min === undefined || facts.max === undefined
    ? ''
    : BigInt(facts.max) >= LLONG_MAX
      ? ` of at least ${facts.min}`
      : ` from ${facts.min} to ${facts.max}`;

function numberRefusal(name: string, word: string, facts: SettingFacts): ValueRefusal | undefined {
  if (facts.type === 'integer') {
    // Valkey's images are built without RDMA: the server takes the port, then cannot listen on it.
    if (name === 'rdma-port' && word !== '0' && string2ll(word) !== undefined)
      return {
        why: 'Valkey is built without RDMA support, so it exits at start-up when asked to listen for RDMA',
        accepted: '0 (no RDMA)',
      };
    const accepted = `a whole number${range(facts)}, written plainly (no unit, no + sign, no leading zero)`;
    const v = string2ll(word);
    if (v === undefined) return { why: "it couldn't be parsed into an integer", accepted };
    return within(v, facts) ? undefined : { why: `it is out of range`, accepted };
  }
  const percent = facts.type === 'memory-or-percent';
  const accepted = `${MEMORY_FORM}${facts.min !== undefined && facts.min !== '0' ? ` (at least ${facts.min} bytes)` : ''}${percent ? `, or a percentage of maxmemory up to ${facts.maxPercent ?? 100}%, such as 10%` : ''}`;
  // A setting whose bounds go below 0 (-1: none) takes a plain negative integer too.
  const bytes = memtoull(word) ?? (facts.min?.startsWith('-') ? string2ll(word) : undefined);
  if (bytes !== undefined) return within(bytes, facts) ? undefined : { why: 'it is out of range', accepted };
  if (percent && word.endsWith('%')) {
    const p = string2ll(word.slice(0, -1));
    if (p !== undefined && p >= 0n)
      return p <= BigInt(facts.maxPercent ?? 100) ? undefined : { why: 'the percentage is too large', accepted };
  }
  return { why: percent ? 'it is not a memory or percent value' : 'it is not a memory value', accepted };
}

/** The settings Valkey reads several words for (MULTI_ARG_CONFIG); a single word is split again. */
const MULTI_VALUE = new Set(['save', 'client-output-buffer-limit', 'oom-score-adj-values', 'latency-tracking-info-percentiles', 'bind']);

const SAVE_FORM =
  'pairs of <seconds> <changes> (seconds at least 1, changes at least 0), such as "3600 1 300 100 60 10000", or "" for no snapshots';
const COBL_FORM =
  'groups of four: <class> <hard limit> <soft limit> <soft seconds>, class normal, replica or pubsub, the limits memory values (0: none), such as "pubsub 32mb 8mb 60"';
const OOM_FORM = 'three whole numbers from -2000 to 2000 (primary, replica, background child), such as "0 200 800"';
const PERCENTILES_FORM = 'numbers from 0 to 100, such as "50 99 99.9", or "" for none';

/** `string2d`: a decimal number strtod reads whole, no leading space; not NaN nor out of double range. */
const string2d = (s: string): number | undefined =>
  /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(s) && Number.isFinite(Number(s)) ? Number(s) : undefined;

const CLIENT_CLASSES = new Set(['normal', 'replica', 'slave', 'pubsub']);

/** The variables proc-title-template may name (server.c `expandProcTitleTemplate`). */
const TITLE_VARIABLES = new Set(['title', 'listen-addr', 'server-mode', 'port', 'tls-port', 'unixsocket', 'config-file']);

const EMPTY_AT_CHECK = new Set(['title', 'server-mode', 'unixsocket']);

/** The locales every image has; another name may not exist in the image, which then refuses to start. */
const PORTABLE_LOCALES = new Set(['', 'C', 'POSIX', 'C.UTF-8', 'C.utf8']);

function specialRefusal(name: string, words: string[], facts: SettingFacts): ValueRefusal | undefined {
  switch (name) {
    case 'save': {
      if (words.length === 1 && words[0] === '') return undefined;
      if (words.length % 2 === 1) return { why: 'it has an odd number of words (Invalid save parameters)', accepted: SAVE_FORM };
      for (const [i, w] of words.entries()) {
        const v = strtoll(w);
        if (v === undefined || v < (i % 2 === 0 ? 1n : 0n))
          return {
            why: `"${w}" is not ${i % 2 === 0 ? 'a number of seconds of at least 1' : 'a number of changes'} (Invalid save parameters)`,
            accepted: SAVE_FORM,
            word: w,
          };
      }
      return undefined;
    }
    case 'client-output-buffer-limit': {
      if (words.length % 4 !== 0) return { why: 'its words do not come in groups of four', accepted: COBL_FORM };
      for (let i = 0; i < words.length; i += 4) {
        const [cls, hard, soft, secs] = words.slice(i, i + 4) as [string, string, string, string];
        if (!CLIENT_CLASSES.has(cls.toLowerCase()))
          return { why: `"${cls}" is not a client class it limits`, accepted: COBL_FORM, word: cls };
        const s = strtoll(secs);
        // Valkey keeps the seconds in an int: what does not fit wraps.
        const asInt = s === undefined ? undefined : BigInt.asIntN(32, s);
        if (memtoull(hard) === undefined || memtoull(soft) === undefined || asInt === undefined || asInt < 0n)
          return { why: `the class ${cls} has a bad hard, soft or soft_seconds setting`, accepted: COBL_FORM };
      }
      return undefined;
    }
    case 'oom-score-adj-values': {
      if (words.length !== 3) return { why: `it has ${words.length} word(s), not 3`, accepted: OOM_FORM };
      for (const w of words) {
        const v = strtoll(w);
        if (v === undefined || v < -2000n || v > 2000n)
          return { why: `"${w}" is not a whole number from -2000 to 2000`, accepted: OOM_FORM, word: w };
      }
      return undefined;
    }
    case 'latency-tracking-info-percentiles': {
      if (words.length === 1 && words[0] === '') return undefined;
      for (const w of words) {
        const v = string2d(w);
        if (v === undefined || v < 0 || v > 100)
          return { why: `"${w}" is not a number from 0 to 100`, accepted: PERCENTILES_FORM, word: w };
      }
      return undefined;
    }
    case 'notify-keyspace-events': {
      const chars = facts.chars ?? '';
      const word = words[0] as string;
      const bad = [...word].find((c) => !chars.includes(c));
      return bad === undefined
        ? undefined
        : {
            why: `"${bad}" is not an event class`,
            accepted: `the event class characters ${chars} (K or E and then the classes, such as "Ex"), or "" for none`,
          };
    }
    case 'proc-title-template': {
      const accepted = `text with the variables {${[...TITLE_VARIABLES].join('}, {')}} (a literal { doubled: {{; quote a value with spaces), not empty once they are filled in`;
      const text = words[0] as string;
      let rest = '';
      for (let i = 0; i < text.length; i++) {
        const c = text[i] as string;
        if (c === '{' && text[i + 1] === '{') {
          rest += c;
          i++;
        } else if (c === '{') {
          const end = text.indexOf('}', i);
          const variable = end < 0 ? undefined : text.slice(i + 1, end);
          if (variable === undefined || !TITLE_VARIABLES.has(variable))
            return { why: `it names an unknown variable or leaves a brace open`, accepted };
          // Empty when Valkey checks the template: the title, the mode (cluster-enabled comes later in
          // the file) and the unix socket (valkey-krm sets none).
          if (!EMPTY_AT_CHECK.has(variable)) rest += 'x';
          i = end;
        } else rest += c;
      }
      return rest.trim() === '' ? { why: 'it is empty once {title}, {server-mode} and {unixsocket} are left out', accepted } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Why Valkey 9.1.2 would refuse `value` for the setting `name` (canonical) at start-up, or
 * undefined. A value whose quotes do not balance is the schema's finding (valkey-args.ts), and a
 * setting whose parser this does not model (a module's, a file path) passes.
 */
export function settingValueRefusal(name: string, value: string, facts: SettingFacts): ValueRefusal | undefined {
  // The line is `name value` (an empty value written as ""), split as Valkey splits it.
  const split = splitValkeyArgs(value === '' ? '""' : value);
  if (!split.ok) return undefined;
  let words = split.words;
  const multi = MULTI_VALUE.has(name) || facts.multi === true;
  if (multi && words.length === 1 && words[0] !== '') {
    const again = splitValkeyArgs(words[0] as string);
    if (!again.ok) return undefined;
    words = again.words;
  }
  if (!multi && words.length !== 1)
    return {
      why: `Valkey reads ${words.length} words where it takes one (wrong number of arguments)`,
      accepted: 'one value; quote a value with spaces in it',
    };
  const word = words[0] as string;
  switch (facts.type) {
    case 'integer':
    case 'memory':
    case 'memory-or-percent':
      return numberRefusal(name, word, facts);
    case 'bool':
    case 'enum': {
      const allowed = facts.values ?? [];
      const several = facts.multi ? 'one or more of' : 'one of';
      for (const w of words)
        if (!allowed.includes(w.toLowerCase()))
          return { why: `"${w}" is not one of its values`, accepted: `${several}: ${allowed.join(', ')}`, word: w };
      if (
        name.startsWith('shutdown-on-sig') &&
        words.some((w) => w.toLowerCase() === 'save') &&
        words.some((w) => w.toLowerCase() === 'nosave')
      )
        return { why: 'save and nosave cannot be used together', accepted: `${several}: ${allowed.join(', ')}, not both save and nosave` };
      return undefined;
    }
    default:
      if (name === 'locale-collate' && !PORTABLE_LOCALES.has(word))
        return {
          why: 'the locale may not exist in the image (Valkey reads the line, then exits at start-up: "Failed to configure LOCALE for invalid locale name")',
          accepted: `a locale every image has: ${[...PORTABLE_LOCALES].filter(Boolean).join(', ')}, or "" for the environment's`,
        };
      return specialRefusal(name, words, facts);
  }
}
