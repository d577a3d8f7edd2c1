import type { NameFacts, SettingFacts } from './valkey-table-types.js';

/*
 * Recorded by hand: what Valkey releases after the servers in ../shared/valkey/ (8.0.1 and the
 * 2024-10 development build) added or changed, from Valkey's own documentation and release notes.
 * Everything else in the tables is generated from the real servers (valkey-settings.ts,
 * valkey-commands.ts). Each entry names its source; when a 9.x binary is available here, generate
 * from it instead and drop what it covers.
 */

const RN_81_RC1 = 'Valkey 8.1.0-rc1 release notes (COMMANDLOG, #1294); names as in valkey src/commandlog.c and tests/unit/commandlog.tcl';
const RN_81_RC2 = 'Valkey 8.1.0-rc2 release notes ("Add cluster-manual-failover-timeout configuration")';
const ASM_TOPIC = 'valkey-doc topics/atomic-slot-migration.md (Valkey 9.0, "Configuring Atomic Slot Migration" and the commands it names)';
const RN_90_RC1 = 'Valkey 9.0.0-rc1 release notes';
const CONFIG_C = 'valkey src/config.c, loadServerConfigFromString: directives read from the file only, not settings CONFIG GET knows';

/** Settings added after the development build. */
export const LATER_SETTINGS = {
  'commandlog-execution-slower-than': { live: true, type: 'integer', since: '8.1', source: RN_81_RC1 },
  'commandlog-slow-execution-max-len': { live: true, type: 'integer', since: '8.1', source: RN_81_RC1 },
  'commandlog-request-larger-than': { live: true, type: 'integer', since: '8.1', source: RN_81_RC1 },
  'commandlog-large-request-max-len': { live: true, type: 'integer', since: '8.1', source: RN_81_RC1 },
  'commandlog-reply-larger-than': { live: true, type: 'integer', since: '8.1', source: RN_81_RC1 },
  'commandlog-large-reply-max-len': { live: true, type: 'integer', since: '8.1', source: RN_81_RC1 },
  'cluster-manual-failover-timeout': { live: true, type: 'integer', since: '8.1', source: RN_81_RC2 },
  'slot-migration-max-failover-repl-bytes': { live: true, type: 'memory', since: '9.0', source: ASM_TOPIC },
  'cluster-slot-migration-log-max-len': { live: true, type: 'integer', since: '9.0', source: ASM_TOPIC },
} as const satisfies Record<string, SettingFacts>;

/** Directives Valkey reads from a config file that are not settings (so CONFIG GET * cannot list them). */
export const FILE_ONLY_DIRECTIVES = {
  include: { live: false, fileOnly: true, type: 'string', since: '<=8.0.1', source: CONFIG_C },
  loadmodule: { live: false, fileOnly: true, type: 'string', since: '<=8.0.1', source: CONFIG_C },
  'rename-command': { live: false, fileOnly: true, type: 'special', since: '<=8.0.1', source: CONFIG_C },
  user: { live: false, fileOnly: true, type: 'special', since: '<=8.0.1', source: CONFIG_C },
} as const satisfies Record<string, SettingFacts>;

/** What later releases changed about settings the servers here have. */
export const LATER_SETTING_CHANGES = {
  'io-threads': { live: true, liveSince: '9.0', source: `${RN_90_RC1} ("Allow dynamic modification of io-threads num", #2033)` },
} as const satisfies Record<string, Partial<SettingFacts>>;

/** Commands and subcommands added after the development build, lowercase like COMMAND INFO's names. */
export const LATER_COMMANDS = {
  commandlog: { since: '8.1', source: RN_81_RC1 },
  'commandlog|get': { since: '8.1', source: RN_81_RC1 },
  'commandlog|help': { since: '8.1', source: RN_81_RC1 },
  'commandlog|len': { since: '8.1', source: RN_81_RC1 },
  'commandlog|reset': { since: '8.1', source: RN_81_RC1 },
  'cluster|cancelslotmigrations': { since: '9.0', source: ASM_TOPIC },
  'cluster|getslotmigrations': { since: '9.0', source: ASM_TOPIC },
  'cluster|migrateslots': { since: '9.0', source: ASM_TOPIC },
  'cluster|syncslots': {
    since: '9.0',
    source: 'valkey-doc commands/cluster-syncslots.md (internal command of atomic slot migration, 9.0)',
  },
  delifeq: { since: '9.0', source: `${RN_90_RC1} ("Add DELIFEQ command", #1975)` },
  hexpire: { since: '9.0', source: `${RN_90_RC1} ("Introduce HASH items expiration", #2089)` },
  hexpireat: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
  hexpiretime: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
  hgetex: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
  hpersist: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
  hpexpire: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
  hpexpireat: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
  hpexpiretime: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
  hpttl: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
  hsetex: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
  httl: { since: '9.0', source: `${RN_90_RC1} (#2089)` },
} as const satisfies Record<string, NameFacts>;

/** ACL categories added after the development build: none through 9.0. */
export const LATER_ACL_CATEGORIES: Readonly<Record<string, NameFacts>> = {};
