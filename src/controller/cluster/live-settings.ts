import { memoryWordInBytes } from '../../api/contract/valkey-memory.js';
import { isManagedSettingName } from '../../api/index.js';
import { canonicalSettingName, lookupSetting, type SettingFacts } from '../../api/valkey-table.js';
import type { DirectivesByName } from '../../api/contract/valkey-conf.js';

/**
 * Live settings: what the rendered valkey.conf asks for, compared with what a node runs
 * (`CONFIG GET`), so `CONFIG SET` is sent only for what differs. Pure; valkey/ does the I/O.
 */

/** A live setting the file declares: its canonical name and the value `CONFIG SET` takes. */
export interface DesiredSetting {
  name: string;
  value: string;
  facts: SettingFacts;
}

/**
 * The live settings of a rendered valkey.conf. Never applied live: a setting valkey-krm manages
 * (api/managed-settings.ts), and `overridden`, the settings the container's arguments set
 * (`--masterauth`, `--cluster-announce-ip`): the file's value is not what runs.
 */
export function desiredLiveSettings(conf: DirectivesByName, overridden: ReadonlySet<string> = new Set()): DesiredSetting[] {
  const out: DesiredSetting[] = [];
  for (const [raw, lines] of conf) {
    const known = lookupSetting(raw);
    if (!known?.facts.live || known.facts.fileOnly || known.facts.protected || known.facts.hidden) continue;
    if (isManagedSettingName(known.name) || [...overridden].some((o) => canonicalSettingName(o) === known.name)) continue;
    out.push({ name: known.name, value: lines.map((args) => args.join(' ')).join(' '), facts: known.facts });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * A value as Valkey reports it back, so the file's spelling and `CONFIG GET`'s compare equal:
 * memory units in bytes, case folded where Valkey folds it, several enum values as a set.
 */
export function normalizeSettingValue(facts: SettingFacts, value: string): string {
  const tokens = value
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '');
  switch (facts.type) {
    case 'bool':
    case 'enum':
      return facts.multi
        ? tokens
            .map((t) => t.toLowerCase())
            .sort()
            .join(' ')
        : tokens.join(' ').toLowerCase();
    case 'memory':
    case 'memory-or-percent':
    case 'special':
      return tokens.map((t) => memoryWordInBytes(t.toLowerCase())).join(' ');
    case 'integer':
      return tokens.join(' ');
    case 'string':
      return value;
  }
}

export interface ConfigSetChange {
  name: string;
  value: string;
  running: string;
}

/** What to `CONFIG SET` on one node: the desired settings whose running value differs. */
export function planLiveSettings(desired: readonly DesiredSetting[], running: ReadonlyMap<string, string>): ConfigSetChange[] {
  const changes: ConfigSetChange[] = [];
  for (const d of desired) {
    const now = running.get(d.name);
    // A name this server does not know (a newer release's): nothing to set live.
    if (now === undefined) continue;
    if (normalizeSettingValue(d.facts, now) !== normalizeSettingValue(d.facts, d.value))
      changes.push({ name: d.name, value: d.value, running: now });
  }
  return changes;
}
