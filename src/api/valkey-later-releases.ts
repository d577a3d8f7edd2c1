import type { NameFacts, SettingFacts } from './valkey-table-types.js';

/*
 * Recorded by hand: what no server in ../shared/valkey/ can show. The tables themselves are
 * generated from the real 9.1.2 and 8.0.1 servers (valkey-settings.ts, valkey-commands.ts), which
 * date a name only as "8.0.1 has it" or "9.x" (9.1.2 has it, 8.0.1 lacks it). Which of those 9.x
 * names came only with 9.1.0 (so a 9.0.x image lacks them) is taken from Valkey's release notes,
 * each entry with its source; test/api/valkey-tables.integration.test.ts checks that each one is a
 * name 9.1.2 has and 8.0.1 lacks.
 */

const RN_91_RC1 = 'Valkey 9.1.0-rc1 release notes (valkey-io/valkey branch 9.1, 00-RELEASENOTES)';
const CONFIG_C = 'valkey src/config.c, loadServerConfigFromString: directives read from the file only, not settings CONFIG GET knows';

/** 9.x settings that Valkey 9.1.0 added: a 9.0.x server refuses them at start-up ("Bad directive"). */
export const SETTINGS_SINCE_9_1 = {
  'hash-seed': {
    since: '9.1',
    source: `${RN_91_RC1}: "Support cross node consistency for SCAN commands through configurable DB hash seed" (#2608)`,
  },
  'tls-auto-reload-interval': { since: '9.1', source: `${RN_91_RC1}: "Support automatic TLS reload" (#3020)` },
  'cluster-config-save-behavior': {
    since: '9.1',
    source: `${RN_91_RC1}: "Failing to save the cluster config file will no longer exit the process" (#1032)`,
  },
} as const satisfies Record<string, Pick<SettingFacts, 'since' | 'source'>>;

/** 9.x commands that Valkey 9.1.0 added. */
export const COMMANDS_SINCE_9_1 = {
  hgetdel: { since: '9.1', source: `${RN_91_RC1}: "Adds HGETDEL command" (#2851)` },
  clusterscan: { since: '9.1', source: `${RN_91_RC1}: "New CLUSTERSCAN command for cluster-wide key scanning across nodes" (#2934)` },
  msetex: { since: '9.1', source: `${RN_91_RC1}: "New MSETEX command to set multiple keys with a shared expiration" (#3121)` },
} as const satisfies Record<string, NameFacts>;

/** Directives Valkey reads from a config file that are not settings (so CONFIG GET * cannot list them). */
export const FILE_ONLY_DIRECTIVES = {
  include: { live: false, fileOnly: true, type: 'string', since: '<=8.0.1', source: CONFIG_C },
  loadmodule: { live: false, fileOnly: true, type: 'string', since: '<=8.0.1', source: CONFIG_C },
  'rename-command': { live: false, fileOnly: true, type: 'special', since: '<=8.0.1', source: CONFIG_C },
  user: { live: false, fileOnly: true, type: 'special', since: '<=8.0.1', source: CONFIG_C },
} as const satisfies Record<string, SettingFacts>;
