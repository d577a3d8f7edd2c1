import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT as ROOT } from '../support/paths.js';
import {
  canonicalSettingName,
  hasSubcommands,
  knownSettingNames,
  lookupAclCategory,
  lookupCommand,
  lookupSetting,
} from '../../src/api/valkey-table.js';
import { run } from '../support/exec.js';

const SERVERS = ['8.0.1', 'unstable-2024-10'].map((v) => join(ROOT, '..', 'shared', 'valkey', v, 'valkey-server'));

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
    expect(lookupSetting('log-format')?.facts.since).toBe('8.1/9.0 dev');
    expect(lookupSetting('key-load-delay')?.facts.hidden).toBe(true);
  });

  it('carry what later releases added, recorded by hand with a source', () => {
    expect(lookupSetting('cluster-slot-migration-log-max-len')?.facts).toMatchObject({
      since: '9.0',
      source: expect.stringContaining('atomic-slot-migration'),
    });
    expect(lookupSetting('io-threads')?.facts.live).toBe(true);
    expect(lookupSetting('rename-command')?.facts.fileOnly).toBe(true);
    expect(lookupCommand('CLUSTER|SYNCSLOTS')).toMatchObject({ since: '9.0' });
    expect(lookupCommand('cluster|migrateslots')).toMatchObject({ since: '9.0' });
    expect(lookupCommand('cluster|getslotmigrations')).toMatchObject({ since: '9.0' });
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
