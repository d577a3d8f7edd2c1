/** Every module specifier in a file: static imports and re-exports, and dynamic import(). */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s*'([^']+)'/gm)) found.push(m[1] as string);
  for (const m of text.matchAll(/^\s*import\s*'([^']+)'/gm)) found.push(m[1] as string);
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.push(m[1] as string);
  for (const m of text.matchAll(/getBuiltinModule\(\s*'([^']+)'\s*\)/g)) found.push(m[1] as string);
  return found;
}
