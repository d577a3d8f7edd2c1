import type { CST, Document, Node } from 'yaml';
import { emitYaml } from './yaml/emitter.js';
import { fastParse } from './yaml/fast-reader.js';
import { isStackOverflow, MAX_NESTING, nestsDeeperThan, TOO_DEEP } from './yaml/nesting.js';
import { streamErrors, fieldOffset, lineIndex, parseStream, toJS, withoutSource, yamlLib, type TextPosition } from './yaml/yaml-package.js';

/** An item as it arrived: its exact source text (kept for byte-identical pass-through) and its value. */
export interface SourceItem {
  text: string;
  value: unknown;
  /** Where a field of it is in the text it was read from (parseDocuments only). */
  at?: (field?: string) => TextPosition | undefined;
}

export interface SourceError {
  message: string;
}

export interface ParsedResourceList {
  format: 'yaml' | 'json';
  apiVersion: string;
  kind: string;
  items: SourceItem[];
  functionConfig?: unknown;
  /** Column of the `-` of the items sequence (YAML), so generated items line up with the rest. */
  seqIndent: number;
}

/** The ResourceList apiVersion written back; v1beta1 is read too. */
export const RESOURCE_LIST_API_VERSION = 'config.kubernetes.io/v1';
const isResourceListVersion = (v: unknown): v is string => v === RESOURCE_LIST_API_VERSION || v === 'config.kubernetes.io/v1beta1';

/** Start of the line holding `offset`: item texts include their indentation. */
function lineStart(text: string, offset: number): number {
  const nl = text.lastIndexOf('\n', offset - 1);
  return nl + 1;
}

/**
 * Reads a ResourceList. Each item keeps its source text exactly: comments, quoting, key order and
 * kpt's annotations survive because unchanged items are written back as the bytes that came in.
 */
export function parseResourceList(text: string, options: { fast?: boolean } = {}): { list?: ParsedResourceList; errors: SourceError[] } {
  if (text.trim() === '')
    return {
      errors: [
        { message: `input is empty: expected a ResourceList (apiVersion ${RESOURCE_LIST_API_VERSION}, kind ResourceList) on stdin` },
      ],
    };
  const fast = options.fast === false ? undefined : fastResourceList(text);
  if (fast) return { list: fast, errors: [] };
  try {
    return parseFullResourceList(text);
  } catch (e) {
    // Turning the document into values can still fail: a bad merge key (<<), too many aliases.
    return {
      errors: [{ message: isStackOverflow(e) ? `input: ${TOO_DEEP}` : `input: invalid YAML: ${withoutSource((e as Error).message)}` }],
    };
  }
}

/**
 * An alias in an item whose anchor is outside that item: kpt and kustomize, and this function's
 * output, hand each item on as its own text, which then holds an alias to nothing (or, reordered,
 * an alias before its anchor) and does not parse. Refused with the place to fix.
 */
function crossItemAlias(node: unknown, index: number): SourceError | undefined {
  const { isAlias, isNode, visit } = yamlLib();
  const anchors = new Set<string>();
  let outside: string | undefined;
  visit(node as Node, (_key, n) => {
    if (isAlias(n)) {
      if (!anchors.has(n.source)) {
        outside = n.source;
        return visit.BREAK;
      }
    } else if (isNode(n) && n.anchor) anchors.add(n.anchor);
    return undefined;
  });
  if (outside === undefined) return undefined;
  return {
    message: `input: items[${index}] uses the YAML alias *${outside}, whose anchor &${outside} is outside this item; each item is passed on as text of its own, so an alias must point into its own item: repeat the value, or move the anchor into this item`,
  };
}

function parseFullResourceList(text: string): { list?: ParsedResourceList; errors: SourceError[] } {
  const { CST, isMap, isSeq } = yamlLib();
  const { tokens, docs } = parseStream(text);
  const errors = streamErrors(text, docs, (i) => (docs.length > 1 ? `input document ${i + 1}` : 'input'));
  if (errors.some(isStackOverflow)) return { errors: [{ message: `input: ${TOO_DEEP}` }] };
  if (errors.length) return { errors };
  const real = docs.filter((d) => d.contents !== null).length;
  if (real !== 1) {
    return {
      errors: [
        {
          message: `input has ${real} YAML documents: expected exactly one ResourceList. To render plain files, pass them as arguments instead (see --help)`,
        },
      ],
    };
  }
  const docIndex = docs.findIndex((d) => d.contents !== null);
  const doc = docs[docIndex] as Document;
  const root = doc.contents;
  if (!isMap(root)) {
    return { errors: [{ message: 'input is not a ResourceList: expected a mapping with apiVersion, kind: ResourceList and items' }] };
  }
  // Convert field by field: the items are converted once each, below.
  const field = (key: string) => toJS(doc, root.get(key, true));
  const apiVersion = field('apiVersion');
  const kind = field('kind');
  if (kind !== 'ResourceList' || !isResourceListVersion(apiVersion)) {
    return {
      errors: [
        {
          message: `input is a ${String(kind ?? 'document without a kind')} (apiVersion ${String(apiVersion ?? 'unset')}), not a ResourceList of apiVersion ${RESOURCE_LIST_API_VERSION} or v1beta1. To render plain files, pass them as arguments instead (see --help)`,
        },
      ],
    };
  }
  const itemsNode = root.get('items', true);
  if (itemsNode !== undefined && itemsNode !== null && !isSeq(itemsNode) && toJS(doc, itemsNode) !== null) {
    return { errors: [{ message: 'ResourceList.items must be a list' }] };
  }
  const format = isJson(text) ? 'json' : 'yaml';
  const items: SourceItem[] = [];
  let seqIndent = 0;
  if (isSeq(itemsNode)) {
    if (text.includes('*')) {
      const aliasErrors = itemsNode.items.flatMap((node, i) => crossItemAlias(node, i) ?? []);
      if (aliasErrors.length) return { errors: aliasErrors };
    }
    const cstSeq = findItemsToken(tokens[docIndex] as CST.Document);
    itemsNode.items.forEach((node, i) => {
      const itemValue = toJS(doc, node);
      let itemText: string;
      if (format === 'json') {
        const range = (node as Node).range;
        itemText = range ? text.slice(range[0], range[1]) : JSON.stringify(itemValue);
      } else if (cstSeq?.type === 'block-seq') {
        const cstItem = cstSeq.items[i] as CST.BlockSequence['items'][number];
        const first = (cstItem.start[0] ?? cstItem.value) as { offset: number } | undefined;
        const start = first ? lineStart(text, first.offset) : 0;
        const body = CST.stringify(cstItem);
        const end = (first?.offset ?? 0) + body.length;
        itemText = text.slice(start, end);
        // An item ending in an empty value (`key:`) also holds the next line's indentation: leave it there.
        const tail = /\n +$/.exec(itemText);
        if (tail) itemText = itemText.slice(0, tail.index + 1);
        if (!itemText.endsWith('\n')) itemText += '\n';
        if (i === 0) seqIndent = (first?.offset ?? 0) - start;
      } else {
        // A flow sequence of items in YAML (no orchestrator sends one): written back as a block item.
        itemText = `- ${emitYaml(itemValue).replace(/\n(?=.)/g, '\n  ')}`;
      }
      items.push({ text: itemText, value: itemValue });
    });
  }
  const functionConfig = field('functionConfig');
  if (nestsDeeperThan({ items: items.map((i) => i.value), functionConfig }, MAX_NESTING))
    return { errors: [{ message: `input: ${TOO_DEEP}` }] };
  return {
    list: { format, apiVersion, kind: 'ResourceList', items, functionConfig: functionConfig ?? undefined, seqIndent },
    errors: [],
  };
}

/** A ResourceList in JSON (which the fast reader leaves alone) starts with `{`. */
const isJson = (text: string): boolean => /^\s*\{/.test(text);

/**
 * The common case on the fast reader (see yaml/fast-reader.ts): a well-formed YAML ResourceList in plain
 * block style. Anything else, errors included, is left to the full parser.
 */
function fastResourceList(text: string): ParsedResourceList | undefined {
  if (isJson(text)) return undefined;
  const parsed = fastParse(text);
  if (!parsed) return undefined;
  const root = parsed.root as Record<string, unknown>;
  if (root.kind !== 'ResourceList' || !isResourceListVersion(root.apiVersion)) return undefined;
  const values = root.items ?? [];
  if (!Array.isArray(values)) return undefined;
  const texts = parsed.itemTexts;
  if (texts.length !== values.length) return undefined;
  return {
    format: 'yaml',
    apiVersion: root.apiVersion,
    kind: 'ResourceList',
    items: values.map((value, i) => ({ text: texts[i] as string, value })),
    functionConfig: root.functionConfig ?? undefined,
    seqIndent: parsed.seqIndent,
  };
}

function findItemsToken(doc: CST.Document): CST.BlockSequence | CST.FlowCollection | undefined {
  const { CST } = yamlLib();
  const map = doc.value;
  if (map?.type !== 'block-map') return undefined;
  for (const item of map.items) {
    if (item.key && CST.isScalar(item.key) && CST.resolveAsScalar(item.key)?.value === 'items') {
      const v = item.value;
      if (v && (v.type === 'block-seq' || v.type === 'flow-collection')) return v;
    }
  }
  return undefined;
}

/**
 * Splits a multi-document YAML file into documents, each with its exact text: from the end of the
 * previous document (so a file's head comment stays with its first document) up to the next one,
 * without the `---` marker itself.
 */
export function parseDocuments(
  text: string,
  where: string,
  options: { fast?: boolean } = {},
): { docs: SourceItem[]; errors: SourceError[] } {
  const fast = options.fast === false ? undefined : fastDocuments(text, where);
  if (fast) return { docs: fast, errors: [] };
  try {
    return parseFullDocuments(text, where);
  } catch (e) {
    return {
      docs: [],
      errors: [
        { message: isStackOverflow(e) ? `${where}: ${TOO_DEEP}` : `${where}: invalid YAML: ${withoutSource((e as Error).message)}` },
      ],
    };
  }
}

/** A `---` line: the marker alone, or with a comment after it (group 1). */
const DOCUMENT_MARKER = /^---(?:[ \t]+(#[^\n]*))?[ \t]*$/;
/** A line with no content: blank, or a comment. */
const NO_CONTENT = /^[ \t]*(?:#[^\n]*)?$/;

/**
 * The common multi-document file on the fast reader (yaml/fast-reader.ts): documents split at
 * `---` lines, each read by fastParse, with the texts parseFullDocuments gives them (the lines
 * after a marker, its comment first; a head of comments before the first marker joins the first
 * document). Anything else (`...`, directives, content on a marker line, a document of comments
 * only, anything fastParse leaves to the full parser) returns undefined, and the full parser
 * reads the file. Where a field is (`at`, for messages) comes from the full parser, run once
 * the first time it is asked. A differential test holds both paths to the same documents.
 */
export function fastDocuments(text: string, where: string): SourceItem[] | undefined {
  if (text.includes('\r')) return undefined;
  const lines = text.split('\n');
  // The last element is what follows the last line break: the last line when it has none.
  if (lines.at(-1) === '') lines.pop();
  const bodies: string[] = [];
  let body = '';
  let hasContent = false;
  let sawMarker = false;
  for (const line of lines) {
    const c = line.charCodeAt(0);
    if (c === 37 /* % */ || (c === 46 /* . */ && line.startsWith('...'))) return undefined;
    if (c === 45 /* - */ && line.startsWith('---')) {
      const marker = DOCUMENT_MARKER.exec(line);
      if (!marker) return undefined;
      sawMarker = true;
      if (hasContent) bodies.push(body);
      else if (bodies.length > 0) return undefined; // a document of comments only
      // Before the first marker, a head of comments stays for the first document.
      body = bodies.length === 0 && !hasContent ? body : '';
      if (marker[1]) body += `${marker[1]}\n`;
      hasContent = false;
      continue;
    }
    body += `${line}\n`;
    if (!hasContent && !NO_CONTENT.test(line)) hasContent = true;
  }
  // After the last marker, nothing or comments only: the full parser makes that a document too.
  if (hasContent) bodies.push(body);
  else if (sawMarker && (bodies.length > 0 || body !== '')) return undefined;
  const docs: SourceItem[] = [];
  let full: SourceItem[] | undefined;
  for (const [i, docText] of bodies.entries()) {
    const parsed = fastParse(docText);
    if (!parsed || parsed.root === null || typeof parsed.root !== 'object') return undefined;
    docs.push({
      text: docText,
      value: parsed.root,
      at: (field) => {
        full ??= parseFullDocuments(text, where).docs;
        return full[i]?.at?.(field);
      },
    });
  }
  return docs;
}

function parseFullDocuments(text: string, where: string): { docs: SourceItem[]; errors: SourceError[] } {
  const { tokens, docs } = parseStream(text);
  const errors = streamErrors(text, docs, () => where);
  if (errors.some(isStackOverflow)) return { docs: [], errors: [{ message: `${where}: ${TOO_DEEP}` }] };
  if (errors.length) return { docs: [], errors };
  const out: SourceItem[] = [];
  let lines: ((offset: number) => TextPosition) | undefined;
  const position = (doc: Document, field?: string): TextPosition | undefined => {
    const offset = fieldOffset(doc, field);
    if (offset === undefined) return undefined;
    lines ??= lineIndex(text);
    return lines(offset);
  };
  tokens.forEach((token, i) => {
    const doc = docs[i] as Document;
    if (doc.contents === null) return;
    const start = i === 0 ? 0 : token.offset;
    const end = i + 1 < tokens.length ? (tokens[i + 1] as CST.Document).offset : text.length;
    let body = text.slice(start, end);
    body = body.replace(
      /^((?:[ \t]*(?:#[^\n]*)?\r?\n)*)---(?:[ \t]+(#[^\n]*))?[ \t]*\r?\n/,
      (_m, before: string, comment?: string) => `${before}${comment ? `${comment}\n` : ''}`,
    );
    body = body.replace(/(^|\n)\.\.\.[ \t]*(\r?\n)?$/, '$1');
    if (!body.endsWith('\n')) body += '\n';
    out.push({ text: body, value: toJS(doc, doc.contents), at: (field) => position(doc, field) });
  });
  if (out.some((d) => nestsDeeperThan(d.value, MAX_NESTING))) return { docs: [], errors: [{ message: `${where}: ${TOO_DEEP}` }] };
  return { docs: out, errors: [] };
}
