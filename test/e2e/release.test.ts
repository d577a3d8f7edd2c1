// One release, one version, one image name (issue 35): what a platform team pins must say the same
// thing everywhere it is written, and every command must tell which release it is.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../support/exec.js';
import { RENDER, VALIDATE, repoPath } from '../support/paths.js';

const manifest = JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as {
  version: string;
  license: string;
  repository: { url: string };
  config: { image: string };
};
const VERSION = manifest.version;
const IMAGE = manifest.config.image;
const STATUS_SYNC = 'dist/valkey-status-sync.mjs';

/** Every file git tracks, as text (binary files have no image names). */
function trackedTexts(): Array<[string, string]> {
  const names = execFileSync('git', ['ls-files', '-z'], { cwd: repoPath(), encoding: 'utf8' }).split('\0').filter(Boolean);
  return names
    .filter((name) => !/\.(png|tgz|gz|ico)$/.test(name) && name !== 'package-lock.json')
    .map((name): [string, string] => [name, readFileSync(repoPath(name), 'utf8')]);
}

describe('the release', () => {
  it('is a semantic version, with a CHANGELOG section of its own', () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    const changelog = readFileSync(repoPath('CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(new RegExp(`^## \\[${VERSION.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
  });

  it.each([
    [RENDER, 'render-valkey'],
    [VALIDATE, 'validate-valkey'],
    [STATUS_SYNC, 'valkey-status-sync'],
  ])('%s --version prints the package version', async (bundle, name) => {
    const r = await run(process.execPath, [bundle, '--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${name} ${VERSION}\n`, stderr: '' });
  });

  it('is licensed as package.json, the image label and the function metadata say', () => {
    expect(manifest.license).toBe('Apache-2.0');
    const license = readFileSync(repoPath('LICENSE'), 'utf8');
    expect(license).toContain('Apache License');
    expect(license).toContain('Version 2.0, January 2004');
    expect(readFileSync(repoPath('NOTICE'), 'utf8')).toContain('Apache License, Version 2.0');
    expect(readFileSync(repoPath('Dockerfile'), 'utf8')).toContain('org.opencontainers.image.licenses="Apache-2.0"');
    for (const fn of ['render-valkey', 'validate-valkey']) {
      const meta = parse(readFileSync(repoPath(`functions/${fn}/metadata.yaml`), 'utf8')) as Record<string, unknown>;
      expect(meta.license, fn).toBe('Apache-2.0');
      expect(meta.image, fn).toBe(IMAGE);
      expect(String(meta.sourceURL), fn).toMatch(new RegExp(`^${manifest.repository.url}/`));
    }
  });

  it('the image label carries the version the build was given (scripts/build-image.sh passes package.json’s)', () => {
    const dockerfile = readFileSync(repoPath('Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ARG VERSION$/m);
    expect(dockerfile).toMatch(/org\.opencontainers\.image\.version="\$\{VERSION\}"/);
    expect(readFileSync(repoPath('scripts/build-image.sh'), 'utf8')).toContain('--build-arg "VERSION=$version"');
  });

  it('names one image everywhere, at this version, and no placeholder is left in anything a user copies', () => {
    const refs = new Map<string, string[]>();
    const leftovers: string[] = [];
    for (const [name, text] of trackedTexts()) {
      if (name === 'test/e2e/release.test.ts') continue;
      if (/example\/valkey-krm|valkey-krm@example\.com/.test(text)) leftovers.push(name);
      for (const m of text.matchAll(/ghcr\.io\/[\w.-]+\/valkey-krm(?::([\w.-]+))?/g)) {
        const at = refs.get(m[0]) ?? [];
        at.push(name);
        refs.set(m[0], at);
      }
    }
    expect(leftovers).toEqual([]);
    const names = [...refs.keys()].map((ref) => ref.replace(/:.*/, ''));
    expect(new Set(names)).toEqual(new Set([IMAGE]));
    const tags = [...refs.keys()].filter((ref) => ref.includes(':')).map((ref) => ref.slice(IMAGE.length + 1));
    expect(new Set(tags)).toEqual(new Set([VERSION]));
  });
});
