import { LABELS, MANAGED_BY, compareKeys, describeRef, error, hasErrors, warning, type Problem } from '../api/index.js';
import { isValkeyObject, objectRefOf } from '../menu/parse.js';
import { nearMissOfOurs } from '../menu/near-miss.js';
import { own } from '../menu/own.js';
import { isRenderConfig } from '../menu/render-config.js';
import { renderAll } from '../render/render-all.js';
import type { KubeObject } from '../render/object.js';
import { fileOf, isKptfile, isLocalConfig } from './annotations.js';
import { outputPath } from './output-path.js';
import { isEarlierOutput, wearsOurLabel } from './ownership.js';
import { chooseRenderConfig } from './function-config.js';
import type { RunCounts } from './report.js';
import { refKey, type FileLookup } from './results.js';

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
  const renderConfigItems: InputItem[] = [];
  /** Items wearing our managed-by label: earlier output, or a user's object that copied the label. */
  const labelled: InputItem[] = [];
  const files = new Map<string, { path: string; index: number }>();

  items.forEach((item, i) => {
    const v = item.value as { apiVersion: string; kind: string } | null;
    if (
      v === null ||
      typeof v !== 'object' ||
      Array.isArray(v) ||
      typeof own(v, 'apiVersion') !== 'string' ||
      typeof own(v, 'kind') !== 'string'
    ) {
      const where = item.file ? `${item.file.path}${item.file.index ? ` (document ${item.file.index + 1})` : ''}` : `items[${i}]`;
      problems.push(error(`${where}: not a Kubernetes object: every resource needs a string apiVersion and kind`));
      passthrough.push(item);
      return;
    }
    const ref = objectRefOf(v);
    const file = item.file ?? fileOf(v);
    if (file && !files.has(refKey(ref))) files.set(refKey(ref), file);
    if (wearsOurLabel(v) && !isValkeyObject(v.apiVersion, v.kind) && !isRenderConfig(v)) {
      labelled.push(item);
      return;
    }
    if (isRenderConfig(v)) renderConfigItems.push(item);
    else if (isValkeyObject(v.apiVersion, v.kind)) valkeyObjects.push(v);
    else {
      const nearMiss = nearMissOfOurs(v);
      if (nearMiss) problems.push(nearMiss);
    }
    const local = isLocalConfig(v) || isKptfile(v) || isRenderConfig(v);
    if (!(options.dropLocalConfig && local)) passthrough.push(item);
  });

  const { config: render, problems: configProblems } = chooseRenderConfig(functionConfig, renderConfigItems);
  problems.push(...configProblems);
  for (const item of labelled) {
    if (isEarlierOutput(item.value, render?.outputDir)) previous.push(item);
    else {
      const ref = objectRefOf(item.value);
      problems.push(
        warning(
          `${describeRef(ref)}: metadata.labels: wears ${LABELS.managedBy}: ${MANAGED_BY} but is not an object valkey-krm rendered, so it is kept unchanged; remove the label from objects you write yourself`,
          ref,
          'metadata.labels',
        ),
      );
      if (!(options.dropLocalConfig && (isLocalConfig(item.value) || isKptfile(item.value)))) passthrough.push(item);
    }
  }

  const rendered = renderAll(valkeyObjects, render, { validateOnly: options.validateOnly });
  problems.push(...rendered.problems);
  const paths = new Map<string, string>();
  if (render) {
    for (const c of rendered.clusters) {
      const path = outputPath(render.outputDir, c.namespace, c.name);
      if (path === undefined)
        problems.push(
          error(`ValkeyCluster ${JSON.stringify(`${c.namespace}/${c.name}`)}: its namespace and name do not make a safe file path`),
        );
      else paths.set(`${c.namespace}/${c.name}`, path);
    }
  }
  const ok = !hasErrors(problems);
  const generated: GeneratedObject[] = [];
  if (ok && render && !options.validateOnly) {
    for (const c of rendered.clusters) {
      const path = paths.get(`${c.namespace}/${c.name}`) as string;
      for (const [index, object] of c.objects.entries()) generated.push({ object, path, index });
    }
  }
  const lookup: FileLookup = (ref) => files.get(refKey(ref));
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
