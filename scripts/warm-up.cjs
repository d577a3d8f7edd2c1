// Run by scripts/build.mjs with dist/lib: loads krm.cjs through load.cjs, renders and validates
// the example packages in both modes (plain files and ResourceList), then writes V8's code caches
// for krm.cjs and yaml.cjs. Made after the warm-up, a cache holds the code a render runs, not only
// what module initialisation runs (V8 compiles most functions lazily, on first call), so short
// renders skip compiling too.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dir = path.resolve(process.argv[2]);
const { load } = require(path.join(dir, 'load.cjs'));
const scripts = new Map();
const { runTool, runCli, runResourceList } = load(dir, 'krm.cjs', scripts);
if (typeof runTool !== 'function' || typeof runCli !== 'function' || typeof runResourceList !== 'function') {
  throw new Error(`${dir}/krm.cjs does not export runTool, runCli and runResourceList`);
}

/** The YAML documents of a package, by walking it (plain text split on `---` lines is enough here). */
function documents(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return documents(p);
    if (!/\.ya?ml$/.test(e.name)) return [];
    return fs
      .readFileSync(p, 'utf8')
      .split(/^---[^\n]*\n/m)
      .filter((d) => d.replace(/#.*$/gm, '').trim() !== '');
  });
}

async function warmUp(dir) {
  const io = { readStdin: async () => '', stdinIsTTY: false };
  const docs = documents(dir);
  const config = docs.find((d) => /^kind: ValkeyRenderConfig$/m.test(d));
  const items = docs
    .filter((d) => d !== config)
    .map((d) => `- ${d.trimEnd().replace(/\n/g, '\n  ')}\n`)
    .join('');
  const list = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}functionConfig:\n  ${config.trimEnd().replace(/\n/g, '\n  ')}\n`;
  // The fast readers take the examples as they are; a flow mapping sends a ResourceList to the
  // full parser (the `yaml` package), so its cache holds the code that runs too.
  const flow = list.replace('items:\n', 'items:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: warm-up}}\n');
  for (const tool of ['render-valkey', 'validate-valkey']) {
    const plain = await runCli(tool, [dir], io);
    const krm = runResourceList(list, tool);
    const full = runResourceList(flow, tool);
    for (const [mode, out] of [
      ['files', plain],
      ['ResourceList', krm],
      ['ResourceList, full parser', full],
    ]) {
      if (out.exitCode !== 0 || (tool === 'render-valkey' && !out.stdout.includes('kind: StatefulSet'))) {
        throw new Error(`warm-up: ${tool} on ${dir} (${mode}) failed: ${out.stderr}`);
      }
    }
  }
}

(async () => {
  const root = path.resolve(process.argv[3]);
  for (const e of fs.readdirSync(root, { withFileTypes: true })) if (e.isDirectory()) await warmUp(path.join(root, e.name));
  if (!scripts.has(path.join(dir, 'yaml.cjs'))) throw new Error('the warm-up never loaded yaml.cjs: no cache for it');
  for (const [file, script] of scripts) fs.writeFileSync(`${file}.cache`, script.createCachedData());
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
