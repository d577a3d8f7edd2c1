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
