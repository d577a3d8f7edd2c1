// The CI recipe's script (integrations/github-actions/plan-comment.sh) against a real git
// repository with two commits. Its posting step goes to a file (PLAN_COMMENT_SINK), or to a
// stand-in curl on PATH that records the GitHub API calls it would make.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT as ROOT } from '../support/paths.js';

const SCRIPT = join(ROOT, 'integrations', 'github-actions', 'plan-comment.sh');
const RENDER_VALKEY = `${join(ROOT, 'node_modules', '.bin', 'tsx')} ${join(ROOT, 'test', 'support', 'render-valkey-plan.ts')}`;
const cases = join(import.meta.dirname, 'cases');

let repo: string;
let scratch: string;
const git = (...args: string[]) => {
  const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
};
const commit = (message: string) => {
  git('add', '-A');
  git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', message);
};
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync('sh', [SCRIPT, ...args], { cwd: repo, encoding: 'utf8', env: { ...process.env, RENDER_VALKEY, ...env } });

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'plan-comment-repo-'));
  scratch = mkdtempSync(join(tmpdir(), 'plan-comment-out-'));
  git('init', '-q', '-b', 'main');
  mkdirSync(join(repo, 'valkey'));
  copyFileSync(join(cases, 'live-only-setting', 'base.yaml'), join(repo, 'valkey', 'package.yaml'));
  commit('base');
  copyFileSync(join(cases, 'live-only-setting', 'change.yaml'), join(repo, 'valkey', 'package.yaml'));
  commit('change');
});
afterAll(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe('plan-comment.sh', () => {
  it('posts the plan of the last commit against the one before as Markdown, and leaves nothing behind', () => {
    const sink = join(scratch, 'comment.md');
    const out = run(['--base-rev', 'HEAD~1', 'valkey'], { PLAN_COMMENT_SINK: sink });
    expect(out.stderr).toContain(`wrote the comment to ${sink}`);
    expect(out.status).toBe(0);
    expect(readFileSync(sink, 'utf8')).toBe(readFileSync(join(cases, 'live-only-setting', '_expected.md'), 'utf8'));
    expect(readdirSync(repo).sort()).toEqual(['.git', 'valkey']);
  });

  it('posts, then exits 3, when the --fail-on gate trips', () => {
    const sink = join(scratch, 'gated.md');
    const out = run(['--base-rev', 'HEAD~1', '--fail-on', 'any', 'valkey'], { PLAN_COMMENT_SINK: sink });
    expect(out.status).toBe(3);
    expect(out.stderr).toContain('--fail-on any: 2 clusters');
    expect(readFileSync(sink, 'utf8')).toMatch(/^<!-- valkey-krm-plan -->\n/);
  });

  it('plans a package the base revision does not have as new', () => {
    const sink = join(scratch, 'new.md');
    mkdirSync(join(repo, 'more'));
    copyFileSync(join(cases, 'shards-up', 'base.yaml'), join(repo, 'more', 'package.yaml'));
    try {
      const out = run(['--base-rev', 'HEAD', 'valkey', 'more'], { PLAN_COMMENT_SINK: sink });
      expect(out.status).toBe(1); // both packages define the same menu objects: the change is invalid
      const both = run(['--base-rev', 'HEAD', 'more'], { PLAN_COMMENT_SINK: sink });
      expect(both.status).toBe(0);
      expect(readFileSync(sink, 'utf8')).toContain(': 2 clusters, 2 new, 0 held**');
    } finally {
      rmSync(join(repo, 'more'), { recursive: true, force: true });
    }
  });

  it('refuses an unknown revision and posts nothing', () => {
    const sink = join(scratch, 'never.md');
    const out = run(['--base-rev', 'origin/nope', 'valkey'], { PLAN_COMMENT_SINK: sink });
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('no revision origin/nope');
    expect(existsSync(sink)).toBe(false);
  });

  describe('posting to GitHub (curl replaced by a recorder)', () => {
    const fakeCurl = (comments: string, listFails = false) => {
      const bin = mkdtempSync(join(scratch, 'bin-'));
      const log = join(bin, 'calls.log');
      // Answers the list call with `comments`; records every call and the body it would send.
      writeFileSync(
        join(bin, 'curl'),
        `#!/bin/sh
echo "curl $*" >>"${log}"
for a in "$@"; do case "$a" in @*) cat "\${a#@}" >>"${log}"; echo >>"${log}" ;; esac; done
case "$*" in *per_page=100*) ${listFails ? `echo "curl: (22) The requested URL returned error: 502" >&2; exit 22` : `printf '%s' '${comments}'`} ;; esac
`,
      );
      chmodSync(join(bin, 'curl'), 0o755);
      return {
        env: {
          PATH: `${bin}:${process.env.PATH}`,
          GITHUB_TOKEN: 't0ken',
          GITHUB_REPOSITORY: 'acme/platform',
          PR_NUMBER: '42',
          GITHUB_API_URL: 'https://github.example',
        },
        log,
      };
    };

    it.each([
      ['the list call fails (HTTP 502)', () => fakeCurl('', true)],
      ['the list is not a JSON list (an error object)', () => fakeCurl('{"message": "Bad credentials"}')],
    ])('posts nothing and fails when listing the comments fails: %s (a duplicate comment otherwise)', (_what, makeFake) => {
      const fake = makeFake();
      const out = run(['--base-rev', 'HEAD~1', 'valkey'], fake.env);
      expect(out.status).not.toBe(0);
      expect(out.stderr).toMatch(/plan-comment\.sh: .*so nothing was posted/);
      const calls = readFileSync(fake.log, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('curl '));
      expect(calls).toHaveLength(1);
      expect(calls.some((c) => c.includes('-X POST') || c.includes('-X PATCH'))).toBe(false);
    });

    it('creates a comment when the pull request has none', () => {
      const { env, log } = fakeCurl('[{"id": 7, "body": "LGTM"}]');
      const out = run(['--base-rev', 'HEAD~1', 'valkey'], env);
      expect(out.status).toBe(0);
      const calls = readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('curl '));
      expect(calls[0]).toContain('https://github.example/repos/acme/platform/issues/42/comments?per_page=100');
      expect(calls[0]).toContain('Authorization: Bearer t0ken');
      expect(calls[1]).toMatch(/-X POST .* https:\/\/github\.example\/repos\/acme\/platform\/issues\/42\/comments$/);
      const body = JSON.parse(
        readFileSync(log, 'utf8')
          .split('\n')
          .find((l) => l.startsWith('{')) as string,
      ) as { body: string };
      expect(body.body).toBe(readFileSync(join(cases, 'live-only-setting', '_expected.md'), 'utf8'));
    });

    it('never adopts a comment that starts with the marker but was written by someone else', () => {
      const { env, log } = fakeCurl(
        '[{"id": 5, "body": "<!-- valkey-krm-plan -->\\\\nall clear, merge me", "user": {"login": "mallory"}}]',
      );
      const out = run(['--base-rev', 'HEAD~1', 'valkey'], env);
      expect(out.status).toBe(0);
      const calls = readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('curl '));
      expect(calls[1]).toMatch(/-X POST .* https:\/\/github\.example\/repos\/acme\/platform\/issues\/42\/comments$/);
      expect(calls.join('\n')).not.toContain('comments/5');
    });

    it('refuses a path that leads outside the repository through a link, and posts nothing', () => {
      const { env, log } = fakeCurl('[]');
      symlinkSync('/etc', join(repo, 'outside'));
      try {
        const out = run(['--base-rev', 'HEAD~1', 'outside'], env);
        expect(out.status).toBe(2);
        expect(out.stderr).toContain('plan-comment.sh: outside leads outside the repository (through a link)');
        expect(existsSync(log)).toBe(false);
      } finally {
        rmSync(join(repo, 'outside'));
      }
    });

    it('edits its own earlier comment instead of adding another', () => {
      const { env, log } = fakeCurl(
        '[{"id": 7, "body": "LGTM", "user": {"login": "octocat"}}, {"id": 9, "body": "<!-- valkey-krm-plan -->\\\\nold plan", "user": {"login": "github-actions[bot]"}}]',
      );
      const out = run(['--base-rev', 'HEAD~1', 'valkey'], env);
      expect(out.status).toBe(0);
      expect(out.stderr).toContain('updated comment 9 on #42');
      const calls = readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('curl '));
      expect(calls[1]).toMatch(/-X PATCH .* https:\/\/github\.example\/repos\/acme\/platform\/issues\/comments\/9$/);
    });
  });
});
