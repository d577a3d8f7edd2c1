// The text path (src/render/cluster-text.ts, src/krm/cluster-writer.ts): clusters alike but for
// their names and files share one recorded text, and each cluster's values are written into its
// blanks. It must write the very bytes the direct path (each object built and written for its
// own cluster) writes: over the golden cases, the example packages, the bench fleet, and fleets of
// awkward names and specs that differ in one field at a time.
import { describe, expect, it } from 'vitest';
import { clusterObjects, menuObjects, renderConfig, resourceListText } from '../../bench/generate.js';
import { emitGeneratedObject, writeClusterText } from '../../src/krm/cluster-writer.js';
import { parseResourceList } from '../../src/krm/read-input.js';
import { runResourceList } from '../../src/krm/resource-list.js';
import { runFunction } from '../../src/krm/run-function.js';
import { ByteSink } from '../../src/krm/yaml/byte-sink.js';
import { API_VERSION as API } from '../../src/api/group.js';
import { examplePackages } from '../support/paths.js';
import { goldenCases, goldenResourceList } from '../support/render.js';
import { packageDocs, resourceList } from '../support/yaml-docs.js';

const HASH = 'a153ef84fde0607be195d513251bfcf51fe53ec5cadd6323b3f350c30d7348d8';

interface Written {
  text: string;
  ok: boolean;
  /** Clusters written from a template's text. */
  fromText: number;
  /** Clusters written object by object. */
  direct: number;
}

/** render-valkey's generated items for `input`, written at `indent` by the text path or the direct one. */
function write(input: string, indent: number, textPath: boolean, fromFirst = true): Written {
  const { list } = parseResourceList(input);
  if (!list) throw new Error('unreadable input');
  const out = new ByteSink(4096);
  const seen = { fromText: 0, direct: new Set<string>() };
  const outcome = runFunction(list.items, list.functionConfig, {
    validateOnly: false,
    dropLocalConfig: false,
    emit: (g) => {
      seen.direct.add(g.path);
      emitGeneratedObject(out, indent, g.object, g.path, g.index, g.header);
    },
    ...(textPath
      ? {
          textFromFirst: fromFirst,
          emitText: (text, path, header) => {
            seen.fromText++;
            writeClusterText(out, indent, text, path, header);
          },
        }
      : {}),
  });
  return { text: out.toString(), ok: outcome.ok, fromText: seen.fromText, direct: seen.direct.size };
}

const cluster = (
  name: string,
  namespace: string,
  spec: Record<string, unknown>,
  annotations?: Record<string, string>,
  labels?: Record<string, string>,
) => ({
  apiVersion: API,
  kind: 'ValkeyCluster',
  metadata: { name, namespace, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
  spec: { configRef: 'chain0-level0', shards: 3, replicasPerShard: 1, ...spec },
});
const binding = (username: string) => ({
  username,
  passwordHashes: [HASH],
  permissions: [{ roleRef: 'app', keys: [{ pattern: `${username}:*`, access: 'readwrite' }] }],
});

/**
 * Names that look like other YAML (numbers, booleans, null), that hold each other or the words
 * around them in the objects (valkey, config, team, cache), the longest a name may be, and one
 * letter; each with the same spec, so they share a template.
 */
const AWKWARD_NAMES = [
  'no',
  'yes',
  'y',
  'on',
  'null',
  'true',
  'e1',
  'inf',
  'nan',
  'valkey',
  'config',
  'cache',
  'cache-0',
  'cache-0-0',
  'team',
  `a${'b'.repeat(39)}`,
  'x',
  // A name may hold a blank's token: names are values written into the text, never read for blanks.
  'zkrmslot0z',
  'zkrmslot1z-zkrmslot8z',
];
const AWKWARD_NAMESPACES = ['no', '123', '1e3', '0x1f', 'true', 'valkey', 'team-0', 'cache', 'x', `n${'9'.repeat(62)}`];

function awkwardFleet(): string {
  const clusters: unknown[] = [];
  AWKWARD_NAMES.forEach((name, i) => {
    const namespace = AWKWARD_NAMESPACES[i % AWKWARD_NAMESPACES.length] as string;
    clusters.push(cluster(name, namespace, { acl: [binding(`${name}-app`)] }));
  });
  // One field different from the plain cluster at a time: none may share the plain one's template.
  const variants: Record<string, unknown>[] = [
    { shards: 1 },
    { shards: 5 },
    { replicasPerShard: 0 },
    { replicasPerShard: 2 },
    { configRef: 'chain1-level0' },
    { configRef: 'chain0-level1' },
    { placement: { zones: ['a', 'b'] } },
    { placement: { zones: ['b', 'a'] } },
    { placement: { zoneSpread: 'required', zones: ['a', 'b', 'c'] } },
    { placement: { nodeSelector: { pool: 'cache', no: 'yes' } } },
    { podAnnotations: { 'example.com/team': 'no', 'example.com/n': '123' } },
    { tls: { secretRef: 'cache-tls' } },
    {
      tls: { secretRef: 'cache-tls', clientCertificates: { issuerRef: { kind: 'Issuer', name: 'ca' }, users: ['svc'] } },
      acl: [binding('svc')],
    },
    { acl: [] },
    { acl: [binding('a'), binding('b')] },
  ];
  variants.forEach((spec, i) => {
    clusters.push(cluster(`variant-${i}`, 'team-0', { acl: [binding(`variant-${i}`)], ...spec }));
    clusters.push(cluster(`twin-${i}`, 'team-1', { acl: [binding(`twin-${i}`)], ...spec }));
  });
  // A zero-replica cluster with its data-loss opt-in: the opt-in is copied onto its StatefulSets.
  clusters.push(cluster('opted', 'team-0', { replicasPerShard: 0 }, { 'valkey.gomomento.com/allow-data-loss-roll': 'true' }));
  clusters.push(cluster('opted-twin', 'team-2', { replicasPerShard: 0 }, { 'valkey.gomomento.com/allow-data-loss-roll': 'true' }));
  // As JSON: the `yaml` package would write `no` and `on` unquoted, which a YAML 1.1 reader (and so
  // render-valkey) takes for booleans.
  // Labels and annotations of a cluster are not in any object (a template does not have them): two
  // clusters that differ only there share a template, and must still be written as rendered.
  clusters.push(cluster('labelled', 'team-3', {}, { 'example.com/owner': 'a' }, { team: 'a', 'example.com/tier': 'gold' }));
  clusters.push(cluster('labelled-twin', 'team-4', {}, { 'example.com/owner': 'b' }, { team: 'b' }));
  return JSON.stringify({
    apiVersion: 'config.kubernetes.io/v1',
    kind: 'ResourceList',
    items: [...menuObjects(2, 2), ...clusters],
    functionConfig: renderConfig,
  });
}

const sources: [string, () => string][] = [
  ...goldenCases().map((name): [string, () => string] => [`golden ${name}`, () => goldenResourceList(name)]),
  ...examplePackages().map((name): [string, () => string] => [
    `kptfile-examples/${name}`,
    () => resourceList(packageDocs(name).map((d) => d.text)),
  ]),
  ['the bench fleet of 60 clusters', () => resourceListText([...menuObjects(), ...clusterObjects(60)])],
  ['a fleet of awkward names and one-field variants', awkwardFleet],
  ['the bench fleet with its earlier output in the input (a kpt re-render)', reRender],
];

/** The bench fleet of 20 clusters with what render-valkey wrote for it, as kpt sends it back. */
function reRender(): string {
  const input = resourceListText([...menuObjects(), ...clusterObjects(20)]);
  const out = runResourceList(input, 'render-valkey');
  expect(out.exitCode).toBe(0);
  return `${out.stdout.replace(/\nresults:\n[\s\S]*$/, '\n')}functionConfig:\n${input.split('\nfunctionConfig:\n')[1]}`;
}

describe('the text path writes what the direct path writes', () => {
  it.each(sources)('%s, at indents 0 and 2', (_name, input) => {
    const text = input();
    for (const indent of [0, 2]) {
      const direct = write(text, indent, false);
      const viaText = write(text, indent, true);
      expect(viaText.ok).toBe(direct.ok);
      expect(viaText.text).toBe(direct.text);
      // Every cluster rendered takes the text path when it is offered.
      expect(viaText.direct).toBe(0);
      expect(viaText.fromText).toBe(direct.direct);
    }
  });

  it('renders the awkward fleet without an error, every cluster from a template', () => {
    const viaText = write(awkwardFleet(), 2, true);
    expect(viaText.ok).toBe(true);
    expect(viaText.fromText).toBe(AWKWARD_NAMES.length + 15 * 2 + 4);
    expect(viaText.text.replace(/zkrmslot[018]z/g, '')).not.toContain('krmslot');
  });
});

describe('as the render runs it', () => {
  it('writes the first cluster of each kind object by object, and the others from its template', () => {
    const text = resourceListText([...menuObjects(), ...clusterObjects(60)]);
    const direct = write(text, 2, false);
    const shared = write(text, 2, true, false);
    expect(shared.text).toBe(direct.text);
    // The bench fleet has 30 kinds of cluster: 10 chains by 3 levels.
    expect(shared.direct).toBe(30);
    expect(shared.fromText).toBe(30);
  });
});

describe('a cluster whose input holds the blanks\u2019 mark is written object by object', () => {
  it('in its spec: the mark comes out as the text it is', () => {
    const input = resourceListText([
      ...menuObjects(1, 1),
      cluster('marked', 'team-0', { configRef: 'chain0-level0', podAnnotations: { 'example.com/x': 'zkrmslot0z' } }),
      cluster('plain', 'team-0', { configRef: 'chain0-level0' }),
    ]);
    const direct = write(input, 2, false);
    const viaText = write(input, 2, true);
    expect(direct.ok).toBe(true);
    expect(viaText.text).toBe(direct.text);
    expect(viaText.direct).toBe(1);
    expect(viaText.fromText).toBe(1);
    expect(viaText.text).toContain('example.com/x: zkrmslot0z');
  });
});
