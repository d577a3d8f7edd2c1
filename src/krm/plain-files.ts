import { error, type Problem } from '../api/index.js';
import { parseDocuments } from './source.js';
import { runJob, type InputItem } from './job.js';
import { emitMappingTo } from './emit-yaml.js';
import { ByteSink, bytesOutput, type RunOutput } from './output.js';
import { formatReport } from './results.js';
import { failureText, type Tool } from './resource-list.js';

export interface SourceFile {
  path: string;
  text: string;
}

/**
 * Plain-files mode, for Argo CD's plugin, kustomize exec plugins and CI: files in, multi-document
 * YAML out, without local config (the render config, Kptfiles). On any error stdout stays empty,
 * since an empty render plus prune would delete everything, and the report goes to stderr.
 */
export function runFiles(files: readonly SourceFile[], tool: Tool, config?: SourceFile): RunOutput {
  const problems: Problem[] = [];
  const items: InputItem[] = [];
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const { docs, errors } = parseDocuments(file.text, file.path);
    problems.push(...errors.map((e) => error(e.message)));
    docs.forEach((doc, index) => items.push({ ...doc, file: { path: file.path, index } }));
  }
  let functionConfig: unknown;
  if (config) {
    const { docs, errors } = parseDocuments(config.text, config.path);
    problems.push(...errors.map((e) => error(e.message)));
    if (!errors.length && docs.length !== 1) problems.push(error(`${config.path}: expected exactly one render config document, found ${docs.length}`));
    functionConfig = docs[0]?.value;
  }
  const outcome = runJob(items, functionConfig, { validateOnly: tool === 'validate-valkey', dropLocalConfig: true });
  const all = [...problems, ...outcome.problems];
  const fileOf = outcome.fileOf;
  if (all.some((p) => p.severity === 'error')) {
    return { stdout: '', stderr: formatReport(all, fileOf, tool, failureText(tool)), exitCode: 1 };
  }
  const summary =
    tool === 'render-valkey'
      ? `rendered ${outcome.stats.clusters} clusters into ${outcome.generated.length} objects`
      : `valid: ${outcome.stats.images} images, ${outcome.stats.configs} configs, ${outcome.stats.roles} roles, ${outcome.stats.clusters} clusters`;
  const stderr = formatReport(all, fileOf, tool, summary);
  if (tool === 'validate-valkey') return { stdout: '', stderr, exitCode: 0 };
  const out = new ByteSink();
  for (const item of outcome.passthrough) {
    out.write('---\n');
    out.write(item.text);
  }
  for (const g of outcome.generated) {
    out.write('---\n');
    emitMappingTo(g.object, out);
  }
  return bytesOutput(out, stderr, 0);
}
