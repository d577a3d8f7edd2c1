// Builds dist/ for the executables declared in package.json.
//  - The KRM functions (render-valkey, validate-valkey) share one CommonJS bundle, dist/lib/krm.cjs,
//    shipped with V8's code cache made after a warm-up render; each executable is a small CommonJS
//    launcher (scripts/launcher.cjs).
//  - Every other functions/<name>.ts becomes one self-contained ESM bundle, dist/<name>.mjs.
import { build } from 'esbuild';
import { chmod, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';

const KRM_FUNCTIONS = ['render-valkey', 'validate-valkey'];
const common = { bundle: true, platform: 'node', target: 'node20', minify: true, legalComments: 'none', logLevel: 'warning' };

// Start from an empty dist/, so nothing stale ships.
await rm('dist', { recursive: true, force: true });
await mkdir('dist/lib', { recursive: true });
await build({ ...common, entryPoints: ['src/krm/cli.ts'], outfile: 'dist/lib/krm.cjs', format: 'cjs' });
// V8's code cache for the bundle, made after a warm-up render of the examples (see the script).
execFileSync(process.execPath, ['scripts/warm-up.cjs', 'dist/lib/krm.cjs', 'kptfile-examples'], { stdio: 'inherit' });
const launcher = await readFile('scripts/launcher.cjs', 'utf8');
for (const name of KRM_FUNCTIONS) {
  await writeFile(`dist/${name}.cjs`, launcher.replace('main(TOOL)', `main(${JSON.stringify(name)})`));
  await chmod(`dist/${name}.cjs`, 0o755);
}

const others = (await readdir('functions')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).filter((n) => !KRM_FUNCTIONS.includes(n));
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
