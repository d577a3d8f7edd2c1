import { describe, expect, it } from 'vitest';
import { desiredLiveSettings, normalizeSettingValue, planLiveSettings } from '../../../src/controller/cluster/live-settings.js';
import { directivesByName, readValkeyConf } from '../../../src/api/contract/valkey-conf.js';

const parseValkeyConf = (text: string) => directivesByName(readValkeyConf(text));
import { lookupSetting } from '../../../src/api/valkey-table.js';

const CONF = `# Rendered
maxmemory 1500mb
maxmemory-policy allkeys-lru
save 3600 1
save 300 100
notify-keyspace-events ""
cluster-enabled yes
port 6379
bind * -::*
dir /data
aclfile /etc/valkey/conf/users.acl
masteruser valkey-krm-replication
SHUTDOWN-ON-SIGTERM nosave now
`;

const facts = (name: string) => {
  const f = lookupSetting(name)?.facts;
  if (!f) throw new Error(name);
  return f;
};

describe('valkey.conf directives', () => {
  it('splits words, keeps quoted words whole, gathers repeated directives and folds names', () => {
    const d = parseValkeyConf(CONF);
    expect(d.get('save')).toEqual([
      ['3600', '1'],
      ['300', '100'],
    ]);
    expect(d.get('notify-keyspace-events')).toEqual([['']]);
    expect(d.get('shutdown-on-sigterm')).toEqual([['nosave', 'now']]);
    expect(d.has('#')).toBe(false);
  });
});

describe('live settings', () => {
  it('takes the live settings only: not restart-only ones, not paths or bind, not what the arguments override', () => {
    const names = desiredLiveSettings(parseValkeyConf(CONF), new Set(['masteruser'])).map((d) => d.name);
    expect(names).toEqual(['maxmemory', 'maxmemory-policy', 'notify-keyspace-events', 'save', 'shutdown-on-sigterm']);
  });

  it('never takes a setting valkey-krm manages, even one Valkey would set live', () => {
    const conf = parseValkeyConf(
      'protected-mode no\ncluster-allow-replica-migration no\ncluster-preferred-endpoint-type ip\nmaxmemory 1mb\n',
    );
    expect(desiredLiveSettings(conf).map((d) => d.name)).toEqual(['maxmemory']);
  });

  it.each([
    ['maxmemory', '1500mb', '1572864000'],
    ['maxmemory', '1gb', '1073741824'],
    ['maxmemory', '2k', '2000'],
    ['maxmemory-policy', 'AllKeys-LRU', 'allkeys-lru'],
    ['appendonly', 'YES', 'yes'],
    ['shutdown-on-sigterm', 'now nosave', 'nosave now'],
    ['client-output-buffer-limit', 'pubsub 32mb 8mb 60', 'pubsub 33554432 8388608 60'],
  ])('%s %s reads back as %s', (name, value, running) => {
    expect(normalizeSettingValue(facts(name), value)).toBe(normalizeSettingValue(facts(name), running));
  });

  it('sets only what differs from CONFIG GET, and nothing a server does not know', () => {
    const desired = desiredLiveSettings(parseValkeyConf('maxmemory 1200mb\nmaxmemory-policy allkeys-lru\nlazyfree-lazy-user-flush yes\n'));
    const running = new Map([
      ['maxmemory', '1572864000'],
      ['maxmemory-policy', 'allkeys-lru'],
    ]);
    expect(planLiveSettings(desired, running)).toEqual([{ name: 'maxmemory', value: '1200mb', running: '1572864000' }]);
    expect(planLiveSettings(desired, new Map([...running, ['maxmemory', '1258291200']]))).toEqual([]);
  });
});
