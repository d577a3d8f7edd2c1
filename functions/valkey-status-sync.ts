#!/usr/bin/env node
// The status-sync controller: a thin entry; everything lives in src/controller.
import { main } from '../src/controller/main.js';

process.exit(await main(process.argv.slice(2)));
