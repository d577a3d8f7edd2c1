/**
 * Valkey's own memory syntax (`maxmemory 1500mb`; util.c `memtoull`): units are case-insensitive,
 * `k`/`m`/`g` are powers of 1000, `kb`/`mb`/`gb` powers of 1024, `b` or none is bytes. `CONFIG GET`
 * prints memory settings in bytes. One reader for the menu's checks and the controller's compare.
 */
export function valkeyMemoryBytes(text: string): number | undefined {
  const m = /^\s*([0-9]+)\s*(k|kb|m|mb|g|gb|b)?\s*$/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? 'b').toLowerCase();
  const factor: Record<string, number> = { b: 1, k: 1e3, kb: 1024, m: 1e6, mb: 1024 ** 2, g: 1e9, gb: 1024 ** 3 };
  return n * (factor[unit] as number);
}

/** A word of a memory setting in bytes, as `CONFIG GET` prints it (`1500mb` → `1572864000`); any other word unchanged. */
export function memoryWordInBytes(word: string): string {
  const negative = word.startsWith('-');
  const bytes = valkeyMemoryBytes(negative ? word.slice(1) : word);
  if (bytes === undefined || /\s/.test(word)) return word;
  return String(negative ? -bytes : bytes);
}
