import { compareKeys, error, hasErrors, type Problem } from '../api/index.js';
import { isValkeyObject, objectRefOf } from '../menu/parse.js';
import { isRenderConfig } from '../menu/render-config.js';
import { renderAll } from '../render/render-all.js';
import type { KubeObject } from '../render/object.js';
import { fileOf, isGenerated, isKptfile, isLocalConfig, originOf } from './annotations.js';
import { chooseRenderConfig } from './function-config.js';
import type { RunCounts } from './report.js';
import { STDIN_PATH } from './report.js';
import { describeLocation, refKey, type FileLocation, type FileLookup } from './results.js';

export interface InputItem {
  text: string;
  value: unknown;
  /** Where it came from: kpt's annotations, or the file the plain-files mode read. */
  file?: { path: string; index: number };
}

export interface GeneratedObject {
  object: KubeObject;
  path: string;
  index: number;
}

export interface FunctionOutcome {
  ok: boolean;
  /** Items that go out as they came in, in a deterministic order. */
  passthrough: InputItem[];
  /**
   * Our own output from an earlier run, in input order: dropped on success, kept untouched on
   * failure (sort it with `sortItems` before writing it out).
   */
  previous: InputItem[];
  generated: GeneratedObject[];
  problems: Problem[];
  fileOf: FileLookup;
  stats: RunCounts;
}

export interface FunctionOptions {
  validateOnly: boolean;
  /** Plain-files mode leaves local config (render config, Kptfile) out of the output. */
  dropLocalConfig: boolean;
}

/**
 * The function's whole job over items whatever the transport: sort out what is ours, render,
 * and decide what goes out. Never throws; every problem is a result.
 */
export function runFunction(items: readonly InputItem[], functionConfig: unknown, options: FunctionOptions): FunctionOutcome {
  const problems: Problem[] = [];
  const passthrough: InputItem[] = [];
  const previous: InputItem[] = [];
  const valkeyObjects: unknown[] = [];
  /** Where each of `valkeyObjects` came from, by position. */
  const valkeyFiles: (FileLocation | undefined)[] = [];
  const renderConfigItems: InputItem[] = [];
  const files = new Map<string, FileLocation[]>();

  for (const item of items) {
    const v = item.value as { apiVersion?: unknown; kind?: unknown } | null;
    if (v === null || typeof v !== 'object' || Array.isArray(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string') {
      problems.push(error(`${describeItem(item)}: not a Kubernetes object: every resource needs a string apiVersion and kind`));
      passthrough.push(item);
      continue;
    }
    const ref = objectRefOf(v);
    const file = locate(item);
    if (file) files.set(refKey(ref), [...(files.get(refKey(ref)) ?? []), file]);
    if (isGenerated(v)) {
      previous.push(item);
      continue;
    }
    if (isRenderConfig(v)) renderConfigItems.push(item);
    else if (isValkeyObject(v.apiVersion, v.kind)) {
      valkeyObjects.push(v);
      valkeyFiles.push(file);
    }
    const local = isLocalConfig(v) || isKptfile(v) || isRenderConfig(v);
    if (!(options.dropLocalConfig && local)) passthrough.push(item);
  }

  const { config: render, problems: configProblems } = chooseRenderConfig(functionConfig, renderConfigItems);
  problems.push(...configProblems);

  const rendered = renderAll(valkeyObjects, render, { validateOnly: options.validateOnly });
  problems.push(...rendered.problems);
  const ok = !hasErrors(problems);
  const generated: GeneratedObject[] = [];
  if (ok && render && !options.validateOnly) {
    for (const c of rendered.clusters) {
      const path = `${render.outputDir}/${c.namespace}/${c.name}.yaml`;
      for (const [index, object] of c.objects.entries()) generated.push({ object, path, index });
    }
  }
  const lookup: FileLookup = (ref, inputs) => {
    if (inputs) return sortLocations(inputs.flatMap((i) => valkeyFiles[i] ?? []));
    // One name in several places with no positions given: the first place, whatever the input order.
    return sortLocations(files.get(refKey(ref)) ?? []).slice(0, 1);
  };
  return {
    ok,
    passthrough: sortItems(passthrough),
    previous,
    generated,
    problems,
    fileOf: lookup,
    stats: { ...rendered.stats, objects: generated.length },
  };
}

/**
 * Where an item came from, for messages: the file it was read from, else what kpt (path
 * annotations) or kustomize (origin annotations) say; a document of stdin only as a last resort.
 */
function locate(item: InputItem): FileLocation | undefined {
  if (item.file && item.file.path !== STDIN_PATH) return item.file;
  return fileOf(item.value) ?? originOf(item.value) ?? item.file;
}

const sortLocations = (places: FileLocation[]): FileLocation[] =>
  [...new Map(places.map((p) => [describeLocation(p), p])).values()].sort((a, b) => compareKeys([a.path, a.index], [b.path, b.index]));

/** An item that is not an object, named by where it is or how it starts (not by its position, which depends on the input order). */
function describeItem(item: InputItem): string {
  if (item.file) return describeLocation(item.file);
  const start = item.text.replace(/^[\s-]+/, '').split('\n')[0] ?? '';
  return `the item ${JSON.stringify(start.length > 40 ? `${start.slice(0, 40)}…` : start)}`;
}

/** Same input in any order → same output: by file and index where known, else by identity, then text. */
export function sortItems(items: InputItem[]): InputItem[] {
  const keyed = items.map((item) => {
    const file = item.file ?? fileOf(item.value);
    const ref = objectRefOf(item.value);
    return {
      item,
      key: [
        file?.path ?? '\uffff',
        String(file?.index ?? 0).padStart(8, '0'),
        ref.apiVersion,
        ref.kind,
        ref.namespace ?? '',
        ref.name,
        item.text,
      ],
    };
  });
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  return keyed.map((k) => k.item);
}
