import { error } from '../api/index.js';
import { withFileAnnotations } from './annotations.js';
import { RESOURCE_LIST_API_VERSION, parseResourceList } from './read-input.js';
import { failureText, formatReport, successText } from './report.js';
import { toResults } from './results.js';
import { runFunction, sortItems, type FunctionOutcome, type GeneratedObject } from './run-function.js';
import { bytesOutput, type RunOutput } from './run-output.js';
import type { Tool } from './tool.js';
import { ByteSink } from './yaml/byte-sink.js';
import { emitMappingTo, emitYaml } from './yaml/emitter.js';
import { emitGeneratedObject, writeClusterText } from './cluster-writer.js';
import type { ClusterText } from '../render/cluster-text.js';

/**
 * KRM function mode: a ResourceList in, a ResourceList out. Items we do not own are written back
 * as the exact text that came in. On any error: exit 1, every input item unchanged, no generated
 * objects, and the results say why.
 */
export function runResourceList(input: string, tool: Tool): RunOutput {
  const { list, errors } = parseResourceList(input);
  if (!list) {
    const problems = errors.map((e) => error(e.message));
    const results = toResults(problems, () => []);
    return {
      stdout: emitYaml({ apiVersion: RESOURCE_LIST_API_VERSION, kind: 'ResourceList', items: [], results }),
      stderr: formatReport(problems, () => [], tool, failureText(tool)),
      exitCode: 1,
    };
  }
  // In YAML, each rendered object is written as soon as its cluster is rendered (and dropped with
  // the rest of the output if the run fails), so no rendered object outlives its cluster's turn.
  const generated = list.format === 'yaml' && tool === 'render-valkey' ? new ByteSink() : undefined;
  const indent = list.seqIndent;
  const outcome = runFunction(list.items, list.functionConfig, {
    validateOnly: tool === 'validate-valkey',
    dropLocalConfig: false,
    ...(generated
      ? {
          emit: (g: GeneratedObject) => emitGenerated(g, indent, generated),
          emitText: (text: ClusterText, path: string, header: string) => writeClusterText(generated, indent, text, path, header),
        }
      : {}),
  });
  // On failure, and when only validating, everything goes back as it came, our earlier output too.
  const emitted = outcome.ok && tool === 'render-valkey' ? outcome.passthrough : [...outcome.passthrough, ...sortItems(outcome.previous)];
  const stdout =
    list.format === 'json'
      ? jsonOutput(
          list.apiVersion,
          emitted.map((i) => i.text),
          outcome,
        )
      : yamlOutput(
          list.apiVersion,
          list.seqIndent,
          emitted.map((i) => i.text),
          outcome,
          outcome.ok ? generated : undefined,
        );
  const outcomeText = outcome.ok ? successText(tool, outcome.stats, 'resource-list') : failureText(tool);
  return bytesOutput(stdout, outcome.ok ? '' : formatReport(outcome.problems, outcome.fileOf, tool, outcomeText), outcome.ok ? 0 : 1);
}

function emitGenerated(g: GeneratedObject, indent: number, out: ByteSink): void {
  emitGeneratedObject(out, indent, g.object, g.path, g.index, g.header);
}

/** `streamed`: the generated items, already written (runFunction's `emit`). */
function yamlOutput(apiVersion: string, indent: number, texts: string[], outcome: FunctionOutcome, streamed?: ByteSink): ByteSink {
  const out = new ByteSink();
  out.write(`apiVersion: ${apiVersion}\nkind: ResourceList\n`);
  if (texts.length + outcome.generated.length + (streamed ? outcome.stats.objects : 0) === 0) out.write('items: []\n');
  else {
    out.write('items:\n');
    for (const text of texts) out.write(text);
    for (const g of outcome.generated) emitGenerated(g, indent, out);
    if (streamed) out.append(streamed);
  }
  const results = toResults(outcome.problems, outcome.fileOf);
  if (results.length) emitMappingTo({ results }, out);
  return out;
}

function jsonOutput(apiVersion: string, texts: string[], outcome: FunctionOutcome): ByteSink {
  const out = new ByteSink();
  out.write(`{"apiVersion":${JSON.stringify(apiVersion)},"kind":"ResourceList","items":[`);
  texts.forEach((text, i) => {
    if (i > 0) out.write(',');
    out.write(text);
  });
  outcome.generated.forEach((g, i) => {
    if (i > 0 || texts.length > 0) out.write(',');
    out.write(JSON.stringify(withFileAnnotations(g.object, g.path, g.index)));
  });
  out.write(']');
  const results = toResults(outcome.problems, outcome.fileOf);
  if (results.length) out.write(`,"results":${JSON.stringify(results)}`);
  out.write('}\n');
  return out;
}
