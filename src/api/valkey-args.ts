/**
 * Why Valkey would refuse `value` as the arguments of a directive line, or undefined. Mirrors
 * Valkey's sdssplitargs, which reads valkey.conf lines: a quote opens a quoted argument that must
 * be closed, and a closing quote must be followed by a space or the end of the line; a NUL or line
 * break would end the line early. The value is written after its name as it is, so a value Valkey
 * cannot split stops every pod from starting ("Unbalanced quotes in configuration line").
 */
export function valkeyArgsError(value: string): string | undefined {
  if (/[\0\n\r]/.test(value)) return 'a value may not contain a line break or NUL (it would end the directive and start another)';
  const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\v' || c === '\f';
  const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
  let i = 0;
  while (i < value.length) {
    while (isSpace(value[i])) i++;
    if (i >= value.length) return undefined;
    let quote: '"' | "'" | undefined;
    for (;;) {
      const c = value[i];
      if (quote === '"') {
        if (c === undefined) return 'a value has a " that is never closed';
        if (c === '\\' && value[i + 1] === 'x' && isHex(value[i + 2]) && isHex(value[i + 3])) i += 3;
        else if (c === '\\' && value[i + 1] !== undefined) i++;
        else if (c === '"') {
          if (value[i + 1] !== undefined && !isSpace(value[i + 1]))
            return 'a closing " must be followed by a space or the end of the value';
          i++;
          break;
        }
      } else if (quote === "'") {
        if (c === undefined) return "a value has a ' that is never closed";
        if (c === '\\' && value[i + 1] === "'") i++;
        else if (c === "'") {
          if (value[i + 1] !== undefined && !isSpace(value[i + 1]))
            return "a closing ' must be followed by a space or the end of the value";
          i++;
          break;
        }
      } else {
        if (c === undefined || isSpace(c)) break;
        if (c === '"' || c === "'") quote = c;
      }
      i++;
    }
  }
  return undefined;
}
