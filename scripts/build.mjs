// Bundles each executable into one ESM file under dist/, so a cold start loads a single module.
import { build } from 'esbuild';
import { chmod, mkdir, readdir } from 'node:fs/promises';

const entries = (await readdir('functions')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
await mkdir('dist', { recursive: true });
for (const name of entries) {
  const outfile = `dist/${name}.mjs`;
  await build({
    entryPoints: [`functions/${name}.ts`],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    // Bundled CommonJS dependencies (the Kubernetes client) still call require().
    banner: { js: "import { createRequire as __vkCreateRequire } from 'node:module'; const require = __vkCreateRequire(import.meta.url);" },
  });
  await chmod(outfile, 0o755);
}
console.log(`built ${entries.map((e) => `dist/${e}.mjs`).join(', ')}`);
