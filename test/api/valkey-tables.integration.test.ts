import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT as ROOT } from '../support/paths.js';
import {
  canonicalSettingName,
  hasSubcommands,
  isLiveSetting,
  knownSettingNames,
  lookupAclCategory,
  lookupCommand,
  lookupSetting,
} from '../../src/api/valkey-table.js';
import { generatedValkeySettings } from '../../src/api/valkey-settings.js';
import { generatedValkeyCommands } from '../../src/api/valkey-commands.js';
import { COMMANDS_SINCE_9_1, SETTINGS_SINCE_9_1 } from '../../src/api/valkey-later-releases.js';
import { run } from '../support/exec.js';

// 9.1.2 speaks for what the supported Valkey has; 8.0.1 dates each name ("9.x": 8.0.1 lacks it).
const SERVERS = ['9.1.2', '8.0.1'].map((v) => join(ROOT, '..', 'shared', 'valkey', v, 'valkey-server'));

describe('the Valkey tables', () => {
  // The tables are what the real servers say: regenerate from them and compare, so they cannot drift.
  it.runIf(SERVERS.every((s) => existsSync(s)))(
    'are what the real servers in ../shared/valkey/ say (gen-valkey-tables --check)',
    async () => {
      const out = await run(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/gen-valkey-tables.ts', '--check'], {
        cwd: ROOT,
        timeoutMs: 120_000,
      });
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
    },
    130_000,
  );

  it('look names up case-insensitively and lead aliases to their setting', () => {
    expect(lookupSetting('MAXMEMORY')).toMatchObject({ name: 'maxmemory', facts: { live: true, type: 'memory' } });
    expect(lookupSetting('SlaveOf')).toMatchObject({ name: 'replicaof', facts: { live: false } });
    expect(canonicalSettingName('masterauth')).toBe('primaryauth');
    expect(canonicalSettingName('Hash-Max-Ziplist-Entries')).toBe('hash-max-listpack-entries');
    expect(lookupSetting('maxmemory-polcy')).toBeUndefined();
    expect(knownSettingNames()).toContain('slaveof');
  });

  it('know restart-only settings, enums and multi-value enums', () => {
    expect(lookupSetting('daemonize')?.facts).toMatchObject({ live: false, type: 'bool', values: ['yes', 'no'] });
    expect(lookupSetting('dir')?.facts).toMatchObject({ live: true, protected: true });
    expect(lookupSetting('maxmemory-policy')?.facts.values).toContain('allkeys-lru');
    expect(lookupSetting('shutdown-on-sigterm')?.facts).toMatchObject({ type: 'enum', multi: true });
    expect(lookupSetting('log-format')?.facts.since).toBe('9.x');
    expect(lookupSetting('key-load-delay')?.facts.hidden).toBe(true);
  });

  it('know what 9.x added and what 9.1.2 ignores or renamed, as the servers show it', () => {
    expect(lookupSetting('cluster-slot-migration-log-max-len')?.facts).toMatchObject({ since: '9.x', live: true });
    expect(lookupSetting('io-threads')?.facts.live).toBe(true);
    expect(lookupCommand('CLUSTER|SYNCSLOTS')).toMatchObject({ since: '9.x' });
    expect(lookupCommand('cluster|migrateslots')).toMatchObject({ since: '9.x' });
    expect(lookupCommand('cluster|getslotmigrations')).toMatchObject({ since: '9.x' });
    // Deprecated on 9.1.2: read from the file and ignored, refused by CONFIG SET, so never live.
    for (const name of ['io-threads-do-reads', 'dynamic-hz', 'events-per-io-thread', 'sanitize-dump-payload']) {
      expect(lookupSetting(name)?.facts, name).toMatchObject({ since: '<=8.0.1', ignoredBy: '9.1.2' });
      expect(isLiveSetting(name), name).toBe(false);
    }
    // 8.1 made the slowlog settings aliases of the commandlog ones.
    expect(canonicalSettingName('slowlog-log-slower-than')).toBe('commandlog-execution-slower-than');
    expect(lookupSetting('rename-command')?.facts.fileOnly).toBe(true);
  });

  it('date to 9.1 only names the servers show as 9.x, each with its source', () => {
    const generated = { ...generatedValkeySettings(), ...generatedValkeyCommands() } as Record<string, { since: string }>;
    for (const [name, dated] of Object.entries({ ...SETTINGS_SINCE_9_1, ...COMMANDS_SINCE_9_1 })) {
      expect(generated[name]?.since, `${name}: 9.1.2 has it and 8.0.1 lacks it`).toBe('9.x');
      expect(dated.source, name).toMatch(/9\.1\.0-rc1 release notes.*#\d+/);
    }
    expect(lookupSetting('tls-auto-reload-interval')?.facts).toMatchObject({ since: '9.1', live: true });
    expect(lookupCommand('hgetdel')?.since).toBe('9.1');
    expect(isLiveSetting('hash-seed', '9.0.1')).toBeUndefined();
    expect(isLiveSetting('tls-auto-reload-interval', '9.0.3')).toBeUndefined();
    expect(isLiveSetting('tls-auto-reload-interval', '9.1.0')).toBe(true);
  });

  it('hold commands, subcommands and categories as closed sets', () => {
    expect(lookupCommand('flushall')?.since).toBe('<=8.0.1');
    expect(lookupCommand('config|get')).toBeDefined();
    expect(lookupCommand('flushal')).toBeUndefined();
    expect(hasSubcommands('config')).toBe(true);
    expect(hasSubcommands('get')).toBe(false);
    expect(lookupAclCategory('connection')).toBeDefined();
    expect(lookupAclCategory('all')).toBeDefined();
    expect(lookupAclCategory('connections')).toBeUndefined();
  });
});
