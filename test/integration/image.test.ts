// The image itself, built for real with podman from the Dockerfile on the local base
// (scripts/build-image.sh): what it carries, who it runs as, how big the project's part is.
import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentTexts, resourceList } from '../support/yaml-docs.js';
import { BUILD_TIMEOUT_MS, buildImage, podman, type BuiltImage } from '../support/podman.js';
import { packageFiles } from '../support/files.js';
import { repoPath } from '../support/paths.js';
import { parseObjects } from '../support/yaml-docs.js';

let built: BuiltImage;
beforeAll(async () => {
  built = await buildImage();
  console.info(built.report);
}, BUILD_TIMEOUT_MS);

const ENTRY_POINTS = readdirSync(repoPath('functions'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();

const inspect = async (image: string, format: string): Promise<string> => {
  const r = await podman(built, ['image', 'inspect', '--format', format, image]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
};

describe('the image built with podman from the Dockerfile, on the local base', () => {
  it('adds only a few MiB to its base: the bundles, no node_modules and no sources', async () => {
    const size = Number(await inspect(built.image, '{{.Size}}'));
    const base = Number(await inspect(built.base, '{{.Size}}'));
    expect(size - base).toBeGreaterThan(0);
    expect(size - base, built.report).toBeLessThan(8 * 1024 * 1024);
    const r = await podman(built, ['run', '--rm', '--network', 'none', '--entrypoint', 'find', built.image, '/opt', '/src']);
    expect(r.code, r.stderr).toBe(0);
    const files = r.stdout.trim().split('\n');
    expect(files.filter((f) => /node_modules|\.ts$/.test(f))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining(ENTRY_POINTS.map((e) => expect.stringMatching(new RegExp(`^/opt/valkey-krm/${e}\\.[cm]js$`)))),
    );
  });

  it.each(ENTRY_POINTS)('carries %s on PATH, and it runs', async (entry) => {
    const r = await podman(built, ['run', '--rm', '--network', 'none', '--entrypoint', entry, built.image, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(entry);
  });

  it('runs as a non-root user by default, with render-valkey as its entrypoint', async () => {
    expect(await inspect(built.image, '{{.Config.User}}')).toBe('65532:65532');
    expect(await inspect(built.image, '{{json .Config.Entrypoint}}')).toBe('["/usr/local/bin/render-valkey"]');
    const r = await podman(built, ['run', '--rm', '--network', 'none', '--entrypoint', 'id', built.image, '-u']);
    expect(r).toMatchObject({ code: 0, stdout: '65532\n' });
  });

  // kpt runs functions as nobody; Argo CD's sidecar as 999.
  it.each(['nobody', '999:999'])('runs as user %s too', async (user) => {
    const r = await podman(built, ['run', '--rm', '--network', 'none', '--user', user, built.image, '--version']);
    expect(r).toMatchObject({ code: 0, stdout: 'render-valkey 0.1.0\n' });
  });

  it('the default entrypoint is a KRM function: a ResourceList in, a rendered ResourceList out', async () => {
    const input = resourceList(packageFiles(repoPath('kptfile-examples/tshirt-sizes')).flatMap(({ text }) => documentTexts(text)));
    const r = await podman(built, ['run', '--rm', '-i', '--network', 'none', '--user', 'nobody', built.image], { input });
    expect(r.code, r.stderr).toBe(0);
    const out = parseObjects(r.stdout)[0] as unknown as { kind: string; items: { kind: string }[] };
    expect(out.kind).toBe('ResourceList');
    expect(out.items.filter((i) => i.kind === 'StatefulSet')).toHaveLength(5);
  });
});
