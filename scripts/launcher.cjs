#!/usr/bin/env node
// Starts a KRM function fast: a CommonJS launcher (no ES module loader to set up) that loads the
// shared bundle with the V8 code cache made at build time, so Node skips compiling it. A cache
// from another Node version is rejected by V8 and simply ignored.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');

// The same wrapper as scripts/warm-up.cjs, which made the cache: V8 only takes a cache for the same source.
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
const dir = join(__dirname, 'lib');
const file = join(dir, 'krm.cjs');
let cachedData;
try {
  cachedData = readFileSync(`${file}.cache`);
} catch {
  cachedData = undefined;
}
const script = new Script(wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
if (process.env.VALKEY_KRM_CACHE_REPORT) {
  process.stderr.write(`code cache: ${cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted'}\n`);
}
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, require, bundle, file, dir);
bundle.exports.main(TOOL);
