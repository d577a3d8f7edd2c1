#!/usr/bin/env node
// The status-sync controller: a thin entry; everything lives in src/controller.
import { runStatusSync } from '../src/controller/main.js';

process.exit(await runStatusSync(process.argv.slice(2)));
