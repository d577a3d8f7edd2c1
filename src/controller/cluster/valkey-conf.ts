/**
 * Reads the rendered `valkey.conf` (from the ConfigMap the pods mount) into directives, as
 * Valkey's own start-up parser splits lines: words separated by spaces, double- or single-quoted
 * words kept whole. A directive given on several lines (`save`) keeps every line's arguments.
 */
export type Directives = ReadonlyMap<string, readonly string[][]>;

function words(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length) break;
    const quote = line[i];
    if (quote === '"' || quote === "'") {
      let word = '';
      i++;
      while (i < line.length && line[i] !== quote) {
        if (line[i] === '\\' && quote === '"' && i + 1 < line.length) i++;
        word += line[i];
        i++;
      }
      out.push(word);
      i++;
    } else {
      let word = '';
      while (i < line.length && line[i] !== ' ' && line[i] !== '\t') word += line[i++];
      out.push(word);
    }
  }
  return out;
}

export function parseValkeyConf(text: string): Directives {
  const directives = new Map<string, string[][]>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [name, ...args] = words(line);
    if (name === undefined) continue;
    const key = name.toLowerCase();
    directives.set(key, [...(directives.get(key) ?? []), args]);
  }
  return directives;
}
