// The function docs in kpt catalog style (functions/<name>/README.md and metadata.yaml) stay
// true: the README's usage block is the real --help output, the metadata points at packages
// that exist, and scripts/build.mjs never mistakes a docs folder for an entry point.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../support/exec.js';
import { repoPath } from '../support/paths.js';

const FUNCTIONS = ['render-valkey', 'validate-valkey'] as const;

/** The fenced code blocks of a Markdown file, without their fences. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
}

describe.each(FUNCTIONS)('functions/%s', (name) => {
  const dir = repoPath('functions', name);
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');

  it('README.md shows the exact --help output in its usage block', async () => {
    const help = await run(process.execPath, [repoPath('dist', `${name}.cjs`), '--help']);
    expect(help.code).toBe(0);
    const usage = readme.slice(readme.indexOf('\n## Usage\n'));
    expect(codeBlocks(usage)[0]).toBe(`$ ${name} --help\n${help.stdout}`);
  });

  it('README.md has the catalog sections: overview, usage, functionConfig, examples', () => {
    const headings = [...readme.matchAll(/^#{1,3} (.+)$/gm)].map((m) => m[1]);
    expect(headings[0]).toBe(name);
    expect(headings).toEqual(expect.arrayContaining(['Overview', 'Usage', 'FunctionConfig', 'Examples']));
    expect(readme.indexOf('## Overview')).toBeLessThan(readme.indexOf('## Usage'));
    expect(readme.indexOf('## Usage')).toBeLessThan(readme.indexOf('## Examples'));
  });

  it('relative links in README.md point at files that exist', () => {
    for (const [, target] of readme.matchAll(/\]\((\.[^)#]+)(?:#[^)]*)?\)/g)) {
      expect(existsSync(join(dir, target as string)), target).toBe(true);
    }
  });

  it('metadata.yaml has the catalog fields, and its example packages exist', () => {
    const meta = parse(readFileSync(join(dir, 'metadata.yaml'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(meta).sort()).toEqual(['description', 'examplePackageURLs', 'image', 'license', 'sourceURL', 'tags']);
    expect(meta.image).toMatch(/^[a-z0-9./-]+$/);
    expect(meta.sourceURL).toMatch(new RegExp(`/functions/${name}$`));
    expect(meta.license).toBe('Apache-2.0');
    const urls = meta.examplePackageURLs as string[];
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      const pkg = /\/(kptfile-examples\/[^/]+)$/.exec(url)?.[1];
      expect(pkg && existsSync(repoPath(pkg, 'Kptfile')), url).toBe(true);
    }
  });
});

describe('functions/', () => {
  it('docs folders hold no TypeScript, so scripts/build.mjs (functions/*.ts) never bundles them', () => {
    const folders = readdirSync(repoPath('functions')).filter((f) => statSync(repoPath('functions', f)).isDirectory());
    expect(folders.sort()).toEqual([...FUNCTIONS].sort());
    for (const f of folders) expect(readdirSync(repoPath('functions', f)).sort()).toEqual(['README.md', 'metadata.yaml']);
    for (const f of FUNCTIONS) expect(existsSync(repoPath('functions', `${f}.ts`))).toBe(true);
  });
});
