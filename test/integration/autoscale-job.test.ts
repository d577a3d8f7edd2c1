// The autoscaling job (integrations/autoscale/autoscale-commit.sh), run as a schedule would run
// it: kubectl against a real kube-apiserver with the generated CRDs, where status.autoscaling says
// what the controller decided, and a real git repository holding the packages. Each decision
// becomes one commit that changes one line, with the reason and render-valkey plan's words in its
// message; a decision git already has makes no commit; --dry-run changes nothing.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTools, type ApiServer } from '../support/apiserver.js';
import { run } from '../support/exec.js';
import { binDir, copyTree, tempDirs } from '../support/files.js';
import { show, startWithCrds } from '../support/kubectl.js';
import { createNamespaces } from '../support/namespaces.js';
import { repoPath } from '../support/paths.js';

const tmp = tempDirs('autoscale-job');
let api: ApiServer;
let env: NodeJS.ProcessEnv;
let repo: string;
const SCRIPT = repoPath('integrations/autoscale/autoscale-commit.sh');
const SEARCH = 'valkey/teams/search.yaml';

const git = (args: string[]) => run('git', args, { cwd: repo, env });
const job = (...args: string[]) => run('sh', [join(repo, 'autoscale-commit.sh'), ...args, 'valkey'], { cwd: repo, env });
const patchStatus = (ns: string, name: string, autoscaling: Record<string, unknown>) =>
  api.kubectl([
    'patch',
    'valkeycluster',
    name,
    '-n',
    ns,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { autoscaling } }),
  ]);

beforeAll(async () => {
  await ensureTools();
  ({ api } = await startWithCrds());
  await createNamespaces(api, ['search', 'payments', 'orphans']);
  env = {
    ...binDir(tmp.make('bin')).env,
    KUBECTL: `kubectl --kubeconfig ${api.kubeconfigPath}`,
    GIT_AUTHOR_NAME: 'autoscaler',
    GIT_AUTHOR_EMAIL: 'autoscaler@example.com',
    GIT_COMMITTER_NAME: 'autoscaler',
    GIT_COMMITTER_EMAIL: 'autoscaler@example.com',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
  repo = tmp.make('repo');
  expect((await run('git', ['init', '--quiet', '--initial-branch=main', repo], { env })).code).toBe(0);
  copyTree(repoPath('kptfile-examples/team-clusters'), join(repo, 'valkey'));
  copyTree(SCRIPT, join(repo, 'autoscale-commit.sh'));
  chmodSync(join(repo, 'autoscale-commit.sh'), 0o755);
  expect((await git(['add', '.'])).code).toBe(0);
  expect((await git(['commit', '--quiet', '-m', 'packages'])).code).toBe(0);
  // The clusters as Argo CD or Flux applied them, and one that is in no file of this repository.
  const applied = await api.kubectl(['apply', '--server-side', '--field-manager=gitops', '-f', join(repo, SEARCH)]);
  expect(applied.code, show(applied)).toBe(0);
  const orphan = await api.kubectl(['apply', '--server-side', '--field-manager=gitops', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'valkey.gomomento.com/v1alpha1',
      kind: 'ValkeyCluster',
      metadata: { name: 'elsewhere', namespace: 'orphans' },
      spec: { configRef: 'standard', shards: 1, replicasPerShard: 0 },
    }),
  });
  expect(orphan.code, show(orphan)).toBe(0);
}, 300_000);

afterAll(async () => {
  await api?.stop();
  tmp.cleanup();
});

const REASON = "shard 1's primary suggest-1-0 at 91% of maxmemory, above memoryPercent 80";

describe('autoscale-commit.sh against a kube-apiserver and a git repository', () => {
  it('no decision differs from git: no commit, exit 0', async () => {
    const head = (await git(['rev-parse', 'HEAD'])).stdout;
    const r = await job();
    expect(r.code, r.stderr).toBe(0);
    expect((await git(['rev-parse', 'HEAD'])).stdout).toBe(head);
  });

  it('--dry-run prints the commit it would make and changes nothing', async () => {
    const set = await patchStatus('search', 'suggest', {
      desiredShards: 3,
      lastDecision: 'ScaleOut',
      lastDecisionReason: REASON,
      lastDecisionTime: '2026-01-01T00:00:00Z',
      lastDecisionFromShards: 2,
    });
    expect(set.code, show(set)).toBe(0);
    const before = readFileSync(join(repo, SEARCH), 'utf8');
    const r = await job('--dry-run');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('autoscale search/suggest: ScaleOut, shards 2 -> 3');
    expect(r.stdout).toContain(`--- would commit ${join(repo, SEARCH)}`);
    expect(readFileSync(join(repo, SEARCH), 'utf8')).toBe(before);
    expect((await git(['status', '--porcelain'])).stdout).toBe('');
  });

  it('a decision becomes one commit of one line, with the reason and the plan in its message', async () => {
    const before = readFileSync(join(repo, SEARCH), 'utf8');
    const r = await job();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`search/suggest: committed 2 -> 3 shard(s) in ${join(repo, SEARCH)}`);
    const diff = await git(['show', '--format=', '--unified=0', 'HEAD']);
    expect(diff.stdout.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual(['-  shards: 2', '+  shards: 3']);
    expect(readFileSync(join(repo, SEARCH), 'utf8')).toBe(before.replace('  shards: 2\n', '  shards: 3\n'));
    const message = (await git(['log', '-1', '--format=%B'])).stdout;
    expect(message).toMatch(/^autoscale search\/suggest: ScaleOut, shards 2 -> 3\n\n/);
    expect(message).toContain(REASON);
    // render-valkey plan's own words for the change: a scale of search/suggest, slots to move.
    expect(message).toMatch(/search\/suggest/);
    expect(message).toMatch(/scale/i);
    expect((await git(['status', '--porcelain'])).stdout).toBe('');
  });

  it('run again before the sync applied it: git already has it, no second commit', async () => {
    const head = (await git(['rev-parse', 'HEAD'])).stdout;
    const r = await job();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('search/suggest: git already has 3 shard(s)');
    expect((await git(['rev-parse', 'HEAD'])).stdout).toBe(head);
  });

  it('a cluster no file defines: reported, exit 1, and the others still committed', async () => {
    expect((await patchStatus('orphans', 'elsewhere', { desiredShards: 2 })).code).toBe(0);
    expect(
      (await api.kubectl(['patch', 'valkeycluster', 'suggest', '-n', 'search', '--type=merge', '-p', '{"spec":{"shards":3}}'])).code,
    ).toBe(0);
    expect(
      (
        await patchStatus('search', 'suggest', {
          desiredShards: 2,
          lastDecision: 'ScaleIn',
          lastDecisionReason: 'quiet',
          lastDecisionFromShards: 3,
        })
      ).code,
    ).toBe(0);
    const r = await job();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no file defines ValkeyCluster orphans/elsewhere');
    expect(r.stdout).toContain('search/suggest: committed 3 -> 2 shard(s)');
    expect((await git(['log', '-1', '--format=%s'])).stdout.trim()).toBe('autoscale search/suggest: ScaleIn, shards 3 -> 2');
  });

  it('a stale decision over a newer count in git (ScaleOut 3 -> 4, git says 10): refused, nothing committed, the file as it was', async () => {
    expect((await patchStatus('orphans', 'elsewhere', { desiredShards: 1 })).code).toBe(0);
    const newer = readFileSync(join(repo, SEARCH), 'utf8').replace('  shards: 2\n', '  shards: 10\n');
    writeFileSync(join(repo, SEARCH), newer);
    expect((await git(['commit', '--quiet', '-am', 'search/suggest: 10 shards for the sale'])).code).toBe(0);
    const head = (await git(['rev-parse', 'HEAD'])).stdout;
    const set = await patchStatus('search', 'suggest', {
      desiredShards: 4,
      lastDecision: 'ScaleOut',
      lastDecisionReason: REASON,
      lastDecisionTime: '2026-01-01T00:00:00Z',
      lastDecisionFromShards: 3,
    });
    expect(set.code, show(set)).toBe(0);
    const r = await job();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('has spec.shards 10 in git, not 3, the count the decision to go to 4 was made from');
    expect(r.stderr).toContain('search/suggest: ScaleOut 3 -> 4 is stale');
    expect((await git(['rev-parse', 'HEAD'])).stdout).toBe(head);
    expect(readFileSync(join(repo, SEARCH), 'utf8')).toBe(newer);
    expect((await git(['status', '--porcelain'])).stdout).toBe('');
    await git(['reset', '--quiet', '--hard', 'HEAD~1']);
  });

  it('--branch --push: the decision on its own branch, pushed, AUTOSCALE_OPEN_PR called once; main left alone; run again, skipped', async () => {
    const remote = tmp.make('remote.git');
    expect((await run('git', ['init', '--quiet', '--bare', remote], { env })).code).toBe(0);
    expect((await git(['remote', 'add', 'origin', remote])).code).toBe(0);
    expect((await git(['push', '--quiet', 'origin', 'main'])).code).toBe(0);
    expect((await patchStatus('orphans', 'elsewhere', { desiredShards: 1 })).code).toBe(0);
    // The 3 -> 2 commit is synced; the controller proposes 2 -> 3.
    expect(
      (await api.kubectl(['patch', 'valkeycluster', 'suggest', '-n', 'search', '--type=merge', '-p', '{"spec":{"shards":2}}'])).code,
    ).toBe(0);
    expect(
      (
        await patchStatus('search', 'suggest', {
          desiredShards: 3,
          lastDecision: 'ScaleOut',
          lastDecisionReason: REASON,
          lastDecisionFromShards: 2,
        })
      ).code,
    ).toBe(0);
    const head = (await git(['rev-parse', 'main'])).stdout;
    const opened = join(tmp.make('opened'), 'calls');
    // What a forge's CLI (gh pr create, glab mr create) would be given; no forge is reachable here.
    const openPr = `printf '%s|%s|%s\\n' "$AUTOSCALE_BRANCH" "$AUTOSCALE_TITLE" "$(printf '%s' "$AUTOSCALE_BODY" | sed -n 3p)" >> ${opened}`;
    const withPr = { ...env, AUTOSCALE_OPEN_PR: openPr };
    const branchJob = () =>
      run('sh', [join(repo, 'autoscale-commit.sh'), '--branch', 'autoscale', '--push', 'valkey'], { cwd: repo, env: withPr });

    const r = await branchJob();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^search\/suggest: committed 2 -> 3 shard\(s\) in \S*valkey\/teams\/search\.yaml on branch autoscale\/search-suggest-3$/m,
    );
    // main and the working tree as they were; the branch on origin holds one commit of one line.
    expect((await git(['symbolic-ref', '--short', 'HEAD'])).stdout.trim()).toBe('main');
    expect((await git(['rev-parse', 'main'])).stdout).toBe(head);
    expect((await git(['status', '--porcelain'])).stdout).toBe('');
    const onRemote = await run('git', ['--git-dir', remote, 'log', '--format=%s', 'main..autoscale/search-suggest-3'], { env });
    expect(onRemote.stdout.trim()).toBe('autoscale search/suggest: ScaleOut, shards 2 -> 3');
    const diff = await run('git', ['--git-dir', remote, 'show', '--format=', '--unified=0', 'autoscale/search-suggest-3'], { env });
    expect(diff.stdout.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual(['-  shards: 2', '+  shards: 3']);
    expect(readFileSync(opened, 'utf8')).toBe(`autoscale/search-suggest-3|autoscale search/suggest: ScaleOut, shards 2 -> 3|${REASON}\n`);

    // The next scheduled run: the proposal is open (its branch is on origin), nothing new.
    await git(['branch', '--quiet', '-D', 'autoscale/search-suggest-3']);
    const again = await branchJob();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('search/suggest: 2 -> 3 shard(s) is proposed on branch autoscale/search-suggest-3 already');
    expect(readFileSync(opened, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    expect((await git(['status', '--porcelain'])).stdout).toBe('');
  });
});
