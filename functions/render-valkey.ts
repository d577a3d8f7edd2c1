#!/usr/bin/env node
import { runTool } from '../src/krm/cli/main.js';

await runTool('render-valkey');
