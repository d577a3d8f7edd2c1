import type { NameFacts, SettingFacts } from './valkey-table-types.js';
import { compareVersions, parseVersion } from './version.js';
import { generatedValkeySettings, generatedValkeySettingAliases } from './valkey-settings.js';
import { generatedValkeyAclCategories, generatedValkeyCommands } from './valkey-commands.js';
import { COMMANDS_SINCE_9_1, FILE_ONLY_DIRECTIVES, SETTINGS_SINCE_9_1 } from './valkey-later-releases.js';

export type { NameFacts, SettingFacts, SettingType, ValkeySince } from './valkey-table-types.js';

/**
 * One view of the Valkey tables: generated from the real servers, plus the few facts no server
 * here can show (which 9.x names came with 9.1, the file-only directives), recorded by hand. Names are case-insensitive, as Valkey reads them; aliases lead to their setting.
 */
export interface KnownSetting {
  /** The canonical, lowercase name. */
  name: string;
  facts: SettingFacts;
}

interface Tables {
  settings: Map<string, SettingFacts>;
  aliases: Map<string, string>;
  settingNames: readonly string[];
  commands: Map<string, NameFacts>;
  parentsWithSubcommands: Set<string>;
  commandNames: readonly string[];
  categories: Map<string, NameFacts>;
  categoryNames: readonly string[];
}

let built: Tables | undefined;

/** Built on first use: a run that checks no setting or role pays nothing for the tables. */
function tables(): Tables {
  if (built) return built;
  const settings = new Map<string, SettingFacts>([...Object.entries(generatedValkeySettings()), ...Object.entries(FILE_ONLY_DIRECTIVES)]);
  for (const [name, dated] of Object.entries(SETTINGS_SINCE_9_1)) {
    const facts = settings.get(name);
    if (facts) settings.set(name, { ...facts, ...dated });
  }
  const aliases = new Map<string, string>(Object.entries(generatedValkeySettingAliases()));
  const commands = new Map<string, NameFacts>(Object.entries(generatedValkeyCommands()));
  for (const [name, dated] of Object.entries(COMMANDS_SINCE_9_1)) if (commands.has(name)) commands.set(name, dated);
  const parentsWithSubcommands = new Set<string>();
  for (const name of commands.keys()) if (name.includes('|')) parentsWithSubcommands.add(name.split('|')[0] as string);
  const categories = new Map<string, NameFacts>(Object.entries(generatedValkeyAclCategories()));
  built = {
    settings,
    aliases,
    settingNames: [...settings.keys(), ...aliases.keys()].sort(),
    commands,
    parentsWithSubcommands,
    commandNames: [...commands.keys()].sort(),
    categories,
    categoryNames: [...categories.keys()].sort(),
  };
  return built;
}

/** The lowercase name, with an alias replaced by the setting it names (`SLAVEOF` → `replicaof`). */
export function canonicalSettingName(name: string): string {
  const lower = name.toLowerCase();
  return tables().aliases.get(lower) ?? lower;
}

export function lookupSetting(name: string): KnownSetting | undefined {
  const canonical = canonicalSettingName(name);
  const facts = tables().settings.get(canonical);
  return facts ? { name: canonical, facts } : undefined;
}

/**
 * The release that added a name, when the tables know one after the 9.0.1 floor (`9.1.0`): a
 * server of an older version refuses it. Undefined for everything every supported version has.
 */
export function addedAfterFloor(facts: { since: string }): string | undefined {
  return facts.since === '9.1' ? '9.1.0' : undefined;
}

/** Whether a server of `version` lacks a name the tables date after the floor. */
export function isNewerThan(facts: { since: string }, version: string): boolean {
  const added = addedAfterFloor(facts);
  const running = parseVersion(version);
  const since = added === undefined ? undefined : parseVersion(added);
  return running !== undefined && since !== undefined && compareVersions(running, since) < 0;
}

/**
 * Whether `CONFIG SET` applies a setting to a running server of `version` (the version a
 * ValkeyImage declares; left out, the newest release the table knows): true, false when it needs
 * a restart, undefined when that version does not know the name (a module's, a newer release's,
 * or a 9.1 setting on a 9.0.x image: treat it as a restart). Render (the restart hash), plan and
 * controller all ask this one question. Protected settings count as restart-only: CONFIG SET
 * refuses them unless `enable-protected-configs` allows it; directives of the file only
 * (`include`, `loadmodule`) are read at start-up only; and a setting 9.1.2 ignores (`dynamic-hz`)
 * is one CONFIG SET refuses.
 */
export function isLiveSetting(name: string, version?: string): boolean | undefined {
  const facts = lookupSetting(name)?.facts;
  if (!facts) return undefined;
  if (version !== undefined && isNewerThan(facts, version)) return undefined;
  return facts.live && !facts.protected && !facts.fileOnly && !facts.ignoredBy;
}

/** Every name Valkey accepts as a directive, aliases included, sorted: for did-you-mean. */
export const knownSettingNames = (): readonly string[] => tables().settingNames;

/** A command or `parent|subcommand`, case-insensitively. */
export const lookupCommand = (name: string): NameFacts | undefined => tables().commands.get(name.toLowerCase());

/** Whether `parent|x` names a subcommand (so x must be one), or, for other commands, a first argument. */
export const hasSubcommands = (parent: string): boolean => tables().parentsWithSubcommands.has(parent.toLowerCase());

export const knownCommandNames = (): readonly string[] => tables().commandNames;

export const lookupAclCategory = (name: string): NameFacts | undefined => tables().categories.get(name.toLowerCase());

export const knownAclCategoryNames = (): readonly string[] => tables().categoryNames;
