import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Document, Node } from 'yaml';
import { API_VERSION } from '../api/index.js';
import { readInputFiles } from './cli/read-files.js';
import { parseStream, toJS, yamlLib } from './yaml/yaml-package.js';

/**
 * `render-valkey set-shards NS/NAME N [PATH...]`: the one edit the autoscaling job
 * (integrations/autoscale/) makes to git. It finds the file that defines the ValkeyCluster and
 * replaces the value of its `spec.shards` and nothing else: every other byte of the file (comments,
 * quoting, key order, other documents) stays as it was, so the commit's diff is one line.
 */

export const SET_SHARDS_HELP = `render-valkey set-shards: write an autoscaling decision to the file a ValkeyCluster comes from.

Usage:
  render-valkey set-shards [--from COUNT] NS/NAME SHARDS [PATH...]

Finds the one ValkeyCluster NAME (metadata.namespace NS, or no namespace in the file) among the
YAML and JSON files under PATH (default: the current directory), replaces the value of its
spec.shards with SHARDS and leaves every other byte of the file alone. Prints the file it changed.
An anchored value (shards: &a 2) loses its anchor and each alias of it (*a) is written out as the
value it had, so only spec.shards changes.

Options:
  --from COUNT  compare-and-swap: change spec.shards only if the file says COUNT (the count the
                decision was made from); a file that says another count has moved on since

Exit codes: 0 changed (or already SHARDS), 1 not found, found twice, or no spec.shards to edit, 2 bad usage,
3 the file's spec.shards is not COUNT (nothing written).`;

interface Target {
  namespace: string;
  name: string;
}

interface ShardsNode {
  /** The bytes to replace: the value, and the anchor (`&a`) in front of it when aliases use it. */
  range: [number, number];
  value: unknown;
  /** The aliases (`*a`) of an anchored spec.shards, each to be replaced by the value as it was. */
  aliases: [number, number][];
  /** The value's own text, which replaces each of those aliases. */
  source: string;
}

/**
 * Where a document defines the ValkeyCluster `t`: the byte range of its spec.shards value. An
 * anchored value (`shards: &a 2`) that aliases elsewhere use (`minShards: *a`) is one node with
 * many readers: editing it in place would change every one of them, so the anchor goes and each
 * alias is written out as the value it had.
 */
function shardsRange(doc: Document, t: Target, text: string): ShardsNode | 'no-shards' | undefined {
  const value = toJS(doc, doc.contents) as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  if (value?.apiVersion !== API_VERSION || value.kind !== 'ValkeyCluster' || value.metadata?.name !== t.name) return undefined;
  const ns = value.metadata?.namespace;
  if (ns !== undefined && ns !== t.namespace) return undefined;
  const node = doc.getIn(['spec', 'shards'], true) as Node | undefined;
  if (!node?.range) return 'no-shards';
  const range: [number, number] = [node.range[0], node.range[1]];
  const found: ShardsNode = { range, value: toJS(doc, node), aliases: [], source: text.slice(range[0], range[1]) };
  const y = yamlLib();
  const anchor = y.isScalar(node) ? node.anchor : undefined;
  if (anchor === undefined) return found;
  y.visit(doc, {
    Alias: (_key, alias) => {
      if (alias.source === anchor && alias.resolve(doc) === node && alias.range) found.aliases.push([alias.range[0], alias.range[1]]);
    },
  });
  if (found.aliases.length === 0) return found;
  // The anchor's `&a`, and whatever stands between it and the value (a tag, spaces, a line break).
  const start = text.lastIndexOf(`&${anchor}`, range[0]);
  if (start >= 0) found.range = [start, range[1]];
  return found;
}

export type SetShardsResult =
  | { kind: 'changed' | 'unchanged'; text: string }
  | { kind: 'absent' }
  | { kind: 'error'; message: string }
  | { kind: 'stale'; message: string };

/**
 * The file's text with the ValkeyCluster's spec.shards set to `shards`, every other byte kept.
 * With `from` (the count a decision was made from), a compare-and-swap: a file that says neither
 * `from` nor `shards` has moved on since the decision (a newer commit changed spec.shards), and is
 * left alone ('stale').
 */
export function setShardsInText(text: string, t: Target, shards: number, from?: number): SetShardsResult {
  let docs: Document[];
  try {
    docs = parseStream(text).docs;
  } catch {
    return { kind: 'absent' };
  }
  const found = docs.map((d) => shardsRange(d, t, text)).filter((r) => r !== undefined);
  if (found.length === 0) return { kind: 'absent' };
  if (found.length > 1) return { kind: 'error', message: `defines ValkeyCluster ${t.namespace}/${t.name} ${found.length} times` };
  const hit = found[0] as Exclude<(typeof found)[number], undefined>;
  if (hit === 'no-shards') return { kind: 'error', message: `ValkeyCluster ${t.namespace}/${t.name} has no spec.shards to edit` };
  if (hit.value === shards) return { kind: 'unchanged', text };
  if (from !== undefined && hit.value !== from)
    return {
      kind: 'stale',
      message: `ValkeyCluster ${t.namespace}/${t.name} has spec.shards ${JSON.stringify(hit.value)} in git, not ${from}, the count the decision to go to ${shards} was made from: git moved on since the decision, so it is not written over (the controller decides again once the newer count is synced)`,
    };
  // JSON keeps its number bare too: a plain scalar replaces the old one in place; the aliases of an
  // anchored one get the old value's text, from the end of the file backwards so offsets hold.
  const edits = [{ range: hit.range, text: String(shards) }, ...hit.aliases.map((range) => ({ range, text: hit.source }))];
  edits.sort((a, b) => b.range[0] - a.range[0]);
  let out = text;
  for (const e of edits) out = out.slice(0, e.range[0]) + e.text + out.slice(e.range[1]);
  return { kind: 'changed', text: out };
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
  const options = { help: { type: 'boolean', short: 'h' }, from: { type: 'string' } } as const;
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>>;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options });
  } catch (e) {
    return fail(`${(e as Error).message}\nRun render-valkey set-shards --help for usage.`, 2);
  }
  if (parsed.values.help) return { stdout: `${SET_SHARDS_HELP}\n`, stderr: '', exitCode: 0 };
  const [ref, count, ...paths] = parsed.positionals;
  const m = /^([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(ref ?? '');
  const shards = Number(count);
  if (!m || !Number.isInteger(shards) || shards < 1 || shards > 1000)
    return fail('expected NS/NAME and a whole number of shards from 1 to 1000\nRun render-valkey set-shards --help for usage.', 2);
  const from = parsed.values.from === undefined ? undefined : Number(parsed.values.from);
  if (from !== undefined && (!/^\d+$/.test(parsed.values.from ?? '') || from < 1 || from > 1000))
    return fail(
      '--from expects the whole number of shards the decision was made from, 1 to 1000\nRun render-valkey set-shards --help for usage.',
      2,
    );
  const target = { namespace: m[1] as string, name: m[2] as string };
  const files: { path: string; text: string }[] = [];
  const unreadable = (paths.length ? paths : ['.']).flatMap((p) => readInputFiles(resolve(io.cwd, p), files));
  const hits: { path: string; result: Exclude<SetShardsResult, { kind: 'absent' }> }[] = [];
  for (const f of files) {
    const result = setShardsInText(f.text, target, shards, from);
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
  if (result.kind === 'stale') return fail(`${path}: ${result.message}`, 3);
  // Written only when it changed, and from the bytes read: a file edited meanwhile is not clobbered with stale text.
  if (result.kind === 'changed') {
    if (readFileSync(path, 'utf8') !== files.find((f) => f.path === path)?.text)
      return fail(`${path} changed while it was read; run again`);
    writeFileSync(path, result.text);
  }
  return { stdout: `${path}\n`, stderr: '', exitCode: 0 };
}
