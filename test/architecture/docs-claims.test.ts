// The docs say what the code does: the README stays a quickstart, no page claims that a feature
// the code has is missing, every server version a page says the product is tested on is one the
// tests run, benchmark figures live on one page, and every relative link resolves.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../support/files.js';
import { repoPath } from '../support/paths.js';
import { VALKEY_VERSION } from '../support/valkey.js';

const DOC_DIRS = ['docs', 'contributing', 'integrations', 'functions', 'kptfile-examples', 'deploy'];
const docs = [
  'README.md',
  ...DOC_DIRS.flatMap((d) =>
    filesUnder(repoPath(d))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(d, f)),
  ),
];
const text = (file: string): string => readFileSync(repoPath(file), 'utf8');

/** Sentences that once said a shipped feature was missing; each is false today. */
const STALE_CLAIMS: RegExp[] = [
  /not in this version/i,
  /has not run here/i,
  /Valkey 9(\.x)? (has|have) not run/i,
  /(servers|builds|binaries) (tested )?here predate 9/i,
  /(failover-first|slot migration|ACL LOAD|TLS reload)[^.]*\b(not (yet )?(implemented|supported|done)|follows? later)/i,
  /pods are Debian's `?redis-server/i,
  /Debian's `redis-server` in cluster mode as the "pods"/i,
];

describe('the docs', () => {
  it('the README is a quickstart: under 2,000 words, opening with the two commands', () => {
    const readme = text('README.md');
    expect(readme.split(/\s+/).filter(Boolean).length).toBeLessThan(2_000);
    const first = /```sh\n([\s\S]*?)```/.exec(readme)?.[1]?.split('\n').filter(Boolean) ?? [];
    expect(first[0]).toMatch(/^npm ci && npm run example\b/);
    expect(first[1]).toMatch(/^bash scripts\/test-all\.sh\b/);
  });

  it.each(docs)('%s claims no shipped feature is missing', (file) => {
    const hits = STALE_CLAIMS.filter((re) => re.test(text(file))).map(String);
    expect(hits).toEqual([]);
  });

  it('every Valkey version a page says the product is tested or measured on is one the tests run', () => {
    const run = new Set(Object.values(VALKEY_VERSION));
    const claims = docs.flatMap((file) =>
      [
        ...text(file).matchAll(
          /\b(?:tested|runs?|proven|measured|benchmarked) (?:on|against|with) (?:real )?(?:the supported )?Valkey \**(\d+\.\d+(?:\.\d+)?)/gi,
        ),
      ].map((m) => ({ file, version: m[1] as string })),
    );
    expect(claims.length).toBeGreaterThan(0);
    expect(claims.filter((c) => ![...run].some((v) => v === c.version || v.startsWith(`${c.version}.`)))).toEqual([]);
  });

  it('benchmark figures (slots/s, keys/s) are not stated in the README (docs/figures/ holds them)', () => {
    expect(text('README.md')).not.toMatch(/\d[\d,.]*\s*(slots|keys)\/s/);
  });

  it.each(docs)('%s: every relative link resolves', (file) => {
    const broken = [...text(file).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
      .map((m) => m[1] as string)
      .filter((target) => !/^[a-z]+:/.test(target))
      .filter((target) => !existsSync(join(repoPath(dirname(file)), target)));
    expect(broken).toEqual([]);
  });
});
