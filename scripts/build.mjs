// Builds dist/ for the executables declared in package.json.
//  - The KRM functions (render-valkey, validate-valkey) share one CommonJS bundle, dist/lib/krm.cjs,
//    shipped with V8's code cache made after module initialisation; each executable is a small
//    launcher (scripts/launcher.mjs). This takes roughly a fifth off the cold start.
//  - Every other functions/<name>.ts becomes one self-contained ESM bundle, dist/<name>.mjs.
import { build } from 'esbuild';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';

const KRM_FUNCTIONS = ['render-valkey', 'validate-valkey'];
const common = { bundle: true, platform: 'node', target: 'node20', minify: true, legalComments: 'none', logLevel: 'warning' };

await mkdir('dist/lib', { recursive: true });
await build({ ...common, entryPoints: ['src/krm/cli.ts'], outfile: 'dist/lib/krm.cjs', format: 'cjs' });
// Initialise the bundle once (no I/O happens until main() is called) and keep the compiled code.
execFileSync(process.execPath, ['-e', `
  const fs = require('node:fs'), vm = require('node:vm'), Module = require('node:module'), path = require('node:path');
  const file = path.resolve('dist/lib/krm.cjs');
  const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), { filename: file });
  const m = { exports: {} };
  script.runInThisContext()(m.exports, require, m, file, path.dirname(file));
  if (typeof m.exports.main !== 'function') throw new Error('dist/lib/krm.cjs does not export main');
  fs.writeFileSync(file + '.cache', script.createCachedData());
`]);
const launcher = await readFile('scripts/launcher.mjs', 'utf8');
for (const name of KRM_FUNCTIONS) {
  await writeFile(`dist/${name}.mjs`, launcher.replace('main(TOOL)', `main(${JSON.stringify(name)})`));
  await chmod(`dist/${name}.mjs`, 0o755);
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
console.error(`built ${[...KRM_FUNCTIONS, ...others].map((e) => `dist/${e}.mjs`).join(', ')}`);
