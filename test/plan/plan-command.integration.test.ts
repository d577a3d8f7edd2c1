// render-valkey plan as a command: arguments, exit codes, the gate, --explain, and the git mode
// against a real repository (git on the machine) with two commits.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATE_EXIT, runPlanCommand } from '../../src/krm/plan-command.js';

const cases = join(import.meta.dirname, 'cases');
const inCase = (name: string, ...args: string[]) =>
  runPlanCommand(['--base', 'base.yaml', ...args, 'change.yaml'], { cwd: join(cases, name) });

describe('render-valkey plan: arguments', () => {
  it('prints its help', () => {
    const out = runPlanCommand(['--help'], { cwd: cases });
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toMatch(/^render-valkey plan: /);
    expect(out.stdout).toContain('--base-rev REV');
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--base', 'a', '--format', 'yaml'], '--format must be one of text, markdown, json'],
    [['--base', 'a', '--fail-on', 'sometimes'], '--fail-on must be one of held, risky, roll, any'],
    [['--base', 'a', '--base-rev', 'HEAD'], 'give one of --base DIR, --base-rev REV or --base-rendered FILE'],
    [[], 'say what to compare with'],
    [['--explain', 'no-slash'], '--explain takes NAMESPACE/NAME'],
  ])('refuses %j with exit 2', (argv, message) => {
    const out = runPlanCommand(argv, { cwd: join(cases, 'shards-up') });
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stdout).toBe('');
  });
});

describe('render-valkey plan: exit codes', () => {
  it.each([
    ['zero-replica-roll', 'held', GATE_EXIT],
    ['tls-on', 'held', 0],
    ['tls-on', 'risky', GATE_EXIT],
    ['restart-setting', 'roll', GATE_EXIT],
    ['live-only-setting', 'roll', 0],
    ['live-only-setting', 'any', GATE_EXIT],
    ['role-edit', 'roll', 0],
    ['role-edit', 'any', GATE_EXIT],
    ['no-op-reformat', 'any', 0],
  ])('%s with --fail-on %s exits %i', (name, gate, code) => {
    const out = inCase(name, '--fail-on', gate);
    expect(out.exitCode).toBe(code);
    if (code === GATE_EXIT) expect(out.stderr).toMatch(new RegExp(`^render-valkey plan: --fail-on ${gate}: `));
    expect(out.stdout).toBe(readFileSync(join(cases, name, '_expected.txt'), 'utf8'));
  });

  it('reads an input labelled managed-by: valkey-krm as render-valkey does: the label hides no cluster from the gate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plan-label-'));
    try {
      const from = join(cases, 'zero-replica-roll');
      copyFileSync(join(from, 'base.yaml'), join(dir, 'base.yaml'));
      // Our label on every object of the change, the ValkeyCluster and the render config included.
      const labelled = readFileSync(join(from, 'change.yaml'), 'utf8').replace(
        /^metadata:\n/gm,
        'metadata:\n  labels:\n    app.kubernetes.io/managed-by: valkey-krm\n',
      );
      writeFileSync(join(dir, 'change.yaml'), labelled);
      const out = runPlanCommand(['--base', 'base.yaml', '--fail-on', 'risky', 'change.yaml'], { cwd: dir });
      expect(out.exitCode).toBe(GATE_EXIT);
      // The same plan; only the lines of the findings moved (the labels add three per object).
      const placeless = (text: string) => text.replace(/(in change\.yaml):\d+:\d+/g, '$1');
      expect(placeless(out.stdout)).toBe(placeless(readFileSync(join(from, '_expected.txt'), 'utf8')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 when a side is invalid, whatever the gate', () => {
    const out = inCase('invalid-change', '--fail-on', 'any');
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe('render-valkey plan: the change is invalid (3 errors): nothing to compare\n');
  });
});

describe('render-valkey plan --explain', () => {
  it('names the config in the chain that set each value, or "forced", and each user\'s binding level', () => {
    const out = runPlanCommand(['--explain', 'team-a/orders', 'change.yaml'], { cwd: join(cases, 'image-bump-deep-chain') });
    expect(out.exitCode).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'team-a/orders: 3 shards x 2 pods, TLS off',
      'config chain: standard-large-eu -> standard-large -> standard -> base',
      'image: valkey/valkey:9.0.2 (ValkeyImage valkey-9-0, version 9.0.2; imageRef set by ValkeyConfig base)',
      'resources: cpu 1 (ValkeyConfig base), memory 8Gi (ValkeyConfig standard-large)',
    ]);
    const row = (name: string) =>
      lines
        .find((l) => l.trimStart().startsWith(`${name} `))
        ?.trim()
        .split(/\s{2,}/);
    expect(row('timeout 300')).toEqual(['timeout 300', 'ValkeyConfig standard-large-eu']);
    expect(row('hz 20')).toEqual(['hz 20', 'ValkeyConfig standard']);
    expect(row('maxmemory 1gb')).toEqual(['maxmemory 1gb', 'ValkeyConfig base']);
    expect(row('cluster-enabled yes')).toEqual(['cluster-enabled yes', 'forced']);
    expect(row('monitor')).toEqual(['monitor', 'platform: ValkeyConfig base; roles monitoring']);
    expect(row('orders-app')).toEqual(['orders-app', 'team: ValkeyCluster team-a/orders; roles app']);
  });

  it('prints JSON too, and exits 1 for a cluster that does not exist', () => {
    const json = runPlanCommand(['--explain', 'team-b/sessions', '--format', 'json', 'change.yaml'], { cwd: join(cases, 'shards-up') });
    expect(JSON.parse(json.stdout)).toMatchObject({ namespace: 'team-b', name: 'sessions', shards: 2, replicasPerShard: 2 });
    const missing = runPlanCommand(['--explain', 'team-b/nope', 'change.yaml'], { cwd: join(cases, 'shards-up') });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('no ValkeyCluster team-b/nope in these files');
  });
});

describe('render-valkey plan --base-rev (a real git repository)', () => {
  let repo: string;
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const commit = (message: string) => {
    git('add', '-A');
    git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', message);
  };

  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'plan-git-'));
    git('init', '-q', '-b', 'main');
    mkdirSync(join(repo, 'platform', 'valkey'), { recursive: true });
    writeFileSync(join(repo, 'README.md'), 'not YAML, not read\n');
    copyFileSync(join(cases, 'live-only-setting', 'base.yaml'), join(repo, 'platform', 'valkey', 'package.yaml'));
    commit('base');
    copyFileSync(join(cases, 'live-only-setting', 'change.yaml'), join(repo, 'platform', 'valkey', 'package.yaml'));
    commit('change');
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('plans the committed change against the previous commit, as the directory mode does', () => {
    const out = runPlanCommand(['--base-rev', 'HEAD~1', 'platform/valkey'], { cwd: repo });
    expect(out.stderr).toBe('');
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toBe(readFileSync(join(cases, 'live-only-setting', '_expected.txt'), 'utf8'));
  });

  it('reads the change from the working tree, and paths relative to a subdirectory', () => {
    writeFileSync(join(repo, 'platform', 'valkey', 'package.yaml'), readFileSync(join(cases, 'live-only-setting', 'base.yaml')));
    try {
      const out = runPlanCommand(['--base-rev', 'HEAD~1', '--format', 'json', '.'], { cwd: join(repo, 'platform', 'valkey') });
      expect(JSON.parse(out.stdout).summary).toBe('no edit to any Valkey object: 2 clusters, 2 unchanged, 0 held');
      const against = runPlanCommand(['--base-rev', 'main', '--format', 'json', '.'], { cwd: join(repo, 'platform', 'valkey') });
      expect(JSON.parse(against.stdout).summary).toMatch(/^menu edit to ValkeyConfig base: 2 clusters, 2 live/);
    } finally {
      git('checkout', '-q', '--', '.');
    }
  });

  it('plans a package the revision does not have as all new', () => {
    mkdirSync(join(repo, 'platform', 'cache'));
    copyFileSync(join(cases, 'shards-up', 'base.yaml'), join(repo, 'platform', 'cache', 'package.yaml'));
    commit('a new package');
    const out = runPlanCommand(['--base-rev', 'HEAD~1', '--format', 'json', 'platform/cache'], { cwd: repo });
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout).summary).toMatch(/^menu edits to .* \(new\) .*: 2 clusters, 2 new, 0 held$/);
  });

  it('names the files of a broken base as REV:path', () => {
    const path = join(repo, 'platform', 'cache', 'package.yaml');
    const good = readFileSync(path, 'utf8');
    writeFileSync(path, good.replace('baseRef: base', 'baseRef: bsae'));
    commit('a typo');
    writeFileSync(path, good);
    const out = runPlanCommand(['--base-rev', 'HEAD', 'platform/cache'], { cwd: repo });
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toContain('The base is invalid:');
    expect(out.stdout).toContain('    in HEAD:platform/cache/package.yaml:68:3\n');
  });

  it('refuses an unknown revision with exit 2', () => {
    const out = runPlanCommand(['--base-rev', 'no-such-branch', 'platform/valkey'], { cwd: repo });
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain('--base-rev no-such-branch: no such revision');
  });
});
