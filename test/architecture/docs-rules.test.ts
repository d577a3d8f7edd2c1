// One story in the docs (issue 35), the rules a page can break without anyone noticing:
// one credential model (the controller key and a password hash per namespace; the single
// fleet-wide password only where a page explains the migration from it), every measured figure
// read from docs/figures/ (quoted only as a link to its file, and found in that file), and a
// set of docs a platform engineer reads in an afternoon (word budgets).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYSTEM_USERS_HINT } from '../../src/api/render-config.js';
import { USAGE } from '../../src/controller/main.js';
import { HELP } from '../../src/krm/cli/help.js';
import { filesUnder } from '../support/files.js';
import { repoPath } from '../support/paths.js';

const text = (file: string): string => readFileSync(repoPath(file), 'utf8');
const under = (dir: string, ext: RegExp): string[] =>
  filesUnder(repoPath(dir))
    .filter((f) => ext.test(f))
    .map((f) => join(dir, f));

/** What a user reads and copies: the README, docs/, and every page and example shipped next to them. */
const USER_PAGES = ['README.md', ...['docs', 'integrations', 'functions', 'kptfile-examples', 'deploy'].flatMap((d) => under(d, /\.md$/))];
const EXAMPLES = ['kptfile-examples', 'integrations', 'deploy'].flatMap((d) => under(d, /\.(ya?ml|sh)$/));

/** Words as `wc -w` counts them. */
const words = (s: string): number => s.split(/\s+/).filter(Boolean).length;

describe('one credential model', () => {
  // What only the earlier releases' single controller password needs.
  const LEGACY: RegExp[] = [
    /systemUsers\.controller\.passwordHash/,
    /controller:\s*\n\s*passwordHash:/,
    /controller:\s*\{\s*passwordHash:/,
    /valkey-controller\b[^\n]*--from-literal=password=/,
    /fleet-wide password/i,
    /fleet-namespaces/,
    /--password-file/,
    /example-controller-password/,
  ];
  /** Lines of `body` that teach the legacy model outside a section about migrating from it. */
  function teachesLegacy(body: string): string[] {
    const hits: string[] = [];
    let heading = '';
    let fence = false;
    for (const line of body.split('\n')) {
      if (line.startsWith('```')) fence = !fence;
      if (!fence && /^#{1,6} /.test(line)) heading = line;
      if (/migrat/i.test(heading) || /migrat|deprecated/i.test(line)) continue;
      if (LEGACY.some((re) => re.test(line))) hits.push(line.trim());
    }
    // Two-line forms (a YAML `controller:` then `passwordHash:`).
    if (!/migrat/i.test(body) && LEGACY.slice(1, 2).some((re) => re.test(body))) hits.push('controller: passwordHash:');
    return hits;
  }

  it.each(USER_PAGES)('%s teaches the per-namespace key, the single password only under a migration heading', (page) => {
    expect(teachesLegacy(text(page))).toEqual([]);
  });

  it('the examples (render configs, manifests, scripts) use the per-namespace hashes', () => {
    const legacy = EXAMPLES.flatMap((f) => teachesLegacy(text(f)).map((line) => `${f}: ${line}`));
    expect(legacy).toEqual([]);
  });

  it("the tools' own texts (--help, the controller's usage, the render config hint) teach it too", () => {
    const texts = { 'render-valkey --help': HELP['render-valkey'], 'valkey-status-sync --help': USAGE, SYSTEM_USERS_HINT };
    const legacy = Object.entries(texts).flatMap(([name, body]) => teachesLegacy(body).map((line) => `${name}: ${line}`));
    expect(legacy).toEqual([]);
    expect(SYSTEM_USERS_HINT).toContain('spec.systemUsers.controller.namespaces');
    expect(HELP['render-valkey']).toContain('spec.systemUsers.controller.namespaces');
  });

  it('the rule finds what it is for', () => {
    expect(teachesLegacy('## Install\nset `systemUsers.controller.passwordHash`\n')).toHaveLength(1);
    expect(teachesLegacy('## Migrating from the single password\nremove `systemUsers.controller.passwordHash`\n')).toEqual([]);
    expect(teachesLegacy('spec:\n  systemUsers:\n    controller:\n      passwordHash: abc\n')).not.toEqual([]);
  });
});

describe('every measured figure is read from docs/figures/', () => {
  const FIGURE_PAGES = USER_PAGES.filter((p) => p !== 'docs/api-reference.md');
  /** A figure is quoted as a Markdown link to its file: [34.0 s](figures/migration.txt). */
  const FIGURE_LINK = /\[([^\]]+)\]\(([^)\s#]*figures\/[\w.-]+\.(?:txt|md))(?:#[^)]*)?\)/g;
  const NUMBER = /\d[\d,]*(?:\.\d+)?/g;
  const plain = (n: string): string => n.replaceAll(',', '');
  /** A number with a unit of time, size or rate, a ratio, a count of lost writes: what a measurement looks like. */
  const MEASURE =
    /\b\d[\d,]*(?:\.\d+)?\s?(?:ms|s|min|minutes|seconds|MiB|MB|KiB|GiB|GB|µs|keys\/s|slots\/s|%)(?![\w/])|×\d+\.\d+|\b\d+\.\d+[×x](?!\w)|\b\d[\d,]* of [\d,]+ (?:acknowledged )?writes|\b\d[\d,]* (?:acknowledged )?writes (?:were )?lost/g;
  /** Words that say a sentence reports what happened on a run, not what a setting is. */
  const MEASURED =
    /measur|bench|took|\btakes\b|lost|peak|\bRSS\b|median|faster|slower|\bwall\b|per second|writes|served again|healed|\bafter the (?:crash|loss|fill)|one run|on this machine|here:/i;

  function unsourced(page: string, body: string): string[] {
    const prose = body
      .replace(/^```[\s\S]*?^```$/gm, '')
      .replace(FIGURE_LINK, '')
      .replace(/`[^`\n]*`/g, '');
    const out: string[] = [];
    for (const sentence of prose.split(/(?<=[.;:!?])\s+|\n\s*\n|\n(?=[-*|] )/)) {
      const always = [...sentence.matchAll(MEASURE)].filter((m) => /[×x]|writes/.test(m[0]));
      const hits = MEASURED.test(sentence) ? [...sentence.matchAll(MEASURE)] : always;
      for (const m of hits) out.push(`${page}: "${m[0]}" in: ${sentence.replace(/\s+/g, ' ').trim().slice(0, 160)}`);
    }
    return out;
  }

  function wrongLinks(page: string, body: string): string[] {
    const out: string[] = [];
    for (const m of body.matchAll(FIGURE_LINK)) {
      const target = normalize(join(dirname(page), m[2] as string));
      if (!target.startsWith('docs/figures/') || !existsSync(repoPath(target))) {
        out.push(`${page}: [${m[1]}] links ${m[2]}, not a file in docs/figures/`);
        continue;
      }
      const file = plain(text(target));
      for (const n of (m[1] as string).match(NUMBER) ?? [])
        if (!file.includes(plain(n))) out.push(`${page}: [${m[1]}]: ${n} is not in ${target}`);
    }
    return out;
  }

  it.each(FIGURE_PAGES)('%s quotes each measured figure as a link to the docs/figures/ file that holds it', (page) => {
    const body = text(page);
    expect([...unsourced(page, body), ...wrongLinks(page, body)]).toEqual([]);
  });

  it('the rule finds what it is for', () => {
    expect(unsourced('x.md', 'Measured here: the roll took 201.3 s.')).toHaveLength(1);
    expect(unsourced('x.md', 'Healed 55.2 s after the crash, 0 of 1,810 writes lost.')).toHaveLength(2);
    expect(unsourced('x.md', 'The roll took [201.3 s](figures/roll.txt).')).toEqual([]);
    expect(unsourced('x.md', 'A connection that sends nothing for 10 s is closed.')).toEqual([]);
    expect(unsourced('x.md', 'Plan took 1.92x a render; 3 shards × 2 replicas.')).toHaveLength(1);
    expect(wrongLinks('docs/x.md', 'The roll took [201.3 s](figures/roll.txt).')).toEqual([]);
    expect(wrongLinks('docs/x.md', 'The roll took [199.9 s](figures/roll.txt).')).toHaveLength(1);
    expect(wrongLinks('docs/x.md', 'The roll took [201.3 s](../bench/roll.bench.ts).')).toEqual([]);
  });
});

describe('word budgets: a set a platform engineer reads in an afternoon', () => {
  // docs/api-reference.md is generated from the schemas (scripts/gen-api-reference.ts) and left out:
  // it is looked up, not read through. Contributors' pages live in contributing/.
  const docs = under('docs', /\.md$/).filter((p) => p !== 'docs/api-reference.md');

  it('README.md is under 1,500 words', () => {
    expect(words(text('README.md'))).toBeLessThan(1_500);
  });

  it('docs/ is under 18,000 words (the generated API reference aside)', () => {
    const count = docs.reduce((sum, p) => sum + words(text(p)), 0);
    expect(count, docs.map((p) => `${p} ${words(text(p))}`).join('\n')).toBeLessThan(18_000);
  });

  it('no page in docs/ is more than a fifth of the budget', () => {
    expect(docs.filter((p) => words(text(p)) > 3_600)).toEqual([]);
  });
});
