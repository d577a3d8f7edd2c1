import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Document, Node } from 'yaml';
import { API_VERSION } from '../api/index.js';
import { readInputFiles } from './cli/read-files.js';
import { parseStream, toJS } from './yaml/yaml-package.js';

/**
 * `render-valkey set-shards NS/NAME N [PATH...]`: the one edit the autoscaling job
 * (integrations/autoscale/) makes to git. It finds the file that defines the ValkeyCluster and
 * replaces the value of its `spec.shards` and nothing else: every other byte of the file (comments,
 * quoting, key order, other documents) stays as it was, so the commit's diff is one line.
 */

export const SET_SHARDS_HELP = `render-valkey set-shards: write an autoscaling decision to the file a ValkeyCluster comes from.

Usage:
  render-valkey set-shards NS/NAME SHARDS [PATH...]

Finds the one ValkeyCluster NAME (metadata.namespace NS, or no namespace in the file) among the
YAML and JSON files under PATH (default: the current directory), replaces the value of its
spec.shards with SHARDS and leaves every other byte of the file alone. Prints the file it changed.

Exit codes: 0 changed (or already SHARDS), 1 not found, found twice, or no spec.shards to edit, 2 bad usage.`;

interface Target {
  namespace: string;
  name: string;
}

/** Where a document defines the ValkeyCluster `t`: the byte range of its spec.shards value. */
function shardsRange(doc: Document, t: Target): { range: [number, number]; value: unknown } | 'no-shards' | undefined {
  const value = toJS(doc, doc.contents) as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  if (value?.apiVersion !== API_VERSION || value.kind !== 'ValkeyCluster' || value.metadata?.name !== t.name) return undefined;
  const ns = value.metadata?.namespace;
  if (ns !== undefined && ns !== t.namespace) return undefined;
  const node = doc.getIn(['spec', 'shards'], true) as Node | undefined;
  if (!node?.range) return 'no-shards';
  return { range: [node.range[0], node.range[1]], value: toJS(doc, node) };
}

export type SetShardsResult = { kind: 'changed' | 'unchanged'; text: string } | { kind: 'absent' } | { kind: 'error'; message: string };

/** The file's text with the ValkeyCluster's spec.shards set to `shards`, every other byte kept. */
export function setShardsInText(text: string, t: Target, shards: number): SetShardsResult {
  let docs: Document[];
  try {
    docs = parseStream(text).docs;
  } catch {
    return { kind: 'absent' };
  }
  const found = docs.map((d) => shardsRange(d, t)).filter((r) => r !== undefined);
  if (found.length === 0) return { kind: 'absent' };
  if (found.length > 1) return { kind: 'error', message: `defines ValkeyCluster ${t.namespace}/${t.name} ${found.length} times` };
  const hit = found[0] as Exclude<(typeof found)[number], undefined>;
  if (hit === 'no-shards') return { kind: 'error', message: `ValkeyCluster ${t.namespace}/${t.name} has no spec.shards to edit` };
  if (hit.value === shards) return { kind: 'unchanged', text };
  // JSON keeps its number bare too: a plain scalar replaces the old one in place.
  return { kind: 'changed', text: text.slice(0, hit.range[0]) + String(shards) + text.slice(hit.range[1]) };
}

export interface SetShardsOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const fail = (message: string, exitCode = 1): SetShardsOutput => ({
  stdout: '',
  stderr: `render-valkey set-shards: ${message}\n`,
  exitCode,
});

/** `render-valkey set-shards ...`: never throws. */
export function runSetShardsCommand(argv: readonly string[], io: { cwd: string }): SetShardsOutput {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: { help: { type: 'boolean'; short: 'h' } } }>>;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    return fail(`${(e as Error).message}\nRun render-valkey set-shards --help for usage.`, 2);
  }
  if (parsed.values.help) return { stdout: `${SET_SHARDS_HELP}\n`, stderr: '', exitCode: 0 };
  const [ref, count, ...paths] = parsed.positionals;
  const m = /^([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(ref ?? '');
  const shards = Number(count);
  if (!m || !Number.isInteger(shards) || shards < 1 || shards > 1000)
    return fail('expected NS/NAME and a whole number of shards from 1 to 1000\nRun render-valkey set-shards --help for usage.', 2);
  const target = { namespace: m[1] as string, name: m[2] as string };
  const files: { path: string; text: string }[] = [];
  const unreadable = (paths.length ? paths : ['.']).flatMap((p) => readInputFiles(resolve(io.cwd, p), files));
  const hits: { path: string; result: Exclude<SetShardsResult, { kind: 'absent' }> }[] = [];
  for (const f of files) {
    const result = setShardsInText(f.text, target, shards);
    if (result.kind !== 'absent') hits.push({ path: f.path, result });
  }
  const problems = [
    ...unreadable.map((u) => `cannot read ${u.path}: ${u.reason}`),
    ...hits.flatMap((h) => (h.result.kind === 'error' ? [`${h.path} ${h.result.message}`] : [])),
  ];
  if (hits.length > 1) problems.push(`ValkeyCluster ${ref} is defined in ${hits.map((h) => h.path).join(', ')}: edit it by hand`);
  if (hits.length === 0) problems.push(`no file defines ValkeyCluster ${ref}`);
  if (problems.length) return fail(problems.join('\n'));
  const { path, result } = hits[0] as (typeof hits)[number];
  if (result.kind === 'error') return fail(result.message);
  // Written only when it changed, and from the bytes read: a file edited meanwhile is not clobbered with stale text.
  if (result.kind === 'changed') {
    if (readFileSync(path, 'utf8') !== files.find((f) => f.path === path)?.text)
      return fail(`${path} changed while it was read; run again`);
    writeFileSync(path, result.text);
  }
  return { stdout: `${path}\n`, stderr: '', exitCode: 0 };
}
