// The fast path of parseDocuments (plain files: render-valkey <dir>, plan, validate) must give the
// documents the full `yaml` parser gives (texts, values, where a field is) on every file it takes,
// and leave to the full parser every file it is not sure of.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastDocuments, parseDocuments, type SourceItem } from '../../src/krm/read-input.js';
import { filesUnder } from '../support/files.js';
import { mulberry32 } from '../support/random-resource-list.js';

const yamlFiles = (dir: string): string[] =>
  filesUnder(dir, { skip: (name) => name === 'node_modules' })
    .filter((file) => /\.ya?ml$/.test(file))
    .map((file) => join(dir, file));

const plain = (docs: SourceItem[]) => docs.map((d) => ({ text: d.text, value: d.value }));

/** Reads `text` on both paths and compares; returns whether the fast path took it. */
function agree(text: string, fields: string[] = ['metadata.name', 'spec', 'kind']): boolean {
  const full = parseDocuments(text, 'f.yaml', { fast: false });
  const either = parseDocuments(text, 'f.yaml');
  expect(plain(either.docs)).toEqual(plain(full.docs));
  expect(either.errors).toEqual(full.errors);
  either.docs.forEach((doc, i) => {
    for (const field of fields) expect(doc.at?.(field)).toEqual(full.docs[i]?.at?.(field));
  });
  return fastDocuments(text, 'f.yaml') !== undefined;
}

const FILES = ['kptfile-examples', 'integrations', 'test/golden/cases', 'deploy', 'crds'].flatMap(yamlFiles);

describe('parseDocuments, fast path', () => {
  it('agrees with the full parser on every YAML file in the repository, and takes most of them', () => {
    expect(FILES.length).toBeGreaterThan(20);
    let taken = 0;
    for (const file of FILES) {
      try {
        if (agree(readFileSync(file, 'utf8'))) taken++;
      } catch (e) {
        throw new Error(`${file}: ${(e as Error).message}`);
      }
    }
    expect(taken).toBeGreaterThan(FILES.length / 3);
  });

  it('splits at document markers as the full parser does: comments, blank lines, a head, no last line break', () => {
    const a = 'apiVersion: v1\nkind: A\nmetadata:\n  name: a\n';
    const b = 'apiVersion: v1\nkind: B\nmetadata:\n  name: b\n';
    const taken = [
      `${a}---\n${b}`,
      `---\n${a}---\n${b}`,
      `# head\n# more\n---\n${a}---\n${b}`,
      `# head\n\n${a}# tail of a\n\n---\n# head of b\n${b}`,
      `${a}--- # a comment on the marker\n${b}`,
      `${a}---   \n${b}`,
      `${a}---\n${b.trimEnd()}`,
      `${a}\n\n---\n\n${b}`,
      'kind: A\ndata:\n  x: |\n    ---\n    not a marker\n',
    ];
    for (const text of taken) expect(agree(text), text).toBe(true);
  });

  it('leaves to the full parser what it is not sure of, and still agrees', () => {
    const a = 'kind: A\nmetadata:\n  name: a\n';
    const left = [
      `${a}...\n---\n${a}`,
      `%YAML 1.2\n---\n${a}`,
      `${a}--- {kind: B}\n`,
      `${a}---\n# only a comment\n---\n${a}`,
      `${a}---\n# a comment at the end\n`,
      `${a}---\n\n`,
      `${a}---\n`,
      `---\n${a}---\n`,
      `${a}---\njust a scalar\n`,
      `${a}--- |\n  text\n`,
      `${a.replace(/\n/g, '\r\n')}`,
      `${a}---\nkind: [unclosed\n`,
      `${a}---\nkey: value\n  bad: indent\n`,
      `${a}---\na: 1\na: 2\n`,
      `${a}-----\n`,
    ];
    for (const text of left) expect(agree(text), text).toBe(false);
  });

  it('agrees on 300 files made of the repository documents with random markers, comments and blank lines', () => {
    const docs = FILES.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split(/^---[^\n]*\n/m)
        .filter((d) => d.trim() !== ''),
    );
    const r = mulberry32(34);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
    const gaps = ['', '\n', '# a comment\n', '\n# a comment\n\n'];
    const markers = ['---\n', '--- # marker comment\n', '---  \n'];
    let taken = 0;
    for (let i = 0; i < 300; i++) {
      let text = r() < 0.3 ? pick(['# head\n', '---\n', '# head\n---\n']) : '';
      const n = 1 + Math.floor(r() * 4);
      for (let d = 0; d < n; d++) {
        if (d > 0) text += pick(gaps) + pick(markers) + pick(gaps);
        text += pick(docs);
      }
      if (r() < 0.1) text += pick(['---\n', '# end\n', '...\n']);
      if (r() < 0.1) text = text.trimEnd();
      try {
        if (agree(text)) taken++;
      } catch (e) {
        throw new Error(`file ${i}: ${(e as Error).message}\n--- input ---\n${text}`);
      }
    }
    expect(taken).toBeGreaterThan(75);
  }, 120_000);
});
