import { lstatSync, readFileSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { InputFile } from '../plain-files.js';
import { decodeText, notUtf8At } from './decode-text.js';

const YAML_FILE = /\.(ya?ml|json)$/i;

/** Where the kernel's pseudo-files live: nothing a package holds, and reading them leaks or never ends. */
const PSEUDO_FILES = /^\/(proc|sys|dev)(\/|$)/;

/** What to do with a symbolic link inside a package: the rule of docs/security.md. */
const LINK_INSIDE =
  'is a symbolic link: links inside a package are not read (kpt does not read them either, so the package would render differently there); replace the link with the file or directory it points to';

/** A path that was not read, and why. */
export interface Unreadable {
  path: string;
  reason: string;
}

/**
 * Reads a file, or every YAML and JSON file under a directory (hidden entries and node_modules
 * skipped, in name order), onto `out`, and returns what could not be read, one message each.
 *
 * The symbolic-link rule (docs/security.md): a path named on the command line may be a link (as
 * kpt resolves the package directory it is given), but it must lead to a regular file or a
 * directory outside the kernel's pseudo-file systems; below a named directory a link is never
 * followed, wherever it points, and is reported. So a pull request cannot make the reader open
 * .git/config, /proc/self/environ or /dev/zero, and no link loop can make the walk blow up.
 */
export function readInputFiles(path: string, out: InputFile[]): Unreadable[] {
  const problems: Unreadable[] = [];
  const root = namedPath(path, problems);
  if (root === 'directory') walk(path, out, problems);
  else if (root === 'file') readInto(path, out, problems);
  return problems;
}

/** A file named on the command line (the render config): the same rule as for a named path. */
export function readNamedFile(path: string): InputFile | Unreadable {
  const problems: Unreadable[] = [];
  const kind = namedPath(path, problems);
  if (kind === 'directory') return { path, reason: 'is a directory; name a file' };
  const out: InputFile[] = [];
  if (kind === 'file') readInto(path, out, problems);
  return out[0] ?? problems[0] ?? { path, reason: 'cannot be read' };
}

function namedPath(path: string, problems: Unreadable[]): 'file' | 'directory' | undefined {
  let stats: Stats;
  let real: string;
  try {
    stats = statSync(path);
    real = realpathSync(path);
  } catch (e) {
    problems.push({ path: path, reason: `${systemError(e)}` });
    return undefined;
  }
  if (PSEUDO_FILES.test(real)) {
    problems.push({ path: path, reason: `leads to ${real}, a kernel pseudo-file, not a package file; name the package's files instead` });
    return undefined;
  }
  if (stats.isDirectory()) return 'directory';
  if (stats.isFile()) return 'file';
  problems.push({
    path: path,
    reason: `is not a regular file or a directory (a device, pipe or socket); name the package's files instead`,
  });
  return undefined;
}

function walk(dir: string, out: InputFile[], problems: Unreadable[]): void {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (e) {
    problems.push({ path: dir, reason: `${systemError(e)}` });
    return;
  }
  for (const entry of entries) {
    if (entry.startsWith('.') || entry === 'node_modules') continue;
    const child = join(dir, entry);
    let stats: Stats;
    try {
      stats = lstatSync(child);
    } catch (e) {
      problems.push({ path: child, reason: `${systemError(e)}` });
      continue;
    }
    if (stats.isSymbolicLink()) {
      if (YAML_FILE.test(entry) || isDirectoryLink(child)) problems.push({ path: child, reason: `${LINK_INSIDE}` });
    } else if (stats.isDirectory()) walk(child, out, problems);
    else if (!YAML_FILE.test(entry)) continue;
    else if (stats.isFile()) readInto(child, out, problems);
    else
      problems.push({
        path: child,
        reason: `is not a regular file (a device, pipe or socket), so it is not read; remove it from the package`,
      });
  }
}

/** Whether a link leads to a directory (a link to a directory would have been walked before). */
function isDirectoryLink(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function readInto(path: string, out: InputFile[], problems: Unreadable[]): void {
  try {
    const bytes = readFileSync(path);
    const bad = notUtf8At(bytes);
    if (bad === undefined) out.push({ path, text: decodeText(bytes) });
    else
      problems.push({
        path,
        reason: `is not UTF-8 text: invalid bytes at ${bad}, which go-yaml (kpt, kustomize, kubectl) refuses; save the file as UTF-8`,
      });
  } catch (e) {
    problems.push({ path: path, reason: `${systemError(e)}` });
  }
}

/** The system's reason without the path it repeats (`ENOENT: no such file or directory, open '…'`). */
function systemError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const reason = err.code && typeof err.message === 'string' ? err.message.replace(/,\s*\w+\s+'.*'$/s, '') : String(e);
  return reason;
}
