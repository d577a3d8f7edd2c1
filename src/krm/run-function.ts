import { RENDER_CONFIG_KIND, error, hasErrors, type Problem, type RenderConfig } from '../api/index.js';
import { isValkeyObject, objectRefOf } from '../menu/parse.js';
import { isRenderConfig, parseRenderConfig } from '../menu/render-config.js';
import { renderAll } from '../render/render-all.js';
import type { KubeObject } from '../render/object.js';
import { fileOf, isGenerated, isKptfile, isLocalConfig } from './annotations.js';
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

export interface JobOutcome {
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
  stats: { images: number; configs: number; roles: number; clusters: number; objects: number };
}

export interface JobOptions {
  validateOnly: boolean;
  /** Plain-files mode leaves local config (render config, Kptfile) out of the output. */
  dropLocalConfig: boolean;
  /** Where the function config came from, for messages. */
  functionConfigSource?: string;
}

/**
 * The function's whole job over items whatever the transport: sort out what is ours, render,
 * and decide what goes out. Never throws; every problem is a result.
 */
export function runJob(items: readonly InputItem[], functionConfig: unknown, options: JobOptions): JobOutcome {
  const problems: Problem[] = [];
  const passthrough: InputItem[] = [];
  const previous: InputItem[] = [];
  const valkeyObjects: unknown[] = [];
  const renderConfigItems: InputItem[] = [];
  const files = new Map<string, { path: string; index: number }>();

  items.forEach((item, i) => {
    const v = item.value as { apiVersion?: unknown; kind?: unknown } | null;
    if (v === null || typeof v !== 'object' || Array.isArray(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string') {
      const where = item.file ? `${item.file.path}${item.file.index ? ` (document ${item.file.index + 1})` : ''}` : `items[${i}]`;
      problems.push(error(`${where}: not a Kubernetes object: every resource needs a string apiVersion and kind`));
      passthrough.push(item);
      return;
    }
    const ref = objectRefOf(v);
    const file = item.file ?? fileOf(v);
    if (file && !files.has(refKey(ref))) files.set(refKey(ref), file);
    if (isGenerated(v)) {
      previous.push(item);
      return;
    }
    if (isRenderConfig(v)) renderConfigItems.push(item);
    else if (isValkeyObject(v.apiVersion, v.kind)) valkeyObjects.push(v);
    const local = isLocalConfig(v) || isKptfile(v) || isRenderConfig(v);
    if (!(options.dropLocalConfig && local)) passthrough.push(item);
  });

  // `kpt fn eval` without --fn-config sends an empty `ConfigMap function-input`: that is no config.
  let config = isEmptyConfigMap(functionConfig) ? undefined : functionConfig;
  if (config === undefined) {
    if (renderConfigItems.length === 1) config = renderConfigItems[0]?.value;
    else if (renderConfigItems.length > 1) {
      const where = renderConfigItems.map((r) => r.file?.path ?? objectRefOf(r.value).name).join(', ');
      problems.push(error(`found ${renderConfigItems.length} ${RENDER_CONFIG_KIND} objects (${where}) and no function config to choose between them; keep one, or name one explicitly (--config FILE, or the Kptfile's configPath)`));
    }
  }
  let render: RenderConfig | undefined;
  if (renderConfigItems.length <= 1 || config !== undefined) {
    const parsed = parseRenderConfig(config);
    problems.push(...parsed.problems);
    render = parsed.config;
  }

  const rendered = renderAll(valkeyObjects, render, { validateOnly: options.validateOnly });
  problems.push(...rendered.problems);
  const ok = !hasErrors(problems);
  const generated: GeneratedObject[] = [];
  if (ok && render && !options.validateOnly) {
    for (const c of rendered.clusters) {
      const path = `${render.outputDir}/${c.namespace}/${c.name}.yaml`;
      c.objects.forEach((object, index) => generated.push({ object, path, index }));
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

function isEmptyConfigMap(value: unknown): boolean {
  const v = value as { apiVersion?: unknown; kind?: unknown; data?: unknown } | null;
  if (v?.kind !== 'ConfigMap' || v.apiVersion !== 'v1') return false;
  return v.data === undefined || v.data === null || (typeof v.data === 'object' && Object.keys(v.data).length === 0);
}

/** Same input in any order → same output: by file and index where known, else by identity, then text. */
export function sortItems(items: InputItem[]): InputItem[] {
  const keyed = items.map((item) => {
    const file = item.file ?? fileOf(item.value);
    const ref = objectRefOf(item.value);
    return { item, key: [file?.path ?? '\uffff', String(file?.index ?? 0).padStart(8, '0'), ref.apiVersion, ref.kind, ref.namespace ?? '', ref.name, item.text] };
  });
  keyed.sort((a, b) => {
    for (let i = 0; i < a.key.length; i++) {
      const x = a.key[i] as string;
      const y = b.key[i] as string;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
  return keyed.map((k) => k.item);
}
