/**
 * A small YAML emitter for the plain data the renderer produces (objects, arrays, strings,
 * numbers, booleans, null). The general-purpose `yaml` stringifier dominated render time on large
 * menus; this one writes the same documents several times faster. Its output style is fixed:
 * block mappings, compact sequences (`- ` under the key, as kubectl prints), literal blocks for
 * multi-line text, and double quotes for any string a YAML 1.1 or 1.2 reader could take for
 * something else. A property test checks that `yaml.parse` reads back exactly what went in.
 */

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

const PRINTABLE_BLOCK = /^[^\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufeff]*$/;

/** Rendered manifests repeat the same keys and values thousands of times: decide each once. */
const scalarCache = new Map<string, string>();

function scalar(s: string): string {
  let out = scalarCache.get(s);
  if (out === undefined) {
    out = plainOk(s) ? s : JSON.stringify(s);
    if (scalarCache.size < 100_000) scalarCache.set(s, out);
  }
  return out;
}

/** Literal block text for multi-line strings a reader gets back exactly; undefined if unsafe. */
function literalBlock(s: string, indent: string): string | undefined {
  if (!s.includes('\n') || !PRINTABLE_BLOCK.test(s) || s.startsWith(' ') || s.startsWith('\n')) return undefined;
  const body = s.endsWith('\n') ? s.slice(0, -1) : s;
  if (body.endsWith('\n')) return undefined; // several trailing newlines need `|+`; quote instead
  if (body.split('\n').some((line) => line.endsWith(' ') || line.endsWith('\t'))) return undefined;
  const chomp = s.endsWith('\n') ? '|' : '|-';
  return `${chomp}\n${body.split('\n').map((line) => (line === '' ? '' : indent + line)).join('\n')}\n`;
}

function emitValue(value: Plain, indent: string, out: string[]): void {
  // Called after "key:" or "- ": writes the rest of the line and any nested lines.
  if (value === null) out.push(' null\n');
  else if (typeof value === 'boolean' || typeof value === 'number') out.push(` ${String(value)}\n`);
  else if (typeof value === 'string') {
    const block = literalBlock(value, `${indent}  `);
    out.push(block ? ` ${block}` : ` ${scalar(value)}\n`);
  } else if (Array.isArray(value)) {
    if (value.length === 0) out.push(' []\n');
    else {
      out.push('\n');
      emitSequence(value, indent, out);
    }
  } else {
    const keys = Object.keys(value);
    if (keys.length === 0) out.push(' {}\n');
    else {
      out.push('\n');
      emitMapping(value, `${indent}  `, out, false);
    }
  }
}

function emitMapping(map: { [key: string]: Plain }, indent: string, out: string[], firstInline: boolean): void {
  let first = firstInline;
  for (const key of Object.keys(map)) {
    const v = map[key];
    if (v === undefined) continue;
    out.push(first ? `${scalar(key)}:` : `${indent}${scalar(key)}:`);
    first = false;
    emitValue(v as Plain, indent, out);
  }
}

/** Compact sequences: `- ` at the parent key's indentation. */
function emitSequence(items: Plain[], indent: string, out: string[]): void {
  for (const item of items) {
    if (item !== null && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length > 0) {
      out.push(`${indent}- `);
      emitMapping(item, `${indent}  `, out, true);
    } else if (Array.isArray(item) && item.length > 0) {
      out.push(`${indent}-\n`);
      emitSequence(item, `${indent}  `, out);
    } else {
      out.push(`${indent}-`);
      emitValue(item, indent, out);
    }
  }
}

/** A whole document; a top-level mapping starts at column `indent` (for sequence items: after `- `). */
export function emitYaml(value: unknown): string {
  const out: string[] = [];
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    emitMapping(value as { [key: string]: Plain }, '', out, false);
  } else if (Array.isArray(value) && value.length > 0) {
    emitSequence(value as Plain[], '', out);
  } else {
    out.push('x:');
    emitValue(value as Plain, '', out);
    return out.join('').slice(3);
  }
  return out.join('');
}

/** A mapping as an item of a block sequence whose `-` is at column `indent`. */
export function emitSequenceItem(value: { [key: string]: unknown }, indent: number): string {
  const pad = ' '.repeat(indent);
  const out: string[] = [`${pad}- `];
  emitMapping(value as { [key: string]: Plain }, `${pad}  `, out, true);
  return out.join('');
}
