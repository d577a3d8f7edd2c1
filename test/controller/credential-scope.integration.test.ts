// Credentials never cross a tenant: a node is offered only credentials of its own scope. A pod a
// tenant controls in team-a that answers WRONGPASS to every AUTH is what it would take to fish for
// the controller's next credential; what it receives is checked against team-b's real Valkey 9.1.2
// node, mid-migration (its users.acl still lists the fleet-wide hash), which must refuse it all.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderConfigSpec } from '../../src/api/index.js';
import {
  candidateCredentials,
  fleetPasswordInScope,
  namespacePassword,
  readControllerSecrets,
  type ControllerSecrets,
} from '../../src/controller/valkey/controller-credentials.js';
import { sessionOpener } from '../../src/controller/valkey/node-session.js';
import { CommandError } from '../../src/controller/valkey/resp-connection.js';
import { renderAll } from '../../src/render/render-all.js';
import { sha256 } from '../support/hash.js';
import { startHostileNode, type HostileNode } from '../support/hostile-node.js';
import { REPLICATION_HASH, cluster, guideMenu } from '../support/objects.js';
import type { RunningServer } from '../support/servers.js';
import { SUPPORTED_BUILD, startValkey } from '../support/valkey.js';

const KEY = 'k'.repeat(64);
const FLEET = 'the-fleet-wide-password';

function renderedAcl(namespace: string, controller: Record<string, unknown>): string {
  const render = renderConfigSpec().parse({ systemUsers: { replication: { passwordHash: REPLICATION_HASH }, controller } });
  const out = renderAll([...guideMenu(), cluster('cache', {}, namespace)], render);
  const cm = out.clusters[0]?.objects.find((o) => o.kind === 'ConfigMap') as { data: Record<string, string> } | undefined;
  if (!cm) throw new Error(`render failed: ${JSON.stringify(out.problems)}`);
  return cm.data['users.acl'] as string;
}

describe('which credentials a node is offered', () => {
  it('once a key exists, the fleet-wide password only to the namespaces listed in fleet-namespaces, after their own', () => {
    const own = (ns: string) => namespacePassword(KEY, ns);
    const tried = (s: ControllerSecrets, ns: string | undefined) => candidateCredentials(s, ns).map((c) => c.password);
    expect(tried({ key: KEY, password: FLEET }, 'team-a')).toEqual([own('team-a')]);
    expect(tried({ key: KEY, password: FLEET, fleetNamespaces: ['team-b'] }, 'team-a')).toEqual([own('team-a')]);
    expect(tried({ key: KEY, password: FLEET, fleetNamespaces: ['team-b'] }, 'team-b')).toEqual([own('team-b'), FLEET]);
    expect(tried({ key: KEY, password: FLEET, fleetNamespaces: ['team-b'] }, undefined)).toEqual([]);
    // Before the migration starts (no key at all), the fleet-wide password is the only credential.
    expect(tried({ password: FLEET }, 'team-a')).toEqual([FLEET]);
    expect(fleetPasswordInScope({ key: KEY, password: FLEET }, 'team-a')).toBe(false);
  });
});

describe(`a hostile node answering WRONGPASS, against team-b's real Valkey ${SUPPORTED_BUILD}`, () => {
  let dir: string;
  let teamB: RunningServer;
  let hostile: HostileNode;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'valkey-krm-scope-'));
    // team-b mid-migration: its own hash and the fleet-wide one.
    const acl = renderedAcl('team-b', {
      passwordHash: sha256(FLEET),
      namespaces: { 'team-b': [sha256(namespacePassword(KEY, 'team-b'))] },
    });
    await writeFile(join(dir, 'b.acl'), acl);
    teamB = await startValkey({ build: SUPPORTED_BUILD, args: ['--aclfile', join(dir, 'b.acl')] });
    hostile = await startHostileNode({ refuseAuth: true });
  });

  afterAll(async () => {
    await hostile?.close();
    await teamB?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const timeouts = { connectMs: 2000, commandMs: 2000 };

  it("the controller's Secret as the migration guide leaves it (key and password, team-a moved): the fleet-wide password never reaches team-a's pod", async () => {
    const secretDir = join(dir, 'secret');
    await mkdir(secretDir, { recursive: true });
    await writeFile(join(secretDir, 'key'), KEY);
    await writeFile(join(secretDir, 'password'), FLEET);
    await writeFile(join(secretDir, 'fleet-namespaces'), 'team-b\n');
    const open = sessionOpener(async (ns) => candidateCredentials(await readControllerSecrets(secretDir), ns), timeouts);
    hostile.received.length = 0;
    const err = await open({ host: '127.0.0.1', port: hostile.port, busPort: 0 }, undefined, 'team-a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandError);
    expect((err as CommandError).code).toBe('WRONGPASS');
    const offered = hostile.received.filter((a) => a[0]?.toUpperCase() === 'AUTH').map((a) => a[2] as string);
    expect(offered).toEqual([namespacePassword(KEY, 'team-a')]);
    expect(hostile.received.flat()).not.toContain(FLEET);
    // Everything the pod received is refused by team-b's real node: it learnt nothing that opens another tenant.
    const fleetOpensB = sessionOpener(async () => ({ username: 'valkey-krm-controller', password: FLEET }), timeouts);
    (await fleetOpensB({ host: teamB.host, port: teamB.port, busPort: 0 }, undefined)).close(); // the stake is real
    for (const password of offered) {
      const tryB = sessionOpener(async () => ({ username: 'valkey-krm-controller', password }), timeouts);
      const refused = await tryB({ host: teamB.host, port: teamB.port, busPort: 0 }, undefined).catch((e: unknown) => e);
      expect((refused as CommandError).code).toBe('WRONGPASS');
    }
  });

  it('team-b itself, listed in fleet-namespaces, is still opened by the fleet-wide password after its own is refused', async () => {
    const open = sessionOpener(
      async (ns) => candidateCredentials({ key: 'another-key-team-b-never-loaded', password: FLEET, fleetNamespaces: ['team-b'] }, ns),
      timeouts,
    );
    const s = await open({ host: teamB.host, port: teamB.port, busPort: 0 }, undefined, 'team-b');
    expect(await s.infoServer()).toContain('valkey_version:9.1.2');
    s.close();
  });
});
