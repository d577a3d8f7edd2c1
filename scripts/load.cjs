// Shipped as dist/lib/load.cjs. Loads the KRM bundle (lib/krm.cjs) and, when it asks for it, the
// `yaml` package (lib/yaml.cjs), each with the V8 code cache made at build time, so Node skips
// compiling them. A cache from another Node version is rejected by V8 and simply ignored. Set
// VALKEY_KRM_CACHE_REPORT=1 to have each load reported on stderr.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');

// V8 takes a cache only for the very source it was made from, wrapper included.
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;

/**
 * Loads lib/<name> from `dir` and returns its exports. The bundles are ASCII (the build checks),
 * so reading them as latin1 is exact and skips UTF-8 decoding. `scripts`, when given, collects
 * each file's Script: the build's warm-up writes the caches from them.
 */
function load(dir, name, scripts) {
  const file = join(dir, name);
  let cachedData;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(wrap(readFileSync(file, 'latin1')), { filename: file, cachedData });
  if (scripts) scripts.set(file, script);
  if (process.env.VALKEY_KRM_CACHE_REPORT) {
    process.stderr.write(
      `code cache ${name}: ${cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted'}\n`,
    );
  }
  let yaml;
  const bundleRequire = (id) => {
    if (id !== './yaml.cjs') return require(id);
    if (yaml === undefined) yaml = load(dir, 'yaml.cjs', scripts);
    return yaml;
  };
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, bundleRequire, mod, file, dir);
  return mod.exports;
}

module.exports = { load };
