import { error } from '../api/index.js';
import { parseResourceList } from './source.js';
import { runJob, type JobOutcome } from './job.js';
import { withPath } from './serialize.js';
import { emitSequenceItem, emitYaml } from './emit-yaml.js';
import { formatReport, toResults } from './results.js';

export interface RunOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export type Tool = 'render-valkey' | 'validate-valkey';

export const failureText = (tool: Tool) => (tool === 'render-valkey' ? 'nothing was rendered' : 'invalid');

/**
 * KRM function mode: a ResourceList in, a ResourceList out. Items we do not own are written back
 * as the exact text that came in. On any error: exit 1, every input item unchanged, no generated
 * objects, and the results say why.
 */
export function runResourceList(input: string, tool: Tool): RunOutput {
  const { list, errors } = parseResourceList(input);
  if (!list) {
    const problems = errors.map((e) => error(e.message));
    const results = toResults(problems, () => undefined);
    return {
      stdout: emitYaml({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [], results }),
      stderr: formatReport(problems, () => undefined, tool, failureText(tool)),
      exitCode: 1,
    };
  }
  const outcome = runJob(list.items, list.functionConfig, { validateOnly: tool === 'validate-valkey', dropLocalConfig: false });
  // On failure, and when only validating, everything goes back as it came, our earlier output too.
  const emitted = outcome.ok && tool === 'render-valkey' ? outcome.passthrough : [...outcome.passthrough, ...outcome.previous];
  const stdout = list.format === 'json' ? jsonOutput(list.apiVersion, emitted.map((i) => i.text), outcome) : yamlOutput(list.apiVersion, list.seqIndent, emitted.map((i) => i.text), outcome);
  const outcomeText = outcome.ok ? (tool === 'render-valkey' ? `rendered ${outcome.stats.clusters} clusters into ${outcome.generated.length} objects` : 'valid') : failureText(tool);
  return {
    stdout,
    stderr: outcome.ok ? '' : formatReport(outcome.problems, outcome.fileOf, tool, outcomeText),
    exitCode: outcome.ok ? 0 : 1,
  };
}

function yamlOutput(apiVersion: string, indent: number, texts: string[], outcome: JobOutcome): string {
  const out: string[] = [`apiVersion: ${apiVersion}\nkind: ResourceList\n`];
  if (texts.length + outcome.generated.length === 0) out.push('items: []\n');
  else {
    out.push('items:\n');
    for (const text of texts) out.push(text);
    // One string per object, joined once: measured faster than one array of every small piece.
    for (const g of outcome.generated) out.push(emitSequenceItem(withPath(g.object, g.path, g.index), indent));
  }
  const results = toResults(outcome.problems, outcome.fileOf);
  if (results.length) out.push(emitYaml({ results }));
  return out.join('');
}

function jsonOutput(apiVersion: string, texts: string[], outcome: JobOutcome): string {
  const generated = outcome.generated.map((g) => JSON.stringify(withPath(g.object, g.path, g.index)));
  const results = toResults(outcome.problems, outcome.fileOf);
  const parts = [`"apiVersion":${JSON.stringify(apiVersion)}`, '"kind":"ResourceList"', `"items":[${[...texts, ...generated].join(',')}]`];
  if (results.length) parts.push(`"results":${JSON.stringify(results)}`);
  return `{${parts.join(',')}}\n`;
}
