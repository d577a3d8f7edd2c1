import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runResourceList } from '../../src/krm/resource-list.js';
import { cluster, guideMenu, renderConfigObject } from '../support/objects.js';
import { HEADER, functionConfigBlock } from '../support/yaml-docs.js';

const fnconfig = functionConfigBlock(stringify(renderConfigObject()));
/** The guide's menu and one cluster on it (with a replica: no data-loss warning), fresh objects each call. */
const menuObjects = () => [...guideMenu(), cluster('c', { configRef: 'large', replicasPerShard: 1 })];
/** An object as a compact ResourceList item. */
const asItem = (o: object): string => `- ${stringify(o, { indentSeq: false }).trimEnd().replace(/\n/g, '\n  ')}\n`;
const menuItems = menuObjects().map(asItem).join('');
/** A bulky ConfigMap item; the render must hand it back verbatim. */
const fillerItem = (i: number): string =>
  `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: filler-${i}\n    namespace: bulk\n  data:\n    blob: "${'x'.repeat(4000)}"\n`;

/** Items the way kpt 1.0 sends them: compact, head comments after the dash, single-quoted annotations. */
const kptItems = `- # The platform team's own file. Comments, quotes and order must survive.
  kind: ConfigMap # kind before apiVersion, on purpose
  apiVersion: v1
  metadata:
    name: "team-notes"
    namespace: 'a'
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'notes/a.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'notes/a.yaml'
      internal.config.kubernetes.io/seqindent: 'compact'
  data: {inline: "flow", n: 012, date: 2021-01-01, yes: on}
  binaryData: {}
- apiVersion: v1
  kind: Secret
  metadata:
    name: literal
    annotations:
      internal.config.kubernetes.io/path: 'notes/b.yaml'
  stringData:
    script: |
      line one

        indented line
    folded: >-
      folded
      text
`;

describe('ResourceList mode', () => {
  it('writes items it does not own back byte for byte', () => {
    const input = `${HEADER}${kptItems}${menuItems}${fnconfig}`;
    const out = runResourceList(input, 'render-valkey');
    expect(out.exitCode).toBe(0);
    expect(out.stdout.startsWith(`${HEADER}${kptItems}`)).toBe(true);
    const items = (parse(out.stdout) as { items: { kind: string }[] }).items;
    expect(items.filter((i) => i.kind === 'StatefulSet')).toHaveLength(1);
  });

  it('echoes v1beta1 and keeps indented sequences consistent', () => {
    const indented = menuItems.replace(/^(?=.)/gm, '  ');
    const input = `apiVersion: config.kubernetes.io/v1beta1\nkind: ResourceList\nitems:\n${indented}${fnconfig}`;
    const out = runResourceList(input, 'render-valkey');
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toMatch(/^apiVersion: config.kubernetes.io\/v1beta1\n/);
    expect(out.stdout).toContain('\n  - apiVersion: apps/v1\n    kind: StatefulSet\n');
    expect((parse(out.stdout) as { items: unknown[] }).items).toHaveLength(4 + 6);
  });

  it('reads and writes JSON, keeping item text', () => {
    const items = [...guideMenu(), cluster('c')];
    const raw = items.map((i) => JSON.stringify(i, null, 1));
    const input = `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[${raw.join(',')}],"functionConfig":${JSON.stringify(renderConfigObject())}}`;
    const out = runResourceList(input, 'render-valkey');
    expect(out.exitCode).toBe(0);
    const parsed = JSON.parse(out.stdout) as { items: { kind: string }[] };
    expect(parsed.items.map((i) => i.kind)).toEqual([
      'ValkeyCluster',
      'ValkeyConfig',
      'ValkeyConfig',
      'ValkeyImage',
      'ConfigMap',
      'Service',
      'StatefulSet',
      'PodDisruptionBudget',
      'NetworkPolicy',
      'ConfigMap',
    ]);
    for (const text of raw) expect(out.stdout).toContain(text);
  });

  it('on any error: exit 1, every input item unchanged (earlier output too), no generated objects', () => {
    const stale = `- apiVersion: apps/v1\n  kind: StatefulSet\n  metadata:\n    name: c-0\n    namespace: team-a\n    labels:\n      app.kubernetes.io/managed-by: valkey-krm\n    annotations:\n      valkey.gomomento.com/rendered-for: team-a/c\n`;
    const bad = `- apiVersion: valkey.gomomento.com/v1alpha1\n  kind: ValkeyCluster\n  metadata:\n    name: d\n    namespace: x\n  spec:\n    configRef: nope\n    shards: 1\n    replicasPerShard: 0\n`;
    const input = `${HEADER}${menuItems}${stale}${bad}${fnconfig}`;
    const out = runResourceList(input, 'render-valkey');
    expect(out.exitCode).toBe(1);
    const parsed = parse(out.stdout) as {
      items: { kind: string; metadata: { labels?: object } }[];
      results: { severity: string; message: string }[];
    };
    expect(parsed.items).toHaveLength(6);
    expect(out.stdout).toContain(stale);
    expect(out.stdout).toContain(bad);
    expect(parsed.items.filter((i) => i.kind === 'Service')).toEqual([]);
    expect(parsed.results).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringContaining('ValkeyConfig "nope" does not exist') }),
    ]);
    expect(out.stderr).toContain('render-valkey: 1 error, 0 warnings');
  });

  it('names the file of the object a result is about', () => {
    const item = `- apiVersion: valkey.gomomento.com/v1alpha1\n  kind: ValkeyImage\n  metadata:\n    name: old\n    annotations:\n      internal.config.kubernetes.io/path: 'menu/images.yaml'\n      internal.config.kubernetes.io/index: '2'\n  spec: {repository: r, tag: "9.0.0", version: "9.0.0"}\n`;
    const out = runResourceList(`${HEADER}${item}${fnconfig}`, 'render-valkey');
    const results = (parse(out.stdout) as { results: unknown[] }).results;
    expect(results).toEqual([
      {
        message: 'ValkeyImage old: spec.version: must be at least 9.0.1, the oldest Valkey release valkey-krm runs; got "9.0.0"',
        severity: 'error',
        resourceRef: { apiVersion: 'valkey.gomomento.com/v1alpha1', kind: 'ValkeyImage', name: 'old' },
        field: { path: 'spec.version' },
        file: { path: 'menu/images.yaml', index: 2 },
      },
    ]);
  });

  it('validate-valkey returns the items unchanged and generates nothing', () => {
    const input = `${HEADER}${menuItems}${fnconfig}`;
    const out = runResourceList(input, 'validate-valkey');
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toBe(`${HEADER}${sortedMenuItems()}`);
  });

  it.each([
    ['empty input', '', 'input is empty'],
    ['whitespace only', '  \n\n', 'input is empty'],
    ['malformed YAML', `${HEADER}- a: [1, 2\n`, 'invalid YAML at line'],
    ['duplicate keys', 'apiVersion: v1\napiVersion: v2\n', 'invalid YAML at line 2'],
    ['a plain object', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', 'is a ConfigMap (apiVersion v1), not a ResourceList'],
    ['several documents', 'a: 1\n---\nb: 2\n', 'input has 2 YAML documents'],
    ['a scalar', 'hello\n', 'is not a ResourceList'],
    ['items not a list', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {a: 1}\n', 'items must be a list'],
  ])('%s: exit 1 with a readable error, and no items that could be pruned', (_label, input, message) => {
    const out = runResourceList(input, 'render-valkey');
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain(message);
    expect(out.stderr).not.toMatch(/\n\s+at /);
    const parsed = parse(out.stdout) as { items: unknown[]; results: { message: string }[] };
    expect(parsed.items).toEqual([]);
    expect(parsed.results[0]!.message).toContain(message);
  });

  it.each([
    ['an item that is not an object', '- just a string\n', 'the item "just a string": not a Kubernetes object'],
    ['an item without kind', '- apiVersion: v1\n  metadata: {name: x}\n', 'the item "apiVersion: v1": not a Kubernetes object'],
  ])('%s is an error that keeps the item', (_label, item, message) => {
    const out = runResourceList(`${HEADER}${item}${fnconfig}`, 'render-valkey');
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toContain(item);
    expect(out.stderr).toContain(message);
  });

  it('without a render config: an error that says how to write one', () => {
    const out = runResourceList(`${HEADER}${menuItems}`, 'render-valkey');
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain('No render config: pass a ValkeyRenderConfig');
    expect(out.stderr).toContain('sha256sum');
  });

  it('handles a 10 MB input', () => {
    const filler = Array.from({ length: 2500 }, (_, i) => fillerItem(i)).join('');
    const input = `${HEADER}${filler}${menuItems}${fnconfig}`;
    expect(input.length).toBeGreaterThan(10_000_000);
    const out = runResourceList(input, 'render-valkey');
    expect(out.exitCode).toBe(0);
    for (const i of [0, 1234, 2499]) expect(out.stdout.includes(fillerItem(i)), `filler-${i} kept verbatim`).toBe(true);
    expect(out.stdout.length).toBeGreaterThan(input.length);
  });
});

function sortedMenuItems(): string {
  // The validator writes items back sorted by kind and name (none carries a path annotation).
  const order = ['ValkeyCluster', 'ValkeyConfig', 'ValkeyImage'];
  return menuObjects()
    .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || (a.metadata.name < b.metadata.name ? -1 : 1))
    .map(asItem)
    .join('');
}

describe('unusual but valid ResourceLists', () => {
  it('a flow sequence of items in YAML is written back as block items', () => {
    const input = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{apiVersion: v1, kind: ConfigMap, metadata: {name: x}, data: {a: "1"}}]\n${fnconfig}`;
    const out = runResourceList(input, 'render-valkey');
    expect(out.exitCode).toBe(0);
    expect((parse(out.stdout) as { items: unknown[] }).items).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '1' } },
    ]);
  });
  it('no items at all', () => {
    const out = runResourceList(`apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n${fnconfig}`, 'render-valkey');
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toBe('apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n');
  });
});
