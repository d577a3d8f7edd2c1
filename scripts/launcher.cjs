#!/usr/bin/env node
// A KRM function's executable: a CommonJS file (no ES module loader to set up) that loads the
// shared bundle through lib/load.cjs, with the code cache made at build time.
'use strict';
require('./lib/load.cjs').load(require('node:path').join(__dirname, 'lib'), 'krm.cjs').runTool(TOOL);
