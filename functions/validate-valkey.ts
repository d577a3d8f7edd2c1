#!/usr/bin/env node
import { main } from '../src/krm/cli.js';

await main('validate-valkey');
