// Asks one real Valkey binary for its settings, commands and ACL categories.
import { readFile } from 'node:fs/promises';
import { CommandError } from '../../src/controller/valkey/resp-connection.js';
import type { RespValue } from '../../src/controller/valkey/resp.js';
import type { SettingType } from '../../src/api/valkey-table-types.js';
import { probeConfigLine, startServer, type RunningServer } from './server.js';

export interface ObservedSetting {
  live: boolean;
  /** CONFIG SET refuses it unless the server runs with enable-protected-configs. */
  protected: boolean;
  /** Left out of `CONFIG GET *` (Valkey's test and debug settings). */
  hidden: boolean;
  type: SettingType;
  values?: string[];
  /** An enum that takes several of its values at once, such as `shutdown-on-sigint nosave now`. */
  multi?: boolean;
  /** A number's bounds, inclusive, as the start-up parser prints them (decimal text: some pass 2^53). */
  min?: string;
  max?: string;
  /** A memory-or-percent setting's largest percentage. */
  maxPercent?: number;
  /** notify-keyspace-events: the characters its value may be made of. */
  chars?: string;
}

export interface Snapshot {
  settings: Map<string, ObservedSetting>;
  /** alias → canonical name. */
  aliases: Map<string, string>;
  commands: Set<string>;
  categories: Set<string>;
}

const BOGUS = 'valkey-krm-bogus-value';

export async function collect(binary: string): Promise<Snapshot> {
  const server = await startServer(binary);
  try {
    const current = await configValues(server, binary);
    const aliases = await findAliases(server, current);
    const settings = new Map<string, ObservedSetting>();
    for (const [name, { value, hidden }] of current) {
      if (aliases.has(name)) continue;
      const set = await tryCall(server, ['CONFIG', 'SET', name, value]);
      const refusal = set instanceof Error ? set.message : '';
      // A server built without RDMA (as ours are) refuses every rdma-* setting at run time; what
      // an RDMA build would do is unknown here, so they count as restart-only.
      const notBuilt = refusal.includes('No RDMA building support');
      if (refusal && !notBuilt && !/can't set (immutable|protected) config/.test(refusal))
        throw new Error(`${binary}: CONFIG SET ${name} <current value>: ${refusal}`);
      const type = await settingType(binary, name);
      settings.set(name, {
        live: !refusal.includes('immutable') && !notBuilt,
        protected: refusal.includes('protected'),
        hidden,
        ...type,
        ...(await numberBounds(binary, name, type.type)),
        ...(name === 'notify-keyspace-events' ? { chars: await eventChars(server, value) } : {}),
      });
    }
    return { settings, aliases, commands: await commandNames(server), categories: await categoryNames(server) };
  } finally {
    await server.stop();
  }
}

async function tryCall(server: RunningServer, args: string[]): Promise<RespValue | Error> {
  try {
    return await server.connection.call(args);
  } catch (e) {
    if (e instanceof CommandError) return e;
    throw e;
  }
}

const pairs = (reply: RespValue): [string, string][] => {
  const flat = Array.isArray(reply) ? reply.map(String) : [];
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] as string, flat[i + 1] as string]);
  return out;
};

/**
 * `CONFIG GET *` leaves out the settings Valkey flags hidden; their names are string literals in
 * the binary, so every such literal is offered to `CONFIG GET`, which answers only for settings.
 */
async function configValues(server: RunningServer, binary: string): Promise<Map<string, { value: string; hidden: boolean }>> {
  const values = new Map<string, { value: string; hidden: boolean }>();
  for (const [name, value] of pairs(await server.connection.call(['CONFIG', 'GET', '*']))) values.set(name, { value, hidden: false });
  const literals = new Set((await readFile(binary)).toString('latin1').match(/(?<=\0)[a-z][a-z0-9_-]{2,60}(?=\0)/g) ?? []);
  for (const literal of [...literals].sort()) {
    if (values.has(literal)) continue;
    for (const [name, value] of pairs(await server.connection.call(['CONFIG', 'GET', literal]))) {
      if (name === literal) values.set(name, { value, hidden: true });
    }
  }
  return values;
}

/**
 * Legacy spellings lose to current ones when naming an alias group (lua-time-limit is
 * busy-reply-threshold's old name; 8.1 made the slowlog settings aliases of the commandlog ones).
 */
const legacyScore = (name: string) => (/slave|master|ziplist|_|^lua-time-limit$|^slowlog-/.test(name) ? 1 : 0);
const modernSpelling = (name: string) =>
  name
    .replace(/_/g, '-')
    .replace(/slave/g, 'replica')
    .replace(/master/g, 'primary')
    .replace(/ziplist/g, 'listpack');

/** A different value the setting probably accepts, to see which other names follow it. */
const otherValue = (v: string) =>
  v === 'yes' ? 'no' : v === 'no' ? 'yes' : /^-?\d+$/.test(v) ? String(Number(v) + 1) : 'valkey-krm-alias-probe';

/**
 * Two names are one setting when changing one changes the other: each setting that shares its
 * value with another is set to a different value (then back), and the names that followed it are
 * its aliases. An immutable setting cannot be changed at run time, so immutable names with the
 * same value count as aliases when they are the same after modernising (slaveof → replicaof, _ → -).
 */
async function findAliases(server: RunningServer, current: Map<string, { value: string }>): Promise<Map<string, string>> {
  const byValue = new Map<string, string[]>();
  for (const [name, { value }] of current) byValue.set(value, [...(byValue.get(value) ?? []), name]);
  const groupOf = new Map<string, Set<string>>();
  const join = (a: string, b: string) => {
    const group = new Set([...(groupOf.get(a) ?? [a]), ...(groupOf.get(b) ?? [b])]);
    for (const n of group) groupOf.set(n, group);
  };
  for (const [value, names] of byValue) {
    if (names.length < 2) continue;
    for (const a of names) {
      const probe = otherValue(value);
      const set = await tryCall(server, ['CONFIG', 'SET', a, probe]);
      if (set instanceof Error) {
        if (!/immutable/.test(set.message)) continue;
        for (const b of names) if (b !== a && modernSpelling(a) === modernSpelling(b)) join(a, b);
        continue;
      }
      const after = new Map(pairs(await server.connection.call(['CONFIG', 'GET', '*'])));
      const changed = after.get(a);
      for (const b of names) if (b !== a && changed !== undefined && changed !== value && after.get(b) === changed) join(a, b);
      await server.connection.call(['CONFIG', 'SET', a, value]);
    }
  }
  const aliases = new Map<string, string>();
  for (const group of new Set(groupOf.values())) {
    const ranked = [...group].sort((x, y) => legacyScore(x) - legacyScore(y) || (x < y ? -1 : 1));
    if (legacyScore(ranked[0] as string) === legacyScore(ranked[1] as string))
      throw new Error(`cannot tell the canonical name among ${ranked.join(', ')}`);
    for (const alias of ranked.slice(1)) aliases.set(alias, ranked[0] as string);
  }
  return aliases;
}

const ENUM_MESSAGE = /^argument\(s\) must be one of the following: (.*)$/;

/** What the start-up parser says about a value no setting accepts tells the setting's type. */
async function settingType(binary: string, name: string): Promise<Pick<ObservedSetting, 'type' | 'values' | 'multi'>> {
  const probe = await probeConfigLine(binary, name, BOGUS);
  if (probe.accepted) return { type: 'string' };
  const message = probe.message;
  if (message === "argument must be 'yes' or 'no'") return { type: 'bool', values: ['yes', 'no'] };
  if (message === "argument couldn't be parsed into an integer") return { type: 'integer' };
  if (message === 'argument must be a memory value') return { type: 'memory' };
  if (message === 'argument must be a memory or percent value') return { type: 'memory-or-percent' };
  const listed = ENUM_MESSAGE.exec(message);
  if (!listed) return { type: 'special' };
  const values = (listed[1] as string).split(', ');
  const two = await probeConfigLine(binary, name, `${values[0]} ${values[1]}`);
  return two.accepted ? { type: 'enum', values, multi: true } : { type: 'enum', values };
}

const BETWEEN = /^argument must be between (-?\d+) and (\d+) inclusive$/;
const PERCENT = /^percentage argument must be less or equal to (\d+)$/;
const LLONG_MAX = '9223372036854775807';
const LLONG_MIN = '-9223372036854775808';
const ULLONG_MAX = '18446744073709551615';

/**
 * A number setting's bounds, from what the start-up parser says of values at the ends of its
 * type: out of range, it prints both bounds ("argument must be between 1 and 256 inclusive");
 * accepted, the end itself is the bound. An integer is read as a signed 64-bit number; a memory
 * value as an unsigned one (which a signed setting reads as negative, so out of range).
 */
async function numberBounds(binary: string, name: string, type: SettingType): Promise<Pick<ObservedSetting, 'min' | 'max' | 'maxPercent'>> {
  if (type !== 'integer' && type !== 'memory' && type !== 'memory-or-percent') return {};
  const ask = async (
    value: string,
  ): Promise<{ accepted: true } | { min: string; max: string } | { maxPercent: number } | { unread: true }> => {
    const probe = await probeConfigLine(binary, name, value);
    if (probe.accepted) return { accepted: true };
    if (/^argument must be a memory( or percent)? value$/.test(probe.message)) return { unread: true };
    const between = BETWEEN.exec(probe.message);
    if (between) return { min: between[1] as string, max: between[2] as string };
    const percent = PERCENT.exec(probe.message);
    if (percent) return { maxPercent: Number(percent[1]) };
    throw new Error(`${binary}: ${name} ${value}: unexpected refusal: ${probe.message}`);
  };
  // A memory setting with a negative lower bound (-1: none) reads a plain integer too: the most
  // negative one shows its bounds; the others do not read it, so their top and bottom are asked.
  const order = type === 'integer' ? [LLONG_MAX, LLONG_MIN] : [LLONG_MIN, ULLONG_MAX, '0'];
  let bounds: { min: string; max: string } | undefined;
  const accepted: string[] = [];
  for (const value of order) {
    const said = await ask(value);
    if ('min' in said) {
      bounds = said;
      break;
    }
    if ('accepted' in said) accepted.push(value);
  }
  if (!bounds) {
    if (type === 'integer' && accepted.length === 2) bounds = { min: LLONG_MIN, max: LLONG_MAX };
    else if (type !== 'integer' && accepted.includes(ULLONG_MAX) && accepted.includes('0')) bounds = { min: '0', max: ULLONG_MAX };
    else throw new Error(`${binary}: ${name}: no bounds (accepted ${accepted.join(', ')})`);
  }
  if (type !== 'memory-or-percent') return bounds;
  const percent = await ask(`${LLONG_MAX}%`);
  if (!('maxPercent' in percent)) throw new Error(`${binary}: ${name}: no percentage bound`);
  return { ...bounds, maxPercent: percent.maxPercent };
}

/** The characters CONFIG SET notify-keyspace-events takes, each alone (then the value is put back). */
async function eventChars(server: RunningServer, current: string): Promise<string> {
  let chars = '';
  for (let c = 0x21; c < 0x7f; c++) {
    const char = String.fromCharCode(c);
    if (!((await tryCall(server, ['CONFIG', 'SET', 'notify-keyspace-events', char])) instanceof Error)) chars += char;
  }
  await server.connection.call(['CONFIG', 'SET', 'notify-keyspace-events', current]);
  return chars;
}

/** Every command and `parent|subcommand`, lowercase. */
async function commandNames(server: RunningServer): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = (entries: RespValue) => {
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      if (!Array.isArray(entry)) continue;
      names.add(String(entry[0]).toLowerCase());
      walk(entry[9] ?? null);
    }
  };
  walk(await server.connection.call(['COMMAND', 'INFO']));
  return names;
}

/** `ACL CAT`, plus `all`, which ACL rules accept although ACL CAT does not list it. */
async function categoryNames(server: RunningServer): Promise<Set<string>> {
  const reply = await server.connection.call(['ACL', 'CAT']);
  const names = new Set(Array.isArray(reply) ? reply.map(String) : []);
  const all = await tryCall(server, ['ACL', 'SETUSER', 'valkey-krm-probe', '+@all']);
  if (all instanceof Error) throw new Error(`ACL SETUSER +@all refused: ${all.message}`);
  await server.connection.call(['ACL', 'DELUSER', 'valkey-krm-probe']);
  names.add('all');
  return names;
}
