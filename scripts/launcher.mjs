#!/usr/bin/env node
// Starts a KRM function fast: loads the shared bundle with V8's code cache made at build time, so
// Node skips compiling it. A cache from another Node version is rejected by V8 and simply ignored.
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const file = join(dirname(fileURLToPath(import.meta.url)), 'lib', 'krm.cjs');
let cachedData;
try {
  cachedData = readFileSync(`${file}.cache`);
} catch {
  cachedData = undefined;
}
const script = new vm.Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
module.exports.main(TOOL);
