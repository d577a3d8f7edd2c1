// Builds dist/ for the executables declared in package.json.
//  - The KRM functions (render-valkey, validate-valkey) share one CommonJS bundle, dist/lib/krm.cjs,
//    with the `yaml` package apart in dist/lib/yaml.cjs; dist/lib/load.cjs loads them with V8 code
//    caches made after a warm-up render. Each executable is a small CommonJS launcher
//    (scripts/launcher.cjs).
//  - Every other functions/<name>.ts becomes one self-contained ESM bundle, dist/<name>.mjs.
import { build } from 'esbuild';
import { chmod, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const KRM_FUNCTIONS = ['render-valkey', 'validate-valkey'];
// src/api/package-version.ts imports package.json for its version: bundle that field alone, not
// the whole manifest (description, dependencies...).
const packageVersionOnly = {
  name: 'package-version-only',
  setup(b) {
    const own = resolve('package.json');
    b.onLoad({ filter: /[\\/]package\.json$/ }, async (args) =>
      args.path === own
        ? { contents: JSON.stringify({ version: JSON.parse(await readFile(own, 'utf8')).version }), loader: 'json' }
        : undefined,
    );
  },
};
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // BUILD_NAMES=1 builds without minifying, for a CPU profile that names functions and lines
  // (contributing/development.md); what ships is minified.
  minify: !process.env.BUILD_NAMES,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [packageVersionOnly],
};

// Start from an empty dist/, so nothing stale ships.
await rm('dist', { recursive: true, force: true });
await mkdir('dist/lib', { recursive: true });
await build({
  ...common,
  entryPoints: ['src/krm/cli/main.ts'],
  outfile: 'dist/lib/krm.cjs',
  format: 'cjs',
  // The `yaml` package is a bundle of its own, loaded on first use (src/krm/yaml/yaml-package.ts).
  define: { __KRM_BUNDLE__: 'true' },
  external: ['./yaml.cjs'],
  // yaml-package.ts's other branch (for running from source) uses import.meta; it is dropped here.
  logOverride: { 'empty-import-meta': 'silent' },
});
await build({
  ...common,
  stdin: { contents: "module.exports = require('yaml');", resolveDir: '.', loader: 'js' },
  outfile: 'dist/lib/yaml.cjs',
  format: 'cjs',
});
await writeFile('dist/lib/load.cjs', await readFile('scripts/load.cjs', 'utf8'));
// load.cjs reads the bundles as latin1, which is exact only for ASCII (esbuild escapes the rest).
for (const file of ['dist/lib/krm.cjs', 'dist/lib/yaml.cjs']) {
  // (An unminified build keeps some comments, which may not be: they are only comments.)
  if (!process.env.BUILD_NAMES && (await readFile(file)).some((byte) => byte > 127)) throw new Error(`${file} is not ASCII`);
}
// V8's code caches for the bundles, made after a warm-up render of the examples (see the script).
execFileSync(process.execPath, ['scripts/warm-up.cjs', 'dist/lib', 'kptfile-examples'], { stdio: 'inherit' });
const launcher = await readFile('scripts/launcher.cjs', 'utf8');
for (const name of KRM_FUNCTIONS) {
  await writeFile(`dist/${name}.cjs`, launcher.replace('runTool(TOOL)', `runTool(${JSON.stringify(name)})`));
  await chmod(`dist/${name}.cjs`, 0o755);
}

const others = (await readdir('functions'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .filter((n) => !KRM_FUNCTIONS.includes(n));
for (const name of others) {
  const outfile = `dist/${name}.mjs`;
  await build({
    ...common,
    entryPoints: [`functions/${name}.ts`],
    outfile,
    format: 'esm',
    // Bundled CommonJS dependencies (the Kubernetes client) still call require().
    banner: { js: "import { createRequire as __vkCreateRequire } from 'node:module'; const require = __vkCreateRequire(import.meta.url);" },
  });
  await chmod(outfile, 0o755);
}
console.error(`built ${[...KRM_FUNCTIONS.map((e) => `dist/${e}.cjs`), ...others.map((e) => `dist/${e}.mjs`)].join(', ')}`);
