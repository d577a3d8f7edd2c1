// Run by scripts/build.mjs: loads dist/lib/krm.cjs, renders and validates the example packages in
// both modes (plain files and ResourceList), then writes V8's code cache for the bundle. Made
// after the warm-up, the cache holds the code a render runs, not only what module initialisation
// runs (V8 compiles most functions lazily, on first call), so short renders skip compiling too.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

// The same wrapper as scripts/launcher.cjs: V8 only takes a cache for the same source.
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
const file = path.resolve(process.argv[2]);
const script = new vm.Script(wrap(fs.readFileSync(file, 'utf8')), { filename: file });
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, require, bundle, file, path.dirname(file));
const { main, runCli, runResourceList } = bundle.exports;
if (typeof main !== 'function' || typeof runCli !== 'function' || typeof runResourceList !== 'function') {
  throw new Error(`${file} does not export main, runCli and runResourceList`);
}

/** The YAML documents of a package, by walking it (plain text split on `---` lines is enough here). */
function documents(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return documents(p);
    if (!/\.ya?ml$/.test(e.name)) return [];
    return fs.readFileSync(p, 'utf8').split(/^---[^\n]*\n/m).filter((d) => d.replace(/#.*$/gm, '').trim() !== '');
  });
}

async function warmUp(dir) {
  const io = { readStdin: async () => '', stdinIsTTY: false };
  const docs = documents(dir);
  const config = docs.find((d) => /^kind: ValkeyRenderConfig$/m.test(d));
  const items = docs.filter((d) => d !== config).map((d) => `- ${d.trimEnd().replace(/\n/g, '\n  ')}\n`).join('');
  const list = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}functionConfig:\n  ${config.trimEnd().replace(/\n/g, '\n  ')}\n`;
  for (const tool of ['render-valkey', 'validate-valkey']) {
    const plain = await runCli(tool, [dir], io);
    const krm = runResourceList(list, tool);
    for (const [mode, out] of [['files', plain], ['ResourceList', krm]]) {
      if (out.exitCode !== 0 || (tool === 'render-valkey' && !out.stdout.includes('kind: StatefulSet'))) {
        throw new Error(`warm-up: ${tool} on ${dir} (${mode}) failed: ${out.stderr}`);
      }
    }
  }
}

(async () => {
  const root = path.resolve(process.argv[3]);
  for (const e of fs.readdirSync(root, { withFileTypes: true })) if (e.isDirectory()) await warmUp(path.join(root, e.name));
  fs.writeFileSync(`${file}.cache`, script.createCachedData());
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
