// `render-valkey plan --base-rendered FILE`: what upgrading the function does to every cluster
// (docs/upgrading.md). FILE is what another release rendered from the same package; here the
// "other release" is this one's render of a package that differs in one setting, which is what a
// release that renders one setting differently produces.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runPlanCommand } from '../../src/krm/plan-command.js';
import { run } from '../support/exec.js';
import { tempDirs } from '../support/files.js';
import { RENDER, repoPath } from '../support/paths.js';

const CASE = repoPath('test/plan/cases/restart-setting');
const tmp = tempDirs('upgrade-plan');
afterAll(() => tmp.cleanup());

async function rendered(input: string): Promise<string> {
  const r = await run(process.execPath, [RENDER, join(CASE, input)]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe('plan --base-rendered', () => {
  it('says every cluster is unchanged when the other release rendered the same objects', async () => {
    const dir = tmp.make();
    writeFileSync(join(dir, 'before.yaml'), await rendered('change.yaml'));
    const out = runPlanCommand(['--base-rendered', join(dir, 'before.yaml'), '--fail-on', 'any', join(CASE, 'change.yaml')], { cwd: dir });
    expect(out.stderr).toBe('');
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toContain('2 unchanged');
  });

  it('shows what a release that renders differently does: pods restart, with the cause, and the gate trips', async () => {
    const dir = tmp.make();
    writeFileSync(join(dir, 'before.yaml'), await rendered('base.yaml'));
    const out = runPlanCommand(['--base-rendered', join(dir, 'before.yaml'), '--fail-on', 'roll', join(CASE, 'change.yaml')], { cwd: dir });
    expect(out.exitCode, out.stderr).toBe(3);
    expect(out.stdout).toContain('team-a/orders\n    roll: 6 pods restart');
    expect(out.stdout).toContain('team-b/sessions\n    roll: 6 pods restart');
    expect(out.stdout).toContain('tcp-backlog (unset) -> 1024');
  });

  it('calls a cluster the other release did not render new', async () => {
    const dir = tmp.make();
    const docs = parseAllDocuments(await rendered('change.yaml')).filter(
      (d) => !String(d.getIn(['metadata', 'annotations', 'valkey.gomomento.com/rendered-for'])).startsWith('team-b/'),
    );
    writeFileSync(join(dir, 'before.yaml'), docs.map((d) => `---\n${d.toString()}`).join(''));
    const out = runPlanCommand(['--base-rendered', join(dir, 'before.yaml'), join(CASE, 'change.yaml')], { cwd: dir });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/new \(1 cluster\):\n {2}team-b\/sessions/);
  });

  it('refuses a file that holds nothing, and a second base', () => {
    const dir = tmp.make();
    writeFileSync(join(dir, 'empty.yaml'), '');
    const empty = runPlanCommand(['--base-rendered', 'empty.yaml', join(CASE, 'change.yaml')], { cwd: dir });
    expect(empty).toMatchObject({ exitCode: 1, stdout: '' });
    expect(empty.stderr).toContain('--base-rendered empty.yaml holds no objects');
    const both = runPlanCommand(['--base-rendered', 'empty.yaml', '--base', CASE, join(CASE, 'change.yaml')], { cwd: dir });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('give one of --base DIR, --base-rev REV or --base-rendered FILE');
  });
});
