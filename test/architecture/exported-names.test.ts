// One meaning per exported name across src/ (editors auto-import by name, so two `Plan`s or three
// `canonicalJson`s end up mixed), and no export that nothing uses: not imported by another module
// and not used in its own file either (dead code that reads as API; knip's ignoreExportsUsedInFile).
// A small check over the TypeScript parser rather than knip: the rule needs only the top-level
// declarations of src/ and the import lists of the repository, and knip would be one more
// dependency with its own config to keep in step with the layering test's rooms.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from '../support/files.js';
import { REPO_ROOT } from '../support/paths.js';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const parse = (file: string) => ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);

/** Names a file declares with `export` (re-exports are not declarations). */
function declaredExports(source: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const st of source.statements) {
    const modifiers = ts.canHaveModifiers(st) ? ts.getModifiers(st) : undefined;
    if (!modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    } else if (
      (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) &&
      st.name
    )
      names.push(st.name.text);
  }
  return names;
}

/** Every name another module imports or re-exports by name, and every name a file uses at all. */
function namesUsedElsewhere(files: readonly string[]): Map<string, Set<string>> {
  const usedBy = new Map<string, Set<string>>();
  const note = (name: string, file: string) => usedBy.set(name, (usedBy.get(name) ?? new Set()).add(file));
  for (const file of files) {
    const source = parse(file);
    for (const st of source.statements) {
      if (ts.isImportDeclaration(st)) {
        const bindings = st.importClause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) note((e.propertyName ?? e.name).text, file);
      } else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
        for (const e of st.exportClause.elements) note((e.propertyName ?? e.name).text, file);
      }
    }
    // `import * as x` and dynamic imports use members by property access.
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node)) note(node.name.text, file);
      ts.forEachChild(node, visit);
    };
    if (/import \* as |import\(/.test(read(file))) visit(source);
  }
  return usedBy;
}

/** How often an identifier occurs in a file's code (its declaration included). */
function uses(file: string, name: string): number {
  let n = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === name) n++;
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return n;
}

const SRC = typeScriptFiles('src');
const EVERYWHERE = [
  ...SRC,
  ...typeScriptFiles('functions'),
  ...typeScriptFiles('test'),
  ...typeScriptFiles('scripts'),
  ...typeScriptFiles('bench'),
];

describe('exported names of src/', () => {
  it('each exported name is declared once', () => {
    const files = new Map<string, string[]>();
    for (const file of SRC) for (const name of declaredExports(parse(file))) files.set(name, [...(files.get(name) ?? []), file]);
    const twice = [...files].filter(([, f]) => f.length > 1).map(([name, f]) => `${name}: ${f.join(', ')}`);
    expect(twice).toEqual([]);
  });

  it('every export is imported by some other module (src/, functions/, test/, scripts/ or bench/)', () => {
    const usedBy = namesUsedElsewhere(EVERYWHERE);
    const unused: string[] = [];
    for (const file of SRC) {
      for (const name of declaredExports(parse(file))) {
        const users = [...(usedBy.get(name) ?? [])].filter((f) => f !== file);
        // Used in its own file too (a parameter type of an exported function, a schema part): not dead.
        if (users.length === 0 && uses(file, name) < 2) unused.push(`${file}: ${name}`);
      }
    }
    expect(unused).toEqual([]);
  });

  it('finds what it looks for', () => {
    const source = ts.createSourceFile(
      'x.ts',
      "export const a = 1, b = 2;\nexport function c() {}\nexport interface D {}\nexport type E = 1;\nexport { f } from './f.js';\nconst g = 1;",
      ts.ScriptTarget.Latest,
      true,
    );
    expect(declaredExports(source)).toEqual(['a', 'b', 'c', 'D', 'E']);
  });
});
