import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { wellFormedJson } from '../api/canonical-json.js';
import { error, refKey, visibleOneLine, type ObjectRef, type Problem } from '../api/index.js';
import {
  explainCluster,
  formatExplanation,
  formatPlanJson,
  formatPlanMarkdown,
  formatPlanText,
  planChange,
  type Plan,
  type PlanSide,
} from '../plan/index.js';
import { readInputFiles, readNamedFile } from './cli/read-files.js';
import { readFunctionConfig } from './function-config.js';
import { sortInputs, type InputItem } from './run-function.js';
import { claimedOutputProblems, packageClusters } from './claimed-output.js';
import { isEarlierOutput } from './ownership.js';
import { committedOutputProblems } from './stale-render.js';
import { parseDocuments } from './read-input.js';

/** The render config is read as render-valkey reads it, kpt's ConfigMap form included. */
const PLAN_OPTIONS = { readRenderConfig: readFunctionConfig };

export const PLAN_HELP = `render-valkey plan: what a change to a package does to every cluster it reaches, before it is merged.

Usage:
  render-valkey plan --base DIR [options] [PATH...]       compare the files under DIR (the base)
                                                           with those under PATH (the change)
  render-valkey plan --base-rev REV [options] [PATH...]   compare PATH at git revision REV (e.g.
                                                           origin/main) with PATH as it is now
  render-valkey plan --base-rendered FILE [options] [PATH...]
                                                           compare what another release of the
                                                           function rendered from PATH (FILE: its
                                                           output) with this release's render
  render-valkey plan --explain NS/NAME [--config FILE] [PATH...]
                                                           show why one cluster renders as it does

PATH defaults to the current directory. Files are read as render-valkey reads them (YAML and
JSON files, directories recursively). The change's committed output must be what this render
writes, as validate-valkey checks (not with --base-rendered); otherwise the plan ignores it.

Options:
  --base DIR            the base side as files (repeat for several); the change is PATH...
  --base-rev REV        the base side is PATH... at git revision REV of the repository around it
  --base-rendered FILE  the base side is FILE, another release's render of PATH... (e.g.
                        npx -y valkey-krm@0.1.0 render-valkey PATH > FILE): what upgrading the
                        function does to every cluster (docs/upgrading.md)
  --format FORMAT       text (default), markdown (a pull-request comment) or json (see docs/plan.md)
  --fail-on LEVEL       exit 3 when a cluster is held (held), held or risky (risky), restarts pods
                        or worse (roll), or changes at all (any)
  --explain NS/NAME     one cluster's resolved settings, each with the ValkeyConfig that set it
                        (or "forced"), its ACL users with their binding level, and its image
  --config FILE         the render config for both sides (in git mode, FILE as it was at REV
                        when the repository has it there); without it, the one
                        ValkeyRenderConfig among each side's files
  -h, --help            show this help

Verdicts, most disruptive first: held (the controller waits for an explicit opt-in, e.g. a
shard with no replica would roll), risky (TLS switched, a version downgrade...), roll (pods
restart: how many, failovers, order, cause), scale (shards or replicas; slots that move), live
(settings by CONFIG SET, users by ACL LOAD), new, retired, unchanged.

Exit codes: 0 planned, 1 the base or the change is invalid (its errors are shown), 2 bad usage,
3 the --fail-on gate tripped.`;

export interface PlanCommandIO {
  /** Where relative paths start. */
  cwd: string;
}

export interface PlanCommandOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const FORMATS = ['text', 'markdown', 'json'] as const;
const GATES = {
  held: ['held'],
  risky: ['held', 'risky'],
  roll: ['held', 'risky', 'roll'],
  any: ['held', 'risky', 'roll', 'scale', 'live', 'new', 'retired'],
} as const;
export const GATE_EXIT = 3;

const usage = (message: string): PlanCommandOutput => ({
  stdout: '',
  stderr: `render-valkey plan: ${message}\nRun render-valkey plan --help for usage.\n`,
  exitCode: 2,
});

const PLAN_OPTIONS_SPEC = {
  base: { type: 'string', multiple: true },
  'base-rev': { type: 'string' },
  'base-rendered': { type: 'string' },
  format: { type: 'string', default: 'text' },
  'fail-on': { type: 'string' },
  explain: { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const parsePlanArgs = (argv: readonly string[]) =>
  parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: PLAN_OPTIONS_SPEC });

/** `render-valkey plan ...`: parses arguments, reads both sides, plans, formats. Never throws. */
export function runPlanCommand(argv: readonly string[], io: PlanCommandIO = { cwd: process.cwd() }): PlanCommandOutput {
  let args: ReturnType<typeof parsePlanArgs>;
  try {
    args = parsePlanArgs(argv);
  } catch (e) {
    return usage((e as Error).message);
  }
  const { values, positionals } = args;
  if (values.help) return { stdout: `${PLAN_HELP}\n`, stderr: '', exitCode: 0 };
  const format = values.format as (typeof FORMATS)[number];
  if (!FORMATS.includes(format)) return usage(`--format must be one of ${FORMATS.join(', ')}`);
  const gate = values['fail-on'];
  if (gate !== undefined && !(gate in GATES)) return usage(`--fail-on must be one of ${Object.keys(GATES).join(', ')}`);
  if ([values.base, values['base-rev'], values['base-rendered']].filter((v) => v !== undefined).length > 1)
    return usage('give one of --base DIR, --base-rev REV or --base-rendered FILE');
  const paths = positionals.length > 0 ? positionals : ['.'];
  const at = (p: string) => resolve(io.cwd, p);
  // Paths in reports as the user would write them: relative to where the command runs.
  const shown = (p: string) => {
    const rel = relative(io.cwd, p);
    return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? p : rel.split(sep).join('/');
  };
  try {
    const change = readSide(paths.map(at), values.config === undefined ? undefined : at(values.config), shown);
    if (values.explain !== undefined) return explain(values.explain, change, format);
    // The change's committed output must be this render's (another release's is expected to differ).
    if (values['base-rendered'] === undefined)
      change.problems.push(...committedOutputProblems(change.objects, change.renderConfig, change.committed));
    if (!values.base && !values['base-rev'] && !values['base-rendered'])
      return usage('say what to compare with: --base DIR, --base-rev REV (e.g. origin/main) or --base-rendered FILE');
    let plan: Plan;
    if (values['base-rendered'] !== undefined) {
      const rendered = readRendered(at(values['base-rendered']), shown);
      if ('problem' in rendered) return { stdout: '', stderr: `render-valkey plan: ${rendered.problem}\n`, exitCode: 1 };
      plan = planChange({ ...change, rendered: rendered.objects }, change, PLAN_OPTIONS);
    } else if (values['base-rev'] !== undefined) {
      const snapshot = checkoutPaths(
        values['base-rev'],
        paths.map(at),
        values.config === undefined ? undefined : at(values.config),
        io.cwd,
        shown,
      );
      if ('usage' in snapshot) return usage(snapshot.usage);
      try {
        plan = planChange(readSide(snapshot.paths, snapshot.config, snapshot.display), change, PLAN_OPTIONS);
      } finally {
        rmSync(snapshot.dir, { recursive: true, force: true });
      }
    } else {
      plan = planChange(
        readSide((values.base ?? []).map(at), values.config === undefined ? undefined : at(values.config), shown),
        change,
        PLAN_OPTIONS,
      );
    }
    const stdout = format === 'json' ? formatPlanJson(plan) : format === 'markdown' ? formatPlanMarkdown(plan) : formatPlanText(plan);
    if (!plan.ok) return { stdout, stderr: `render-valkey plan: ${plan.summary}\n`, exitCode: 1 };
    const tripped =
      gate === undefined ? [] : plan.clusters.filter((c) => (GATES[gate as keyof typeof GATES] as readonly string[]).includes(c.verdict));
    if (tripped.length > 0) {
      return {
        stdout,
        stderr: `render-valkey plan: --fail-on ${gate}: ${tripped.length} cluster${tripped.length === 1 ? '' : 's'} (${tripped
          .slice(0, 3)
          .map((c) => `${c.namespace}/${c.name} ${c.verdict}`)
          .join(', ')}${tripped.length > 3 ? ', ...' : ''})\n`,
        exitCode: GATE_EXIT,
      };
    }
    return { stdout, stderr: '', exitCode: 0 };
  } catch (e) {
    return {
      stdout: '',
      stderr: `render-valkey plan: internal error, please report it: ${(e as Error).stack ?? String(e)}\n`,
      exitCode: 1,
    };
  }
}

/** Another release's output, as multi-document YAML (or JSON) in one file. */
function readRendered(path: string, display: (path: string) => string): { objects: unknown[] } | { problem: string } {
  const read = readNamedFile(path);
  if ('reason' in read) return { problem: `cannot read --base-rendered ${display(read.path)}: ${read.reason}` };
  const { docs, errors } = parseDocuments(read.text, display(path));
  if (errors.length) return { problem: errors.map((e) => e.message).join('\n') };
  const objects = docs.map((d) => d.value);
  if (objects.length === 0)
    return { problem: `--base-rendered ${display(path)} holds no objects: give the other release's render-valkey output` };
  return { objects };
}

function explain(target: string, change: PlanSide, format: string): PlanCommandOutput {
  const match = /^([^/\s]+)\/([^/\s]+)$/.exec(target);
  if (!match) return usage('--explain takes NAMESPACE/NAME');
  const [, namespace, name] = match as unknown as [string, string, string];
  const { explanation, problems } = explainCluster(change.objects, namespace, name);
  const errors = [...(change.problems ?? []), ...problems].filter((p) => p.severity === 'error');
  if (!explanation) {
    const why = errors.length
      ? errors.map((p) => `  error: ${p.message}`).join('\n')
      : `  no ValkeyCluster ${namespace}/${name} in these files`;
    return { stdout: '', stderr: `render-valkey plan: cannot explain ${namespace}/${name}:\n${why}\n`, exitCode: 1 };
  }
  const text = formatExplanation(explanation);
  const stdout = format === 'json' ? `${wellFormedJson(explanation)}\n` : format === 'markdown' ? `\`\`\`text\n${text}\`\`\`\n` : text;
  return { stdout, stderr: '', exitCode: 0 };
}

/**
 * One side from files: its Valkey objects and its render config, with what went wrong reading
 * them as problems (the plan then says that side is broken). `display` renames temporary paths.
 */
function readSide(
  paths: readonly string[],
  configPath: string | undefined,
  display: (path: string) => string = (p) => p,
): PlanSide & { problems: Problem[]; committed: InputItem[] } {
  const problems: Problem[] = [];
  const texts: { path: string; text: string }[] = [];
  for (const path of paths) {
    for (const u of readInputFiles(path, texts)) problems.push(error(`cannot read ${display(u.path)}: ${u.reason}`));
  }
  const items: InputItem[] = [];
  for (const { path, text } of texts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const shown = display(path);
    const { docs, errors } = parseDocuments(text, shown);
    problems.push(...errors.map((e) => error(e.message)));
    for (const [index, { at, ...doc }] of docs.entries()) items.push({ ...doc, file: { path: shown, index, ...(at ? { at } : {}) } });
  }
  // Read as render-valkey reads them (one reader): the same objects count, whatever they wear.
  const sorted = sortInputs(items, { dropLocalConfig: true });
  problems.push(...sorted.problems);
  const objects = sorted.valkeyObjects;
  const renderConfigs = sorted.renderConfigItems.map((item) => ({ value: item.value, path: item.file?.path ?? '' }));
  const fileOf = (ref: ObjectRef, field?: string) => {
    const place = sorted.files.get(refKey(ref))?.[0];
    if (!place) return undefined;
    const at = place.at?.(field);
    return at ? { path: place.path, line: at.line, column: at.column } : { path: place.path };
  };
  let renderConfig: unknown;
  if (configPath !== undefined) {
    const read = readNamedFile(configPath);
    if ('reason' in read) problems.push(error(`cannot read the render config ${display(read.path)}: ${read.reason}`));
    else {
      const { docs, errors } = parseDocuments(read.text, display(configPath));
      problems.push(...errors.map((e) => error(e.message)));
      if (!errors.length && docs.length !== 1)
        problems.push(error(`${display(configPath)}: expected exactly one render config document, found ${docs.length}`));
      renderConfig = docs[0]?.value;
    }
  } else if (renderConfigs.length === 1) {
    renderConfig = renderConfigs[0]?.value;
  } else if (renderConfigs.length > 1) {
    problems.push(
      error(
        `found ${renderConfigs.length} ValkeyRenderConfig objects (${renderConfigs.map((r) => r.path).join(', ')}); keep one, or name one with --config FILE`,
      ),
    );
    renderConfig = renderConfigs[0]?.value;
  }
  // Read as it is (kubectl apply -R, a GitOps tool): what claims to be a cluster's output must be the render's.
  const outputDir = (renderConfig as { spec?: { outputDir?: unknown } } | undefined)?.spec?.outputDir;
  problems.push(
    ...claimedOutputProblems(items, packageClusters(objects), {
      ...(typeof outputDir === 'string' ? { outputDir } : {}),
      earlierOutputBeyondShards: true,
    }),
  );
  const committed = sorted.labelled.filter((item) => isEarlierOutput(item.value, typeof outputDir === 'string' ? outputDir : undefined));
  return { objects, renderConfig, problems, fileOf, committed };
}

interface Snapshot {
  dir: string;
  paths: string[];
  config: string | undefined;
  display: (path: string) => string;
}

/**
 * The same paths as they were at git revision `rev`, extracted with `git archive` into a
 * temporary directory (the caller removes it). A path the revision does not have is left out:
 * a package new in the change has an empty base.
 */
/** node:child_process loads only in git mode: render-valkey's start-up never pays for it. */
const spawnSync = (command: string, args: readonly string[], options: { cwd: string; input?: Buffer; maxBuffer?: number }) =>
  (process.getBuiltinModule('node:child_process') as typeof import('node:child_process')).spawnSync(command, args, options);

function checkoutPaths(
  rev: string,
  paths: readonly string[],
  configPath: string | undefined,
  cwd: string,
  shown: (path: string) => string,
): Snapshot | { usage: string } {
  const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd });
  if (top.status !== 0) return { usage: `--base-rev needs a git repository around ${cwd}: ${top.stderr.toString().trim()}` };
  const root = top.stdout.toString().trim();
  // From the top, where pathspecs and REV:path mean the same.
  const git = (args: string[]) => spawnSync('git', args, { cwd: root, maxBuffer: 2 ** 31 - 1 });
  if (git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]).status !== 0)
    return { usage: `--base-rev ${rev}: no such revision in ${root}` };
  const inRepo = (p: string) => {
    const rel = relative(root, p);
    return rel.startsWith('..') || isAbsolute(rel) ? undefined : rel.split(sep).join('/');
  };
  const rels: string[] = [];
  for (const p of paths) {
    const rel = inRepo(p);
    if (rel === undefined) return { usage: `${p} is outside the git repository ${root}` };
    rels.push(rel);
  }
  const exists = (rel: string) => rel === '' || git(['cat-file', '-e', `${rev}:${rel}`]).status === 0;
  const configRel = configPath === undefined ? undefined : inRepo(configPath);
  const wanted = [...rels, ...(configRel !== undefined ? [configRel] : [])].filter(exists);
  const dir = mkdtempSync(join(tmpdir(), 'valkey-plan-'));
  if (wanted.length > 0) {
    // Through a file, not this process: the archive of a large tree is never held in memory.
    const tarFile = `${dir}.tar`;
    const archive = git(['archive', '--format=tar', `--output=${tarFile}`, rev, '--', ...wanted.map((r) => (r === '' ? '.' : r))]);
    const untar = archive.status === 0 ? spawnSync('tar', ['-x', '-f', tarFile, '-C', dir], { cwd: root }) : archive;
    rmSync(tarFile, { force: true });
    if (untar.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      return { usage: `cannot read ${rev} from git: ${visibleOneLine(untar.stderr.toString().trim())}` };
    }
  }
  const display = (p: string) =>
    p.startsWith(dir + sep)
      ? `${rev}:${p
          .slice(dir.length + 1)
          .split(sep)
          .join('/')}`
      : shown(p);
  const config =
    configPath === undefined ? undefined : configRel !== undefined && wanted.includes(configRel) ? join(dir, configRel) : configPath;
  return { dir, paths: rels.filter((r) => wanted.includes(r)).map((r) => join(dir, r)), config, display };
}
