// No merged edit can lock the controller out: before ACL LOAD, the controller checks that the new
// users.acl still accepts a password it holds (and the one the replicas run with); otherwise it
// refuses, names the file and the user, and the node keeps its users. On real Valkey 9.1.2, which
// loads whatever the file says: without the check the first refused file is the last one loaded.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderConfigSpec } from '../../src/api/index.js';
import { applyLiveConfig } from '../../src/controller/reconcile/live-config.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { candidateCredentials, namespacePassword } from '../../src/controller/valkey/controller-credentials.js';
import { sessionOpener, type NodeSession } from '../../src/controller/valkey/node-session.js';
import { renderAll } from '../../src/render/render-all.js';
import { sha256 } from '../support/hash.js';
import { cluster, guideMenu } from '../support/objects.js';
import type { RunningServer } from '../support/servers.js';
import { SUPPORTED_BUILD, startValkey } from '../support/valkey.js';

const KEY = 'k'.repeat(64);
const OTHER_KEY = 'o'.repeat(64);
const REPLICATION = 'replication-password';
const NEW_REPLICATION = 'rotated-replication-password';

function renderedAcl(controllerHashes: string[], replicationHash: string, extraUser = false): string {
  const render = renderConfigSpec().parse({
    systemUsers: { replication: { passwordHash: replicationHash }, controller: { namespaces: { shop: controllerHashes } } },
  });
  const out = renderAll([...guideMenu(), cluster('cache', {}, 'shop')], render);
  const cm = out.clusters[0]?.objects.find((o) => o.kind === 'ConfigMap') as { data: Record<string, string> } | undefined;
  if (!cm) throw new Error(`render failed: ${JSON.stringify(out.problems)}`);
  const acl = cm.data['users.acl'] as string;
  return extraUser ? `${acl}user extra on #${sha256('x')} ~x:* +get\n` : acl;
}

describe(`ACL LOAD on real Valkey ${SUPPORTED_BUILD} never locks the controller or the replicas out`, () => {
  let dir: string;
  let node: RunningServer;
  const aclPath = () => join(dir, 'users.acl');
  const own = sha256(namespacePassword(KEY, 'shop'));
  const open = sessionOpener(async (ns) => candidateCredentials({ key: KEY }, ns), { connectMs: 2000, commandMs: 2000 });
  const session = (): Promise<NodeSession> => open({ host: node.host, port: node.port, busPort: 0 }, undefined, 'shop');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'valkey-krm-lockout-'));
    await writeFile(aclPath(), renderedAcl([own], sha256(REPLICATION)));
    node = await startValkey({
      build: SUPPORTED_BUILD,
      args: ['--aclfile', aclPath(), '--masteruser', 'valkey-krm-replication', '--masterauth', REPLICATION],
    });
  });

  afterAll(async () => {
    await node?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The merged file reaches the pod (its projection) and the controller's pass applies it. */
  async function apply(acl: string) {
    await writeFile(aclPath(), acl);
    const s = await session();
    try {
      return await applyLiveConfig({
        usersAcl: acl,
        usersAclSource: 'users.acl of ConfigMap shop/cache',
        overridden: new Set(),
        sessions: new Map([['cache-0-0', s]]),
        aclBackoff: () => false,
        metrics: controllerMetrics(),
      });
    } finally {
      s.close();
    }
  }

  it("a one-step rotation (the file lists only another key's hash) is refused, named, and the controller still logs in", async () => {
    const out = await apply(renderedAcl([sha256(namespacePassword(OTHER_KEY, 'shop'))], sha256(REPLICATION)));
    expect(out.aclLoaded).toEqual([]);
    expect(out.failures).toEqual([
      {
        pod: 'cache-0-0',
        kind: 'acl',
        message: expect.stringMatching(
          /^ACL LOAD of users\.acl of ConfigMap shop\/cache on cache-0-0 refused by the controller \(the node keeps its users\): it would lock the controller out: user valkey-krm-controller lists none of their hashes/,
        ),
      },
    ]);
    (await session()).close(); // still in
  });

  it('a file that drops the hash of the password the replicas run with is refused', async () => {
    const out = await apply(renderedAcl([own], sha256(NEW_REPLICATION)));
    expect(out.aclLoaded).toEqual([]);
    expect(out.failures[0]?.message).toMatch(/it would cut the replicas off: user valkey-krm-replication, .* no longer lists the hash/);
  });

  it('a file that keeps both (a new user added, the rotation in two steps) is loaded', async () => {
    const out = await apply(renderedAcl([own, sha256(namespacePassword(OTHER_KEY, 'shop'))], `${sha256(REPLICATION)}`, true));
    expect(out.failures).toEqual([]);
    expect(out.aclLoaded).toEqual(['cache-0-0']);
    const s = await session();
    expect((await s.aclList()).some((l) => l.startsWith('user extra '))).toBe(true);
    s.close();
  });
});
