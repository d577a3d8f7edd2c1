// The YAML emitter's text as specified, written the plain way: no caches, no shortcuts, one
// decision per scalar. src/krm/yaml/emitter.ts caches lines, literal blocks and the bytes of frozen
// parts for speed; test/krm/emitter-bytes.test.ts requires it to write exactly this text. This
// is the emitter as it was before those caches grew (2026-12-06), kept as the oracle.

type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

const SAFE_PLAIN = /^(?:[A-Za-z_/$(]|-[A-Za-z-])[A-Za-z0-9 _./$()@%=,+*|~:-]*$/;
const AMBIGUOUS = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~)$/;

function plainOk(s: string): boolean {
  return (
    SAFE_PLAIN.test(s) &&
    !AMBIGUOUS.test(s) &&
    !s.endsWith(' ') &&
    !s.endsWith(':') &&
    !s.includes(': ') &&
    !s.includes(' #') &&
    !s.includes('  ')
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for
const PRINTABLE_BLOCK = /^[^\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]*$/;
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATE_ALL = new RegExp(LONE_SURROGATE.source, 'g');

function doubleQuoted(s: string): string {
  return JSON.stringify(s.replace(LONE_SURROGATE_ALL, '\ufffd')).replace(
    RAW_IN_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const scalar = (s: string): string => (plainOk(s) ? s : doubleQuoted(s));
const indent = (col: number): string => ' '.repeat(col);

function keyLine(col: number, key: string, colonCol = col): string {
  const text = scalar(key);
  return text.length > 1000 ? `${indent(col)}? ${text}\n${indent(colonCol)}:` : `${indent(col)}${text}:`;
}

function literalBlock(s: string, col: number): string | undefined {
  if (!PRINTABLE_BLOCK.test(s) || LONE_SURROGATE.test(s) || s.startsWith(' ') || s.startsWith('\t') || s.startsWith('\n')) return undefined;
  const body = s.endsWith('\n') ? s.slice(0, -1) : s;
  if (body.endsWith('\n')) return undefined;
  const lines = body.split('\n');
  if (lines.some((line) => line.endsWith(' ') || line.endsWith('\t'))) return undefined;
  return `${s.endsWith('\n') ? ' |' : ' |-'}\n${lines.map((line) => (line === '' ? '' : indent(col) + line)).join('\n')}\n`;
}

function numberText(n: number): string {
  if (Number.isFinite(n)) return Object.is(n, -0) ? '-0.0' : String(n);
  return Number.isNaN(n) ? '.nan' : n > 0 ? '.inf' : '-.inf';
}

const isMapping = (v: Plain): v is { [key: string]: Plain } => v !== null && typeof v === 'object' && !Array.isArray(v);

function value(v: Plain, col: number): string {
  if (v === null) return ' null\n';
  if (typeof v === 'string') return (v.includes('\n') ? literalBlock(v, col + 2) : undefined) ?? ` ${scalar(v)}\n`;
  if (typeof v === 'boolean') return v ? ' true\n' : ' false\n';
  if (typeof v === 'number') return ` ${numberText(v)}\n`;
  if (Array.isArray(v)) return v.length === 0 ? ' []\n' : `\n${sequence(v, col)}`;
  return Object.keys(v).length === 0 ? ' {}\n' : `\n${mapping(v, col + 2, false)}`;
}

function mapping(map: { [key: string]: Plain }, col: number, firstInline: boolean): string {
  let out = '';
  let first = firstInline;
  for (const key of Object.keys(map)) {
    const v = map[key];
    if (v === undefined) continue;
    out += (first ? keyLine(0, key, col) : keyLine(col, key)) + value(v, col);
    first = false;
  }
  return out;
}

function sequence(items: Plain[], col: number): string {
  let out = '';
  for (const item of items) {
    if (isMapping(item) && Object.keys(item).length > 0) out += `${indent(col)}- ${mapping(item, col + 2, true)}`;
    else if (Array.isArray(item) && item.length > 0) out += `${indent(col)}-\n${sequence(item, col + 2)}`;
    else out += `${indent(col)}-${value(item, col)}`;
  }
  return out;
}

/** A mapping as an item of a block sequence whose `-` is at column `col`. */
export function referenceSequenceItem(map: { [key: string]: unknown }, col: number): string {
  return `${indent(col)}- ${mapping(map as { [key: string]: Plain }, col + 2, true)}`;
}

/** A whole document. */
export function referenceYaml(v: unknown): string {
  const p = v as Plain;
  if (isMapping(p) && Object.keys(p).length > 0) return mapping(p, 0, false);
  if (Array.isArray(p) && p.length > 0) return sequence(p, 0);
  return value(p, 0).slice(1);
}
