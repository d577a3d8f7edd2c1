// Schema problems in sentences: what is missing or wrong and where, in YAML's terms, never the
// validator's own wording ("Invalid input: expected array, received undefined").
import { describe, expect, it } from 'vitest';
import { parseMenu } from '../../src/menu/parse.js';
import { cluster, config, image, role } from '../support/objects.js';

const messages = (objects: unknown[]) => parseMenu(objects).problems.map((p) => p.message);

describe('schema problems read as sentences', () => {
  it.each([
    [
      'a version YAML read as a number',
      image('i', { version: 9.0 }),
      'spec.version: YAML read the unquoted value as a number (9), but this field takes a string: put the value in quotes exactly as meant',
    ],
    [
      'a tag YAML read as a number',
      image('i', { tag: 9.0 }),
      'spec.tag: YAML read the unquoted value as a number (9), but this field takes a string: put the value in quotes exactly as meant',
    ],
    [
      'a setting YAML read as a boolean',
      config('c', { valkey: { appendonly: true } }),
      'spec.valkey.appendonly: YAML read the unquoted value as a boolean (true)',
    ],
    [
      'a fractional cpu YAML read as a number',
      config('c', { resources: { cpu: 1.5 } }),
      'spec.resources.cpu: YAML read the unquoted value as a number (1.5)',
    ],
    [
      'an empty mapping key',
      config('c', { valkey: null }),
      'spec.valkey: is empty (YAML reads a key with nothing after it as null); it must be a mapping (YAML "key: value" lines)',
    ],
    [
      'a missing list',
      cluster('x', { acl: [{ username: 'app', permissions: [] }] }),
      'spec.acl[0].passwordHashes: is required: add it, as a list (YAML lines starting with "- ")',
    ],
    [
      'a mapping where a list belongs',
      role('r', { categories: { name: 'read' } }),
      'spec.categories: is a mapping, but must be a list (YAML lines starting with "- ")',
    ],
    [
      'a quoted number',
      cluster('x', { shards: '3' }),
      'spec.shards: is the quoted string "3", but this field takes a number: remove the quotes',
    ],
    ['a number out of range', cluster('x', { shards: 3000 }), 'spec.shards: must be at most 1000; got 3000'],
    [
      'more pods than a cluster may have',
      cluster('x', { shards: 251, replicasPerShard: 1 }),
      'spec.shards: 251 shard(s) × 2 pods each is 502 pods; a cluster may have at most 500',
    ],
    ['a string too long', image('i', { tag: 'x'.repeat(200) }), 'spec.tag: is too long: at most 128 characters, got 200'],
    [
      'a missing spec',
      { apiVersion: 'valkey.gomomento.com/v1alpha1', kind: 'ValkeyImage', metadata: { name: 'i' } },
      'spec: is required: add it, as a mapping',
    ],
  ])('%s', (_name, object, expected) => {
    const found = messages([object]);
    expect(found).toContainEqual(expect.stringContaining(expected));
    for (const m of found) expect(m).not.toMatch(/Invalid input|expected \w+, received|Too (big|small)/);
  });

  it('kubectl explain is suggested with a path it accepts: no list indexes', () => {
    const found = messages([
      cluster('x', { acl: [{ username: 'app', passwordHashes: ['a'.repeat(64)], permissions: [{ roleRef: 'r', keys: [], typo: 1 }] }] }),
    ]);
    expect(found).toContainEqual(expect.stringContaining('`kubectl explain valkeycluster.spec.acl.permissions`'));
    expect(found.join('\n')).not.toMatch(/kubectl explain [^`]*\[/);
  });
});
