// The Markdown comment as GitHub would take it: package text cannot inject markup or HTML, long
// groups fold into balanced <details>, and the comment stays under GitHub's size limit.
import { describe, expect, it } from 'vitest';
import { escapeMarkdown, formatPlanMarkdown, MARKDOWN_MARKER } from '../../src/plan/format-markdown.js';
import { planChange } from '../../src/plan/plan.js';
import { cluster, config, image, renderConfigObject } from '../support/objects.js';

const menu = (valkey: Record<string, string>) => [
  image('valkey-9-0'),
  config('standard', { imageRef: 'valkey-9-0', resources: { cpu: '1', memory: '2Gi' }, valkey }),
];
const clusters = (n: number) =>
  Array.from({ length: n }, (_, i) => cluster(`cache-${String(i).padStart(3, '0')}`, { shards: 3, replicasPerShard: 1 }));
const plan = (n: number, before: Record<string, string>, after: Record<string, string>) =>
  planChange(
    { objects: [...menu(before), ...clusters(n)], renderConfig: renderConfigObject() },
    { objects: [...menu(after), ...clusters(n)], renderConfig: renderConfigObject() },
  );

describe('the Markdown comment', () => {
  it('escapes what the package wrote: no HTML, no markup', () => {
    const md = formatPlanMarkdown(
      plan(1, { 'notify-keyspace-events': 'KEA' }, { 'notify-keyspace-events': '<img src=x onerror=alert(1)>*_`[x](y)' }),
    );
    expect(md).not.toContain('<img');
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;\\*\\_\\`\\[x\\](y)');
    expect(escapeMarkdown('a -> b | c')).toBe('a → b \\| c');
  });

  it('starts with its marker and folds long groups into balanced <details>', () => {
    const md = formatPlanMarkdown(plan(12, { 'tcp-backlog': '511' }, { 'tcp-backlog': '1024' }));
    expect(
      md.startsWith(
        `${MARKDOWN_MARKER}\n### valkey-krm plan\n\n**menu edit to ValkeyConfig standard: 12 clusters, 12 roll (72 pods, 36 failovers), 0 held**\n`,
      ),
    ).toBe(true);
    expect(md.match(/<details>/g)?.length).toBe(1);
    expect(md.match(/<\/details>/g)?.length).toBe(1);
    expect(md).toContain('<details><summary><b>roll: 12 clusters</b></summary>\n\n- **team-a/cache-000**');
    // A blank line after <summary> and before </details>, or GitHub renders the list as text.
    expect(md).toMatch(/\n\n<\/details>\n/);
  });

  it('stays under the size limit and says how many clusters it left out', () => {
    const md = formatPlanMarkdown(plan(150, { hz: '10' }, { hz: '20' }), { maxChars: 8000 });
    expect(md.length).toBeLessThan(8000);
    expect(md).toMatch(/- \.\.\. and \d+ more \(the comment has a size limit; run `render-valkey plan` for the whole list\)\n/);
    const shown = md.match(/^- \*\*team-a\/cache-\d+\*\*$/gm)?.length ?? 0;
    const left = Number(/and (\d+) more/.exec(md)?.[1]);
    expect(shown + left).toBe(150);
  });
});

describe('hostile strings from the package, in every position', () => {
  // Pieces a pull request could put in a name, value, file name or message, joined at random.
  const PIECES = [
    '\n',
    '\r\n',
    '\n\n',
    '# ',
    '### all clear',
    '> ',
    '- ',
    '1. ',
    '---',
    '|',
    '`',
    '```',
    '**',
    '__',
    '~~',
    '[a](https://evil.example)',
    '![x](y)',
    '<img src=x onerror=alert(1)>',
    '<details>',
    '</details>',
    '<!-- valkey-krm-plan -->',
    '&lt;b&gt;',
    '@octocat',
    '@org/team',
    'https://evil.example',
    'www.evil.example',
    'a@b.example',
    '#1',
    'GH-1',
    '$x^2$',
    ':+1:',
    '\u001b[2J',
    '\u2028',
    '\u202e',
    '\\',
    'plain',
    ' -> ',
  ];
  const hostile = (r: () => number) =>
    Array.from({ length: 1 + Math.floor(r() * 6) }, () => PIECES[Math.floor(r() * PIECES.length)]).join('');

  /** What escaped text may still contain: nothing that starts markup, HTML, a mention, a reference or a link. */
  function expectInert(md: string) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this pattern is about
    expect(md).not.toMatch(/[\r\u001b\u2028\u202e]/);
    expect(md).not.toMatch(/(^|[^\\])[`*_[\]|~$]/m);
    expect(md).not.toMatch(/@(?!\u2060)/);
    expect(md).not.toMatch(/#(?!\u2060)/);
    expect(md).not.toMatch(/:\/\/|www\./i);
    expect(md).not.toMatch(/[<>]/);
  }

  it('escapeMarkdown leaves nothing that renders, on 2,000 generated strings', async () => {
    const { mulberry32 } = await import('../support/random-resource-list.js');
    const r = mulberry32(22);
    for (let i = 0; i < 2000; i++) {
      const s = hostile(r);
      const out = escapeMarkdown(s);
      expect(out, JSON.stringify(s)).not.toContain('\n');
      expectInert(out);
    }
  });

  it('a whole comment built from hostile values, names and file names keeps its own structure only', async () => {
    const { mulberry32 } = await import('../support/random-resource-list.js');
    const r = mulberry32(7);
    for (let i = 0; i < 50; i++) {
      const value = hostile(r);
      const p = planChange(
        { objects: [...menu({ 'notify-keyspace-events': 'KEA' }), ...clusters(1)], renderConfig: renderConfigObject() },
        {
          objects: [...menu({ 'notify-keyspace-events': value }), ...clusters(1), { ...config(hostile(r)), kind: 'ValkeyConfig' }],
          renderConfig: renderConfigObject(),
          fileOf: () => ({ path: hostile(r), line: 3, column: 5 }),
        },
      );
      const md = formatPlanMarkdown(p);
      const lines = md.split('\n');
      // Every line is one the formatter writes: its marker, headings, list items, folds, or blank.
      for (const line of lines)
        expect(line, JSON.stringify(value)).toMatch(
          /^(<!-- valkey-krm-plan -->|### valkey-krm plan|#### \w[^<>]*|\*\*.*\*\*|- .*| {2}- .*|<details><summary><b>[^<>]*<\/b><\/summary>|<\/details>|)$/,
        );
      expect(lines.filter((l) => l === MARKDOWN_MARKER)).toHaveLength(1);
      const body = lines
        .filter((l) => !/^(<!-- valkey-krm-plan -->|<\/?details>|<details><summary>)/.test(l))
        .join('\n')
        // File names stand in code spans, where nothing renders (no HTML, mention or link).
        .replace(/ \(in `[^`\n]*`\)/g, '');
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this pattern is about
      expect(body).not.toMatch(/[\r\u001b\u2028\u202e<>]/);
      expect(body).not.toMatch(/@(?!\u2060)|:\/\/|www\./);
    }
  });

  it('over the size limit, the long lists give way and every error is kept', () => {
    const broken = Array.from({ length: 40 }, (_, i) => ({
      ...cluster(`bad-${i}`),
      spec: { configRef: 'missing', shards: 1, replicasPerShard: 0 },
    }));
    const p = planChange(
      { objects: [...menu({}), ...clusters(150)], renderConfig: renderConfigObject() },
      { objects: [...menu({}), ...clusters(150), ...broken], renderConfig: renderConfigObject() },
    );
    const md = formatPlanMarkdown(p, { maxChars: 20_000 });
    expect(md.length).toBeLessThan(20_000);
    expect(md.match(/^- error: /gm)?.length).toBe(40);
  });
});
