// The rendered readiness probe on real Valkey 9.1.2 (issue 31, "available means holds the data"):
// the rendered probe.sh, unmodified, run by the image's shell (BusyBox `sh`, as in the real-node
// image; and dash, the official Debian image's `sh`) with the image's valkey-cli, against the
// rendered valkey.conf and users.acl. Ready must mean "holds a full copy of the shard's data":
//   not ready: an empty primary (no slots), a replica still syncing its copy, a wrong password;
//   ready:     a replica whose link is up and in sync, a primary serving its slots.
// The probe talks to 127.0.0.1:6379, the pod's own address in its network namespace, so the two
// "pods" run in a network namespace this test makes (root): A on 127.0.0.1, B on 127.0.0.2.
// Left out: TLS (the same script with valkey-cli's TLS flags), the per-pod hostname arguments.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderConfigSpec, SYSTEM_USERNAMES } from '../../src/api/index.js';
import { renderAll } from '../../src/render/render-all.js';
import { run } from '../support/exec.js';
import { tempDirs } from '../support/files.js';
import { sha256 } from '../support/hash.js';
import { cluster, guideMenu } from '../support/objects.js';
import { spawnDaemon, waitFor, type Daemon } from '../support/process.js';
import { SUPPORTED_BUILD, valkeyCliPath, valkeyServerPath } from '../support/valkey.js';

const pw = () => randomBytes(12).toString('hex');
const passwords = { replication: pw(), controller: pw() };
const KEYS = 20_000;
const NSENTER = '/usr/bin/nsenter';

const renderConfig = renderConfigSpec().parse({
  systemUsers: {
    replication: { passwordHash: sha256(passwords.replication) },
    controller: { passwordHash: sha256(passwords.controller) },
  },
});
const out = renderAll([...guideMenu(), cluster('cache', { shards: 1, replicasPerShard: 1 }, 'team-a')], renderConfig);
const files = (out.clusters[0]!.objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> }).data;
const probeScript = files['probe.sh']!;
const usersAcl = files['users.acl']!;

const dirs = tempDirs('probe');
let holder: Daemon | undefined;
const servers: Daemon[] = [];
const ns = (): string => `--net=/proc/${String(holder?.pid)}/ns/net`;

/** valkey-cli inside the namespace, as the controller user (or another). */
async function cli(host: string, args: readonly string[], user: [string, string] = [SYSTEM_USERNAMES.controller, passwords.controller]) {
  const r = await run(NSENTER, [
    ns(),
    '--',
    valkeyCliPath(),
    '-h',
    host,
    '-p',
    '6379',
    '--no-auth-warning',
    '--user',
    user[0],
    '--pass',
    user[1],
    ...args,
  ]);
  return (r.stdout + r.stderr).trim();
}

/** The rendered probe as the kubelet runs it in the pod: `sh /etc/valkey/conf/probe.sh <mode>`. */
async function probe(mode: 'ready' | 'live' | 'startup' | 'handover', o: { shell?: string[]; password?: string } = {}) {
  const script = join(dirs.make('script'), 'probe.sh');
  writeFileSync(script, probeScript);
  const shell = o.shell ?? ['/bin/busybox', 'sh'];
  // Only valkey-cli on PATH, as the script may count on nothing else the image has.
  const env = { PATH: dirname(valkeyCliPath()), VALKEY_REPLICATION_PASSWORD: o.password ?? passwords.replication };
  const r = await run(NSENTER, [ns(), '--', ...shell, script, mode], { env, timeoutMs: mode === 'handover' ? 30_000 : 5_000 });
  return { ready: r.code === 0, output: (r.stdout + r.stderr).trim() };
}

function startNode(host: string): { dir: string } {
  const dir = dirs.make(host);
  writeFileSync(join(dir, 'users.acl'), usersAcl);
  writeFileSync(join(dir, 'valkey.conf'), files['valkey.conf']!.replaceAll('/etc/valkey/conf', dir).replaceAll('/data', dir));
  // The pod's arguments (statefulset.ts), and its own address for `bind * -::*`.
  const args = [join(dir, 'valkey.conf'), '--bind', host, '--cluster-announce-ip', host, '--masterauth', passwords.replication];
  servers.push(spawnDaemon(`valkey ${host}`, NSENTER, [ns(), '--', valkeyServerPath(SUPPORTED_BUILD), ...args], join(dir, 'log')));
  return { dir };
}

const info = async (host: string) => cli(host, ['INFO', 'replication']);
const syncing = (text: string) => /master_sync_in_progress:1/.test(text) || /master_link_status:down/.test(text);

describe(`the rendered readiness probe on real Valkey ${SUPPORTED_BUILD}: ready means it holds a full copy`, () => {
  let a: { dir: string };

  beforeAll(async () => {
    holder = spawnDaemon(
      'netns',
      'unshare',
      ['--net', '--', 'sh', '-c', 'ip link set lo up && exec sleep 100000'],
      join(dirs.make('ns'), 'log'),
    );
    await waitFor('the namespace loopback up', async () =>
      (await run(NSENTER, [ns(), '--', 'ip', '-o', 'link', 'show', 'lo'])).stdout.includes('UP'),
    );
    a = startNode('127.0.0.1');
    startNode('127.0.0.2');
    for (const h of ['127.0.0.1', '127.0.0.2']) await waitFor(`${h} answers`, async () => (await cli(h, ['PING'])) === 'PONG');
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) await s.stop(2_000);
    await holder?.stop(1_000);
    dirs.cleanup();
  });

  it('an empty primary (no slots: a re-created pod, or one not yet formed) is alive but not ready, and says why', async () => {
    for (const shell of [['/bin/busybox', 'sh'], ['/bin/dash']]) {
      const r = await probe('ready', { shell });
      expect(r.ready, r.output).toBe(false);
      expect(r.output).toContain('a primary that owns no slots');
      expect(r.output).toContain("the shard's PodDisruptionBudget does not count this pod");
    }
    expect((await probe('live')).ready).toBe(true);
    expect((await probe('startup')).ready).toBe(true);
    // The preStop hold: a primary with no replica has nothing to hand over and stops at once.
    const t = Date.now();
    expect((await probe('handover')).ready).toBe(true);
    expect(Date.now() - t).toBeLessThan(3_000);
  });

  it('a wrong replication password is not ready, and says it cannot authenticate', async () => {
    const r = await probe('ready', { password: 'not-the-password' });
    expect(r.ready).toBe(false);
    expect(r.output).toContain(`cannot authenticate as ${SYSTEM_USERNAMES.replication}`);
  });

  it("a users.acl older than the probe (no +role for the replication user: before the controller's ACL LOAD) falls back to PING", async () => {
    writeFileSync(join(a.dir, 'users.acl'), usersAcl.replace(' +role +cluster|nodes', ''));
    expect(await cli('127.0.0.1', ['ACL', 'LOAD'])).toBe('OK');
    expect((await probe('ready')).ready).toBe(true);
    writeFileSync(join(a.dir, 'users.acl'), usersAcl);
    expect(await cli('127.0.0.1', ['ACL', 'LOAD'])).toBe('OK');
    expect((await probe('ready')).ready).toBe(false);
  });

  it('a replica still syncing is not ready; once linked and in sync it is; a primary serving its slots is', async () => {
    // B: a primary serving every slot with KEYS keys, whose snapshot for a replica is slowed down.
    expect(await cli('127.0.0.2', ['CLUSTER', 'ADDSLOTSRANGE', '0', '16383'])).toBe('OK');
    await waitFor('B serves', async () => (await cli('127.0.0.2', ['CLUSTER', 'INFO'])).includes('cluster_state:ok'), {
      timeoutMs: 30_000,
    });
    // As the replication user: the one rendered user here that may write keys.
    const setCommands = Array.from({ length: KEYS }, (_, i) => `SET k:${String(i)} ${'v'.repeat(32)}\n`).join('');
    const replication = ['--user', SYSTEM_USERNAMES.replication, '--pass', passwords.replication];
    const load = await run(NSENTER, [ns(), '--', valkeyCliPath(), '-h', '127.0.0.2', '-p', '6379', '--no-auth-warning', ...replication], {
      input: setCommands,
    });
    expect(load.code, load.stdout + load.stderr).toBe(0);
    expect(await cli('127.0.0.2', ['CONFIG', 'SET', 'rdb-key-save-delay', '500'])).toBe('OK');
    expect(await cli('127.0.0.2', ['INFO', 'keyspace'])).toContain(`keys=${String(KEYS)}`);
    const bId = await cli('127.0.0.2', ['CLUSTER', 'MYID']);

    // A meets B and replicates it, as the controller attaches a re-created pod.
    expect(await cli('127.0.0.1', ['CLUSTER', 'MEET', '127.0.0.2', '6379'])).toBe('OK');
    await waitFor('A knows B', async () => (await cli('127.0.0.1', ['CLUSTER', 'NODES'])).includes(bId));
    expect(await cli('127.0.0.1', ['CLUSTER', 'REPLICATE', bId])).toBe('OK');

    // While INFO says the copy is not complete (before and after the probe), the probe says not ready.
    let seenSyncing = 0;
    await waitFor(
      'the replica in sync',
      async () => {
        const before = await info('127.0.0.1');
        const r = await probe('ready');
        const after = await info('127.0.0.1');
        if (syncing(before) && syncing(after)) {
          expect(r.ready, `${before}\n${r.output}`).toBe(false);
          expect(r.output).toMatch(
            /a replica of 127\.0\.0\.2:6379 whose link is (connect|connecting|handshake|sync) \(not connected and in sync\)/,
          );
          seenSyncing++;
        }
        return /master_link_status:up/.test(after) && /master_sync_in_progress:0/.test(after);
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    process.stdout.write(`[probe] a syncing replica was probed not ready ${String(seenSyncing)} times\n`);
    expect(seenSyncing).toBeGreaterThan(2);
    const linked = await probe('ready');
    expect(linked.ready, linked.output).toBe(true);
    expect(await cli('127.0.0.1', ['INFO', 'keyspace'])).toContain(`keys=${String(KEYS)}`);

    // A takes the shard over (a graceful failover): a primary serving its slots is ready.
    expect(await cli('127.0.0.1', ['CLUSTER', 'FAILOVER'])).toBe('OK');
    await waitFor('A is the primary', async () => /role:master/.test(await info('127.0.0.1')), { timeoutMs: 30_000 });
    const primary = await probe('ready');
    expect(primary.ready, primary.output).toBe(true);
    expect((await probe('ready', { shell: ['/bin/dash'] })).ready).toBe(true);

    // The preStop hold (probe.sh handover): A, a primary with B attached, is held while it is one;
    // B's graceful CLUSTER FAILOVER (what the controller sends) ends the hold within a second or two.
    await waitFor('B attached to A', async () => /connected_slaves:1/.test(await info('127.0.0.1')), { timeoutMs: 30_000 });
    const t0 = Date.now();
    const held = probe('handover');
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await cli('127.0.0.2', ['CLUSTER', 'FAILOVER'])).toBe('OK');
    const tFailover = Date.now();
    const r = await held;
    const heldMs = Date.now() - t0;
    process.stdout.write(
      `[probe] preStop hold of a primary with a replica: ${String(heldMs)} ms, ${String(Date.now() - tFailover)} ms after the failover\n`,
    );
    expect(r.ready, r.output).toBe(true);
    expect(r.output).toContain('waiting for the controller to hand the shard over');
    expect(heldMs).toBeGreaterThanOrEqual(3_000);
    expect(Date.now() - tFailover).toBeLessThan(5_000);
    expect(/role:slave/.test(await info('127.0.0.1'))).toBe(true);
    // Now a replica: it stops at once.
    const t1 = Date.now();
    expect((await probe('handover', { shell: ['/bin/dash'] })).ready).toBe(true);
    expect(Date.now() - t1).toBeLessThan(3_000);
  }, 180_000);

  it("a node at maxclients (9.1.2 counts the bus links too) refuses the probe's connection but is alive: liveness and startup pass, readiness does not", async () => {
    // One connection held open as the controller, then maxclients set to what is connected now.
    const { spawn } = await import('node:child_process');
    const held = spawn(
      NSENTER,
      [
        ns(),
        '--',
        valkeyCliPath(),
        '-h',
        '127.0.0.1',
        '-p',
        '6379',
        '--no-auth-warning',
        '--user',
        SYSTEM_USERNAMES.controller,
        '--pass',
        passwords.controller,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let said = '';
    held.stdout.on('data', (d: Buffer) => {
      said += d.toString();
    });
    const send = async (line: string, reply: RegExp) => {
      held.stdin.write(`${line}\n`);
      await waitFor(`${line} answered`, async () => reply.test(said), { timeoutMs: 5_000 });
    };
    try {
      await send('INFO clients', /cluster_connections:\d+/);
      const clients = Number(/connected_clients:(\d+)/.exec(said)?.[1]) + Number(/cluster_connections:(\d+)/.exec(said)?.[1]);
      said = '';
      await send(`CONFIG SET maxclients ${String(clients)}`, /OK/);
      expect(await cli('127.0.0.1', ['PING'])).toMatch(/max number of clients/);
      const live = await probe('live');
      expect(live.ready, live.output).toBe(true);
      expect((await probe('startup')).ready).toBe(true);
      const ready = await probe('ready');
      expect(ready.ready).toBe(false);
      expect(ready.output).toContain('max number of clients');
    } finally {
      said = '';
      await send('CONFIG SET maxclients 10000', /OK/);
      held.stdin.end();
    }
  });
});
