#!/usr/bin/env node
import { main } from '../src/krm/cli/main.js';

await main('validate-valkey');
