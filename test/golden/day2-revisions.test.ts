// What a day-2 change does to the rendered objects, read from the reviewed goldens (golden.test.ts
// proves each _expected.yaml is what the function renders). day2-base against one change each:
// a live-only change must leave every pod template byte for byte as it was, so nothing restarts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ANNOTATIONS } from '../../src/api/index.js';

interface Template {
  metadata: { annotations: Record<string, string> };
  [field: string]: unknown;
}

interface Item {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec: { template: Template };
}

/** A golden's output: the parsed items, and the exact text of each (block-style, compact `- ` items). */
function golden(name: string) {
  const text = readFileSync(join(import.meta.dirname, 'cases', name, '_expected.yaml'), 'utf8');
  const itemsText = /^items:\n([\s\S]*?)(?=^results:|(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const texts = itemsText.split(/^(?=- )/m).filter((t) => t !== '');
  const items = (parse(text) as { items: Item[] }).items;
  expect(texts).toHaveLength(items.length);
  const of = (kind: string) => items.flatMap((item, i) => (item.kind === kind ? [{ item, text: texts[i] as string }] : []));
  const configMap = of('ConfigMap')[0]?.item.data ?? {};
  return { statefulSets: of('StatefulSet'), configMap };
}

const annotation = (item: Item, key: string) => item.metadata.annotations?.[key];
/** A StatefulSet's text without its live and ACL revision lines: what must not move on a live change. */
const withoutLiveRevisions = (text: string) =>
  text
    .split('\n')
    .filter((l) => !l.includes(`${ANNOTATIONS.liveRevision}:`) && !l.includes(`${ANNOTATIONS.aclRevision}:`))
    .join('\n');

const base = golden('day2-base');

describe('day-2 changes in the rendered output', () => {
  it('the base has two shards, each with a restart hash on its pod template and the revisions on the StatefulSet', () => {
    expect(base.statefulSets).toHaveLength(2);
    for (const { item } of base.statefulSets) {
      expect(annotation(item, ANNOTATIONS.liveRevision)).toMatch(/^[0-9a-f]{64}$/);
      expect(annotation(item, ANNOTATIONS.aclRevision)).toMatch(/^[0-9a-f]{64}$/);
      expect(item.spec.template).toMatchObject({
        metadata: { annotations: { [ANNOTATIONS.restartHash]: expect.stringMatching(/^[0-9a-f]{64}$/) } },
      });
      expect(JSON.stringify(item.spec.template)).not.toContain('revision');
    }
    // One restart hash for the whole cluster.
    const hashes = base.statefulSets.map(({ text }) => /restart-hash: "?([0-9a-f]{64})/.exec(text)?.[1]);
    expect(new Set(hashes).size).toBe(1);
  });

  it('a live-only change (maxmemory; io-threads, live since 9.0) changes the ConfigMap and the live revision, and no pod template', () => {
    const live = golden('day2-live-change');
    expect(live.configMap['valkey.conf']).not.toBe(base.configMap['valkey.conf']);
    expect(live.configMap['valkey.conf']).toMatch(/# Live settings[^\n]*\nio-threads 4\nmaxmemory 1800mb\n/);
    expect(live.configMap['users.acl']).toBe(base.configMap['users.acl']);
    for (const [i, { item, text }] of live.statefulSets.entries()) {
      const before = base.statefulSets[i]!;
      expect(withoutLiveRevisions(text)).toBe(withoutLiveRevisions(before.text));
      expect(annotation(item, ANNOTATIONS.liveRevision)).not.toBe(annotation(before.item, ANNOTATIONS.liveRevision));
      expect(annotation(item, ANNOTATIONS.aclRevision)).toBe(annotation(before.item, ANNOTATIONS.aclRevision));
    }
  });

  it('an ACL-only change (a second password hash, a new user) changes users.acl and both revisions, and no pod template', () => {
    const acl = golden('day2-acl-change');
    expect(acl.configMap['valkey.conf']).toBe(base.configMap['valkey.conf']);
    expect(acl.configMap['users.acl']).not.toBe(base.configMap['users.acl']);
    for (const [i, { item, text }] of acl.statefulSets.entries()) {
      const before = base.statefulSets[i]!;
      expect(withoutLiveRevisions(text)).toBe(withoutLiveRevisions(before.text));
      expect(annotation(item, ANNOTATIONS.liveRevision)).not.toBe(annotation(before.item, ANNOTATIONS.liveRevision));
      expect(annotation(item, ANNOTATIONS.aclRevision)).not.toBe(annotation(before.item, ANNOTATIONS.aclRevision));
      // The marker user in the file names the revision on the StatefulSet.
      expect(acl.configMap['users.acl']).toContain(`user valkey-krm-revision off #${annotation(item, ANNOTATIONS.aclRevision)} `);
    }
  });

  it('a restart-only change (tcp-backlog) changes the restart hash on every pod template, and nothing else in the template', () => {
    const restart = golden('day2-restart-change');
    expect(restart.configMap['valkey.conf']).toMatch(/# Restart-only settings[^\n]*\ntcp-backlog 1024\n/);
    for (const [i, { item }] of restart.statefulSets.entries()) {
      const before = base.statefulSets[i]!.item;
      const hash = (t: Item) => t.spec.template.metadata.annotations[ANNOTATIONS.restartHash];
      expect(hash(item)).not.toBe(hash(before));
      const { metadata: _a, ...spec } = item.spec.template;
      const { metadata: _b, ...specBefore } = before.spec.template;
      expect(spec).toEqual(specBefore);
      expect(annotation(item, ANNOTATIONS.liveRevision)).toBe(annotation(before, ANNOTATIONS.liveRevision));
    }
  });
});
