import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { InputFile } from '../plain-files.js';
import { decodeText } from './decode-text.js';

const YAML_FILE = /\.(ya?ml|json)$/i;

/**
 * Reads a file, or every YAML and JSON file under a directory (hidden entries and node_modules
 * skipped, in name order), onto `out`. Throws the file system's error.
 */
export function readInputFiles(path: string, out: InputFile[]): void {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) {
      if (entry.startsWith('.') || entry === 'node_modules') continue;
      const child = join(path, entry);
      if (statSync(child).isDirectory() || YAML_FILE.test(entry)) readInputFiles(child, out);
    }
    return;
  }
  out.push(readInputFile(path));
}

export const readInputFile = (path: string): InputFile => ({ path, text: decodeText(readFileSync(path)) });
