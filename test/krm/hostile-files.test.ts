// A pull request controls the package's files: links, devices and files that are no YAML at all.
// The rule (docs/security.md): named paths may be links (kpt resolves the package directory it is
// given), but not to the kernel's pseudo-files or devices; below a named directory no link is
// followed, wherever it points; and nothing more of a broken file is quoted than the position of
// the problem. render (plain files) and plan read the same way.
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/krm/cli/run-cli.js';
import { runPlanCommand } from '../../src/krm/plan-command.js';
import { parseDocuments, parseResourceList } from '../../src/krm/read-input.js';
import { tempDirs } from '../support/files.js';

const tmp = tempDirs('hostile-files');
afterAll(() => tmp.cleanup());

const SECRET = 'ghs_W22SECRETt0ken';
const GIT_CONFIG = `[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://x-access-token:${SECRET}@github.com/o/r\n[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${SECRET}\n`;

/** render-valkey on paths relative to `cwd` (made absolute: workers cannot chdir), its report in relative terms. */
const render = async (cwd: string, ...args: string[]) => {
  const out = await runCli(
    'render-valkey',
    args.map((a) => (a.startsWith('-') || a.startsWith('/') ? a : join(cwd, a))),
    { readStdin: async () => '', stdinIsTTY: true },
  );
  return { ...out, stderr: out.stderr.replaceAll(`${cwd}/`, '') };
};

/** A repository with a CI checkout's .git/config and the tshirt-sizes package in pkg/. */
function repository(): string {
  const root = tmp.make();
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, '.git', 'config'), GIT_CONFIG);
  cpSync('kptfile-examples/tshirt-sizes', join(root, 'pkg'), { recursive: true });
  return root;
}

describe('links inside a package', () => {
  it.each([
    ['notes.yaml', '../.git/config'],
    ['env.yaml', '/proc/self/environ'],
    ['zero.yaml', '/dev/zero'],
    ['inside.yaml', 'Kptfile'],
    ['dir', '/'],
  ])('%s -> %s is refused by name, never followed, and nothing is rendered', async (name, target) => {
    const root = repository();
    symlinkSync(target, join(root, 'pkg', name));
    const out = await render(root, 'pkg');
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe(
      `render-valkey: cannot read pkg/${name}: is a symbolic link: links inside a package are not read (kpt does not read them either, so the package would render differently there); replace the link with the file or directory it points to\n`,
    );
    const plan = runPlanCommand(['--base', 'pkg', '--format', 'markdown', 'pkg'], { cwd: root });
    expect(plan.exitCode).toBe(1);
    expect(plan.stdout).toContain(`cannot read pkg/${name}: is a symbolic link`);
    expect(plan.stdout).not.toContain(SECRET);
  });

  it('a tree of directory links is refused at the first level, not walked 2^N times', async () => {
    const root = repository();
    let dir = join(root, 'pkg');
    for (let i = 0; i < 30; i++) {
      mkdirSync(join(dir, 'd'));
      symlinkSync('d', join(dir, 'a'));
      symlinkSync('d', join(dir, 'b'));
      dir = join(dir, 'd');
    }
    const started = Date.now();
    const out = await render(root, 'pkg');
    expect(out.exitCode).toBe(1);
    expect(out.stderr.split('\n').filter((l) => l.includes('is a symbolic link'))).toHaveLength(60);
    // Not a timing assertion: a walk through the links would not end within the test's life.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('a FIFO named like YAML is not opened (reading it would hang)', async () => {
    const root = repository();
    expect(spawnSync('mkfifo', [join(root, 'pkg', 'pipe.yaml')]).status).toBe(0);
    const out = await render(root, 'pkg');
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain('cannot read pkg/pipe.yaml: is not a regular file (a device, pipe or socket)');
  });
});

describe('paths named on the command line', () => {
  it('a named link to the package directory is followed, as kpt resolves the directory it is given', async () => {
    const root = repository();
    symlinkSync('pkg', join(root, 'via-link'));
    const out = await render(root, 'via-link');
    expect(out.stderr).toMatch(/rendered \d+ clusters? into \d+ objects/);
    expect(out.exitCode).toBe(0);
  });

  it.each(['/dev/zero', '/proc/self/environ'])('%s, named or reached through a named link, is refused unread', async (target) => {
    const root = repository();
    symlinkSync(target, join(root, 'link.yaml'));
    for (const named of [target, 'link.yaml']) {
      const out = await render(root, named);
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toContain(`cannot read ${named}: leads to`);
      expect(out.stderr).toContain('a kernel pseudo-file');
      const config = await render(root, '--config', named, 'pkg');
      expect(config.exitCode).toBe(1);
      expect(config.stderr).toContain(`cannot read the render config ${named}: leads to`);
    }
  });
});

describe('a file that is not YAML is named by the position of the problem, and no more of it', () => {
  const HOSTILE = [
    GIT_CONFIG,
    `a: b\nfoo: "${SECRET}\n`,
    `- x\nfoo: ${SECRET}\n`,
    `{a: ${SECRET}\n`,
    `a: b\n\t${SECRET}: 1\n`,
    `%YAML 1.1 ${SECRET}\n---\na: 1\n`,
    `a: [${SECRET}\n`,
    `a: '${SECRET}\n`,
    `a: b\n${SECRET}\n`,
    `a:\n  - b\n  ${SECRET}: c\n`,
    `a: b: ${SECRET}\n`,
    `a: "x" ${SECRET}\n`,
    `<<: ${SECRET}\n`,
  ];

  it.each(HOSTILE.map((t) => [t]))('%j', (text) => {
    const { errors } = parseDocuments(text, 'notes.yaml');
    const list = parseResourceList(`apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- ${text.replaceAll('\n', '\n  ')}`);
    for (const e of [...errors, ...list.errors]) expect(e.message).not.toContain(SECRET);
    expect(errors.length + list.errors.length).toBeGreaterThan(0);
  });

  it('an alias to nothing is named without its name', () => {
    expect(parseDocuments(`a: &x 1\nb: *${SECRET}\n`, 'notes.yaml').errors).toEqual([
      { message: 'notes.yaml: invalid YAML: Unresolved alias (the anchor must be set before the alias)' },
    ]);
  });

  it('and the plan comment does not post it', async () => {
    const root = repository();
    cpSync(join(root, '.git', 'config'), join(root, 'pkg', 'notes.yaml'));
    const plan = runPlanCommand(['--base', 'pkg', '--format', 'markdown', 'pkg'], { cwd: root });
    expect(plan.exitCode).toBe(1);
    expect(plan.stdout).toContain('notes.yaml: invalid YAML at line 2, column 2');
    expect(plan.stdout).not.toContain(SECRET);
  });
});
