// One story in the docs (issue 35): status is documented once, from the names the code writes;
// every metric the controller exports is listed, and every one listed exists; every file a page
// cites is there.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONDITION, EVENT, REASON, STATE } from '../../src/api/status-names.js';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { filesUnder } from '../support/files.js';
import { repoPath } from '../support/paths.js';

const DOC_DIRS = ['docs', 'contributing', 'integrations', 'functions', 'kptfile-examples', 'deploy'];
const pages = [
  'README.md',
  'CHANGELOG.md',
  ...DOC_DIRS.flatMap((d) =>
    filesUnder(repoPath(d))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(d, f)),
  ),
];
const text = (file: string): string => readFileSync(repoPath(file), 'utf8');

describe('status is documented once, from src/api/status-names.ts', () => {
  const status = text('docs/status.md');
  const names = [
    ...Object.values(STATE),
    ...Object.values(CONDITION),
    ...Object.values(REASON).flatMap((reasons) => Object.values(reasons)),
    ...Object.values(EVENT),
  ];

  it('docs/status.md names every state, condition, reason and Event reason the controller writes', () => {
    expect([...new Set(names)].filter((name) => !status.includes(`\`${name}\``))).toEqual([]);
  });

  it('its table of states has exactly the states status writes', () => {
    const table = status.slice(status.indexOf('## States'), status.indexOf('## Conditions'));
    const rows = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(Object.values(STATE));
  });

  it('no other page keeps a list of its own (three states or more within a sentence or two, or "N states")', () => {
    const own: string[] = [];
    const mention = new RegExp(`\`(${Object.values(STATE).join('|')})\``, 'g');
    // The Argo CD recipe maps each state to a health status, monitoring.md to an alert; the changelog is history.
    const MAPS = ['docs/status.md', 'integrations/argocd/README.md', 'docs/monitoring.md', 'CHANGELOG.md'];
    for (const page of pages.filter((p) => !MAPS.includes(p))) {
      const at = [...text(page).matchAll(mention)].map((m) => ({ state: m[1], index: m.index }));
      for (const [i, first] of at.entries()) {
        const near = new Set(
          at
            .slice(i)
            .filter((m) => m.index - first.index < 250)
            .map((m) => m.state),
        );
        if (near.size >= 3) {
          own.push(`${page}: ${[...near].join(', ')}`);
          break;
        }
      }
      if (/\b(four|five|six) states\b/i.test(text(page))) own.push(`${page}: "N states"`);
    }
    expect(own).toEqual([]);
  });
});

describe('metrics', () => {
  it('docs/controller.md lists every metric the controller exports, and only those', async () => {
    const exported = (await controllerMetrics().registry.getMetricsAsJSON())
      .map((m) => m.name)
      .filter((name) => name.startsWith('valkey_'))
      .sort();
    const listed = [...new Set([...text('docs/controller.md').matchAll(/^\| `(valkey_\w+)` \|/gm)].map((m) => m[1]))].sort();
    expect(listed).toEqual(exported);
    const mentioned = new Set(pages.flatMap((page) => [...text(page).matchAll(/\bvalkey_status_sync_\w+/g)].map((m) => m[0])));
    expect([...mentioned].filter((name) => !exported.includes(name.replace(/_(bucket|sum|count)$/, '')))).toEqual([]);
  });
});

describe('cited files', () => {
  it('every repository path a page cites in backticks exists', () => {
    const ROOTS = /^(src|test|bench|scripts|docs|deploy|crds|schemas|integrations|functions|kptfile-examples)\//;
    // Paths in the user's repository, not this one: the Flux recipe's rendered output.
    const THEIRS = new Set(['integrations/flux/README.md: deploy/valkey', 'integrations/flux/README.md: deploy/valkey/valkey.yaml']);
    const missing: string[] = [];
    for (const page of pages) {
      for (const m of text(page).matchAll(/`([\w./-]+)`/g)) {
        const path = (m[1] as string).replace(/[.,:;]$/, '');
        if (!ROOTS.test(path) || path.includes('*') || path.includes('<')) continue;
        if (!existsSync(repoPath(path.replace(/\/$/, ''))) && !THEIRS.has(`${page}: ${path}`)) missing.push(`${page}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
