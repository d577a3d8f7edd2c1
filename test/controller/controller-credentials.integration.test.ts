// Per-namespace controller credentials, end to end on real Valkey 9.1.2: the renderer writes each
// namespace's hash into its clusters' users.acl; the controller derives the password from its key;
// one namespace's password never opens another namespace's node; rotation and the migration from
// the fleet-wide password keep every node reachable at every step.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderConfigSpec } from '../../src/api/index.js';
import { candidateCredentials, namespacePassword, readControllerSecrets } from '../../src/controller/valkey/controller-credentials.js';
import { sessionOpener } from '../../src/controller/valkey/node-session.js';
import { CommandError } from '../../src/controller/valkey/resp-connection.js';
import { renderAll } from '../../src/render/render-all.js';
import { sha256 } from '../support/hash.js';
import { CONTROLLER_HASH, REPLICATION_HASH, cluster, guideMenu } from '../support/objects.js';
import type { RunningServer } from '../support/servers.js';
import { SUPPORTED_BUILD, startValkey } from '../support/valkey.js';

const KEY = 'k'.repeat(64);
const NEXT_KEY = 'n'.repeat(64);
const LEGACY = 'the-fleet-wide-password';

/** users.acl of a cluster `cache` in `namespace`, as the function renders it with `controller`. */
function renderedAcl(namespace: string, controller: Record<string, unknown>): string {
  const render = renderConfigSpec().parse({ systemUsers: { replication: { passwordHash: REPLICATION_HASH }, controller } });
  const out = renderAll([...guideMenu(), cluster('cache', {}, namespace)], render);
  const cm = out.clusters[0]?.objects.find((o) => o.kind === 'ConfigMap') as { data: Record<string, string> } | undefined;
  if (!cm) throw new Error(`render failed: ${JSON.stringify(out.problems)}`);
  return cm.data['users.acl'] as string;
}

const controllerLine = (acl: string) => acl.split('\n').find((l) => l.startsWith('user valkey-krm-controller ')) ?? '';

describe('the controller password of a namespace', () => {
  it('is what the documented openssl pipeline derives from the key', () => {
    const fromOpenssl = execFileSync(
      'sh',
      ['-c', `printf %s "valkey-krm-controller/$NS" | openssl dgst -sha256 -hmac "$KEY" -r | cut -d" " -f1`],
      {
        env: { ...process.env, NS: 'team-a', KEY },
      },
    )
      .toString()
      .trim();
    expect(namespacePassword(KEY, 'team-a')).toBe(fromOpenssl);
    expect(namespacePassword(KEY, 'team-b')).not.toBe(fromOpenssl);
  });

  it("is the only controller hash in that namespace's users.acl (plus the fleet-wide one only while it is still set)", () => {
    const a = sha256(namespacePassword(KEY, 'team-a'));
    const b = sha256(namespacePassword(KEY, 'team-b'));
    const own = controllerLine(renderedAcl('team-a', { namespaces: { 'team-a': [a], 'team-b': [b] } }));
    expect(own).toContain(`#${a}`);
    expect(own).not.toContain(b);
    const migrating = controllerLine(renderedAcl('team-a', { passwordHash: CONTROLLER_HASH, namespaces: { 'team-a': [a] } }));
    expect(migrating).toMatch(new RegExp(`^user valkey-krm-controller on #${a} #${CONTROLLER_HASH} resetchannels `));
  });

  it('a namespace with no hash and no fleet-wide hash is an error naming the namespace and the fix', () => {
    const render = renderConfigSpec().parse({
      systemUsers: { replication: { passwordHash: REPLICATION_HASH }, controller: { namespaces: { 'team-b': [CONTROLLER_HASH] } } },
    });
    const out = renderAll([...guideMenu(), cluster('cache', {}, 'team-a')], render);
    expect(out.clusters).toEqual([]);
    expect(out.problems.map((p) => [p.severity, p.message])).toContainEqual([
      'error',
      'ValkeyCluster team-a/cache: the render config has no controller password hash for namespace team-a: add spec.systemUsers.controller.namespaces.team-a (docs/security.md shows how to derive it from the controller key)',
    ]);
  });

  it('the render config refuses a controller user with neither, and more than two hashes per namespace', () => {
    const parse = (controller: unknown) =>
      renderConfigSpec().safeParse({ systemUsers: { replication: { passwordHash: REPLICATION_HASH }, controller } });
    expect(parse({}).error?.issues[0]?.message).toMatch(/needs namespaces .* or passwordHash/);
    expect(parse({ namespaces: { 'team-a': [CONTROLLER_HASH, CONTROLLER_HASH, CONTROLLER_HASH] } }).success).toBe(false);
    expect(parse({ namespaces: { 'Not A Namespace': [CONTROLLER_HASH] } }).success).toBe(false);
  });

  it('is tried first, then the previous key, then the fleet-wide password where it is in scope (fleet-namespaces)', () => {
    const secrets = { key: KEY, previousKey: NEXT_KEY, password: LEGACY, fleetNamespaces: ['team-a'] };
    const tried = candidateCredentials(secrets, 'team-a').map((c) => c.password);
    expect(tried).toEqual([namespacePassword(KEY, 'team-a'), namespacePassword(NEXT_KEY, 'team-a'), LEGACY]);
    expect(candidateCredentials(secrets, 'team-b').map((c) => c.password)).toEqual([
      namespacePassword(KEY, 'team-b'),
      namespacePassword(NEXT_KEY, 'team-b'),
    ]);
    expect(candidateCredentials({ key: KEY }, undefined)).toEqual([]);
  });
});

describe(`per-namespace controller credentials on real Valkey (${SUPPORTED_BUILD})`, () => {
  let dir: string;
  const nodes: Record<string, RunningServer> = {};
  const hashA = sha256(namespacePassword(KEY, 'team-a'));
  const hashB = sha256(namespacePassword(KEY, 'team-b'));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'valkey-krm-creds-'));
    const acls = {
      a: renderedAcl('team-a', { namespaces: { 'team-a': [hashA], 'team-b': [hashB] } }),
      b: renderedAcl('team-b', { namespaces: { 'team-a': [hashA], 'team-b': [hashB] } }),
      // Mid-migration: the namespace's own hash and the fleet-wide one.
      legacy: renderedAcl('team-c', {
        passwordHash: sha256(LEGACY),
        namespaces: { 'team-c': [sha256(namespacePassword(NEXT_KEY, 'team-c'))] },
      }),
    };
    for (const [name, acl] of Object.entries(acls)) {
      await writeFile(join(dir, `${name}.acl`), acl);
      nodes[name] = await startValkey({ build: SUPPORTED_BUILD, args: ['--aclfile', join(dir, `${name}.acl`)] });
    }
  });

  afterAll(async () => {
    for (const n of Object.values(nodes)) await n.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const opener = (secrets: Parameters<typeof candidateCredentials>[0]) =>
    sessionOpener(async (ns) => candidateCredentials(secrets, ns), { connectMs: 2000, commandMs: 2000 });
  const at = (name: string) => ({ host: '127.0.0.1', port: (nodes[name] as RunningServer).port, busPort: 0 });

  it("opens its own namespace's node", async () => {
    const s = await opener({ key: KEY })(at('a'), undefined, 'team-a');
    expect(await s.infoServer()).toContain('valkey_version:9.1.2');
    s.close();
  });

  it("never opens another namespace's node: team-a's password is WRONGPASS on team-b's cluster", async () => {
    const teamAPassword = namespacePassword(KEY, 'team-a');
    const leaked = sessionOpener(async () => ({ username: 'valkey-krm-controller', password: teamAPassword }), {
      connectMs: 2000,
      commandMs: 2000,
    });
    const err = await leaked(at('b'), undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandError);
    expect((err as CommandError).code).toBe('WRONGPASS');
  });

  it('during a rotation (new key in `key`, the old one in `previous-key`) nodes still on the old hash are opened', async () => {
    const s = await opener({ key: NEXT_KEY, previousKey: KEY })(at('a'), undefined, 'team-a');
    s.close();
  });

  it("during the migration a node is opened by the fleet-wide password until the namespace's own hash is loaded, and after", async () => {
    // team-c's node has its own hash (from NEXT_KEY) and the fleet-wide one.
    (await opener({ password: LEGACY })(at('legacy'), undefined, 'team-c')).close();
    (await opener({ key: NEXT_KEY })(at('legacy'), undefined, 'team-c')).close();
    // A namespace-only credential of another key and no fleet-wide password: refused.
    const err = await opener({ key: KEY })(at('legacy'), undefined, 'team-c').catch((e: unknown) => e);
    expect((err as CommandError).code).toBe('WRONGPASS');
  });

  it('reads key, previous-key and password from the mounted Secret directory; neither key nor password is an error', async () => {
    const secretDir = join(dir, 'secret');
    execFileSync('mkdir', ['-p', secretDir]);
    await expect(readControllerSecrets(secretDir)).rejects.toThrow(/no controller credential: neither .*key nor .*password exists/);
    await writeFile(join(secretDir, 'key'), `${KEY}\n`);
    await writeFile(join(secretDir, 'previous-key'), NEXT_KEY);
    expect(await readControllerSecrets(secretDir)).toEqual({ key: KEY, previousKey: NEXT_KEY });
    await writeFile(join(dir, 'legacy-password'), LEGACY);
    expect(await readControllerSecrets(secretDir, join(dir, 'legacy-password'))).toEqual({
      key: KEY,
      previousKey: NEXT_KEY,
      password: LEGACY,
    });
  });
});
