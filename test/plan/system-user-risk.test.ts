// plan: replacing every password hash of the controller or replication user in one step is not
// "live": the load would cut the controller (or the replicas) off, so it is risky, with the reason,
// and --fail-on risky trips. Keeping the old hash next to the new one stays live.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPlanCommand } from '../../src/krm/plan-command.js';
import { CONTROLLER_HASH, REPLICATION_HASH, cluster, guideMenu, renderConfigObject } from '../support/objects.js';

const NEW = 'a'.repeat(64);
const dir = mkdtempSync(join(tmpdir(), 'valkey-krm-sysusers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(file: string, controller: string[], replication: string) {
  const config = renderConfigObject({
    outputDir: 'valkey',
    systemUsers: { replication: { passwordHash: replication }, controller: { namespaces: { 'team-a': controller } } },
  });
  const docs = [config, ...guideMenu(), cluster('cache', { replicasPerShard: 1 })];
  writeFileSync(join(dir, file), docs.map((d) => `---\n${JSON.stringify(d)}\n`).join(''));
}

const plan = (change: string) => runPlanCommand(['--base', 'base.yaml', '--fail-on', 'risky', change], { cwd: dir });

describe('plan: system user passwords', () => {
  write('base.yaml', [CONTROLLER_HASH], REPLICATION_HASH);

  it.each([
    [
      'the controller user',
      'controller.yaml',
      [NEW],
      REPLICATION_HASH,
      /every password hash of valkey-krm-controller is replaced in one step: the controller, .* would be locked out/,
    ],
    [
      'the replication user',
      'replication.yaml',
      [CONTROLLER_HASH],
      NEW,
      /every password hash of valkey-krm-replication is replaced in one step: the replicas/,
    ],
  ])('every hash of %s replaced at once: risky, and --fail-on risky exits 3', (_who, file, controller, replication, reason) => {
    write(file, controller, replication);
    const out = plan(file);
    expect(out.stdout).toMatch(reason);
    expect(out.stdout).toMatch(/^risky \(1 cluster\):/m);
    expect(out.exitCode).toBe(3);
  });

  it('a rotation in two steps (the old hash kept) is live, and --fail-on risky passes', () => {
    write('two-step.yaml', [NEW, CONTROLLER_HASH], REPLICATION_HASH);
    const out = plan('two-step.yaml');
    expect(out.stdout).toMatch(/^live \(1 cluster\):/m);
    expect(out.exitCode).toBe(0);
  });
});
