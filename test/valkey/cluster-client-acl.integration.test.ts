// A user the renderer writes works with a cluster-mode client out of the box: a role that allows
// only GET and SET on `app:*` (no connection category, no CLUSTER) still lets iovalkey's Cluster
// client discover the slots, route keys to all three primaries and read them back, because every
// binding carries CLIENT_BASELINE_RULES. The same user without the baseline cannot get that far,
// which is what shows the baseline, not something else, makes it work.
import { createHash, randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AclBinding, type ValkeyRole, valkeyRole } from '../../src/api/index.js';
import { CLIENT_BASELINE_RULES, renderBinding } from '../../src/render/acl.js';
import { role } from '../support/objects.js';
import { APP_USER, startSlotCluster, type SlotCluster } from '../support/slot-cluster.js';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const password = randomBytes(12).toString('hex');

const getSet = valkeyRole().parse(
  role('app-get-set', {
    commands: [
      { name: 'get', access: 'allow' },
      { name: 'set', access: 'allow' },
    ],
  }),
) as ValkeyRole;
const binding = (username: string): AclBinding => ({
  username,
  passwordHashes: [sha256(password)],
  permissions: [{ roleRef: 'app-get-set', keys: [{ pattern: 'app:*', access: 'readwrite' }] }],
});
const roles = new Map([['app-get-set', getSet]]);

const withBaseline = renderBinding(binding('with-baseline'), roles);
/** The line as it was before the baseline: the role's selector only. */
function withoutBaseline(): string {
  const line = renderBinding(binding('without-baseline'), roles);
  const stripped = line.replace(` ${CLIENT_BASELINE_RULES} `, ' ');
  if (stripped === line) throw new Error('the rendered line has no client baseline to strip (did renderBinding change?)');
  return stripped;
}

let cluster: SlotCluster;

const client = (username: string): Cluster =>
  new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0]!.port }], {
    redisOptions: { username, password, connectTimeout: 2_000 },
    lazyConnect: true,
    // One attempt: a user that cannot read the topology must fail, not retry forever.
    clusterRetryStrategy: () => null,
    maxRedirections: 16,
  });

beforeAll(async () => {
  cluster = await startSlotCluster({ nodes: 3, shards: 3, appendonly: false, extraAclLines: [withBaseline, withoutBaseline()] });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('a rendered user with a get/set role, from a cluster-mode client', () => {
  it('connects, sets and gets keys on every primary, and is refused keys outside its pattern', async () => {
    expect(withBaseline).toMatch(/ -@all \+ping .* \+cluster\|slots .*\(\+get \+set ~app:\*\)$/);
    const c = client('with-baseline');
    try {
      await c.connect();
      const keys = Array.from({ length: 60 }, (_, i) => `app:${i}`);
      await Promise.all(keys.map((k) => c.set(k, k.toUpperCase())));
      expect(await Promise.all(keys.map((k) => c.get(k)))).toEqual(keys.map((k) => k.toUpperCase()));
      await expect(c.get('other:1')).rejects.toThrow(/NOPERM/);
      await expect(c.set('other:1', 'x')).rejects.toThrow(/NOPERM/);
      await expect(c.del('app:0')).rejects.toThrow(/NOPERM/);
    } finally {
      c.disconnect();
    }
    // The keys went to all three shards: the client routed by slot, not to its seed node.
    for (const n of cluster.nodes) {
      const admin = new Redis({ host: '127.0.0.1', port: n.port, username: APP_USER, password: cluster.appPassword });
      try {
        expect(await admin.dbsize(), `node ${n.index}`).toBeGreaterThan(0);
      } finally {
        admin.disconnect();
      }
    }
  }, 30_000);

  it('without the baseline the same user cannot run its commands through the client', async () => {
    const c = client('without-baseline');
    const events: string[] = [];
    c.on('error', (e: Error) => events.push(e.message));
    try {
      const run = async (): Promise<unknown> => {
        await c.connect();
        return c.get('app:1');
      };
      await expect(run()).rejects.toThrow(/None of startup nodes is available|refresh slots cache|NOPERM/);
      expect(events).toContain('Failed to refresh slots cache.');
    } finally {
      c.disconnect();
    }
    // And the reason is the topology: the server refuses it CLUSTER SLOTS.
    const plain = new Redis({ host: '127.0.0.1', port: cluster.nodes[0]!.port, username: 'without-baseline', password });
    try {
      await expect(plain.call('cluster', 'slots')).rejects.toThrow(/NOPERM/);
    } finally {
      plain.disconnect();
    }
  }, 30_000);
});
