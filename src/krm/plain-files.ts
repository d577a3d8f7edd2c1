import { compareStrings, error, type Problem } from '../api/index.js';
import { parseDocuments } from './read-input.js';
import { STDIN_PATH, failureText, formatReport, successText } from './report.js';
import { runFunction, type InputItem } from './run-function.js';
import { bytesOutput, type RunOutput } from './run-output.js';
import type { Tool } from './tool.js';
import { ByteSink } from './yaml/byte-sink.js';
import { emitMappingTo } from './yaml/emitter.js';

/** A file named on the command line (or stdin), as text. */
export interface InputFile {
  path: string;
  text: string;
}

/** The YAML reader's words for a key that appears twice in one mapping. */
const REPEATED_KEY = /Map keys must be unique/;
/** `cat a.yaml b.yaml | render-valkey -` glues the second file's first object onto the first file's last one. */
const JOINED_FILES =
  '<stdin>: a key repeats in one document, as when files are joined without a `---` line between them (cat a.yaml b.yaml): name the files as arguments instead (render-valkey a.yaml b.yaml), or join them with a separator: awk \'FNR == 1 { print "---" } { print }\' a.yaml b.yaml | render-valkey -';

/**
 * Plain-files mode, for Argo CD's plugin, kustomize exec plugins and CI: files in, multi-document
 * YAML out, without local config (the render config, Kptfiles). On any error stdout stays empty,
 * since an empty render plus prune would delete everything, and the report goes to stderr.
 */
export function runPlainFiles(files: readonly InputFile[], tool: Tool, config?: InputFile): RunOutput {
  const problems: Problem[] = [];
  const items: InputItem[] = [];
  for (const file of [...files].sort((a, b) => compareStrings(a.path, b.path))) {
    const { docs, errors } = parseDocuments(file.text, file.path);
    problems.push(...errors.map((e) => error(e.message)));
    if (file.path === STDIN_PATH && errors.some((e) => REPEATED_KEY.test(e.message))) problems.push(error(JOINED_FILES));
    for (const [index, { at, ...doc }] of docs.entries()) items.push({ ...doc, file: { path: file.path, index, ...(at ? { at } : {}) } });
  }
  let functionConfig: unknown;
  if (config) {
    const { docs, errors } = parseDocuments(config.text, config.path);
    problems.push(...errors.map((e) => error(e.message)));
    if (!errors.length && docs.length !== 1)
      problems.push(error(`${config.path}: expected exactly one render config document, found ${docs.length}`));
    functionConfig = docs[0]?.value;
  }
  const outcome = runFunction(items, functionConfig, { validateOnly: tool === 'validate-valkey', dropLocalConfig: true });
  const all = [...problems, ...outcome.problems];
  const fileOf = outcome.fileOf;
  if (all.some((p) => p.severity === 'error')) {
    return { stdout: '', stderr: formatReport(all, fileOf, tool, failureText(tool)), exitCode: 1 };
  }
  const stderr = formatReport(all, fileOf, tool, successText(tool, outcome.stats, 'plain-files'));
  if (tool === 'validate-valkey') return { stdout: '', stderr, exitCode: 0 };
  const out = new ByteSink();
  for (const item of outcome.passthrough) {
    out.write('---\n');
    out.write(item.text);
  }
  for (const g of outcome.generated) {
    out.write('---\n');
    if (g.header) out.write(`# ${g.header}\n`);
    emitMappingTo(g.object, out);
  }
  return bytesOutput(out, stderr, 0);
}
