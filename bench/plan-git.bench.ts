// npx tsx bench/plan-git.bench.ts: peak memory of `render-valkey plan --base-rev` on a repository
// whose planned package sits next to (and holds) large files. The base side comes from
// `git archive`, which now goes through a file: the process never holds the archive in memory
// (before, a 300 MB repository took the plan to 643 MB). Prints the plan's peak RSS (GNU time).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MB = Number(process.env.BENCH_MB ?? 300);
const repo = mkdtempSync(join(tmpdir(), 'plan-git-bench-'));
const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
try {
  git('init', '-q', '-b', 'main');
  cpSync('kptfile-examples/tshirt-sizes', join(repo, 'pkg'), { recursive: true });
  // Incompressible bytes in the planned directory (not YAML, so never read, but archived).
  for (let i = 0; i < MB / 50; i++) writeFileSync(join(repo, 'pkg', `blob-${i}.bin`), randomBytes(50 << 20));
  git('add', '-A');
  git('-c', 'user.name=b', '-c', 'user.email=b@example.com', 'commit', '-q', '-m', 'base');
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M %e', process.execPath, join(process.cwd(), 'dist/render-valkey.cjs'), 'plan', '--base-rev', 'HEAD', 'pkg'],
    {
      cwd: repo,
      encoding: 'utf8',
    },
  );
  const [kb, seconds] = (r.stderr.trim().split('\n').pop() ?? '').split(' ');
  console.log(
    `plan --base-rev over ${MB} MB in the planned package: exit ${r.status}, peak RSS ${Math.round(Number(kb) / 1024)} MiB, ${seconds} s`,
  );
} finally {
  rmSync(repo, { recursive: true, force: true });
}
