import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { KINDS, customResourceDefinition, toStructural } from '../../src/api/crd.js';

/** The parts of a generated CRD these tests read. */
interface Schema {
  properties: { [name: string]: Schema };
  enum?: unknown[];
  'x-kubernetes-validations'?: { rule: string }[];
}
/** The schema at a path of property names; a missing one fails the test with its name. */
function prop(schema: Schema, ...names: string[]): Schema {
  return names.reduce((s, name) => {
    const next = s.properties[name];
    if (!next) throw new Error(`the schema has no property ${name}`);
    return next;
  }, schema);
}
interface Crd {
  spec: { versions: { additionalPrinterColumns: { name: string }[]; schema: { openAPIV3Schema: Schema }; subresources: unknown }[] };
}

describe('generated CRDs', () => {
  it.each(KINDS.map((k) => [k.kind, k] as const))('crds/ holds the up-to-date %s CRD (run npm run gen:crds)', (_kind, def) => {
    const committed = readFileSync(`crds/${def.plural}.valkey.gomomento.com.yaml`, 'utf8');
    expect(parse(committed)).toEqual(parse(stringify(customResourceDefinition(def))));
  });

  it('structural: no additionalProperties:false, int-or-string spelled the one allowed way', () => {
    const text = JSON.stringify(KINDS.map(customResourceDefinition));
    expect(text).not.toContain('"additionalProperties":false');
    expect(text).not.toContain('9007199254740991');
    expect(
      toStructural({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'string', pattern: 'x' }, { type: 'number' }], description: 'd' }),
    ).toEqual({
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      pattern: 'x',
      description: 'd',
    });
  });

  it('ValkeyImage prints Repository, Tag, Version and enforces the version with CEL', () => {
    const crd = customResourceDefinition(KINDS.find((k) => k.kind === 'ValkeyImage')!) as unknown as Crd;
    const version = crd.spec.versions[0]!;
    expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual(['Repository', 'Tag', 'Version', 'Age']);
    const rules = prop(version.schema.openAPIV3Schema, 'spec', 'version')['x-kubernetes-validations'];
    expect(rules).toHaveLength(2);
    expect(version.subresources).toEqual({ status: {} });
  });

  it('ValkeyCluster prints Config, Shards, Replicas, State and rejects reserved podAnnotations with CEL', () => {
    const crd = customResourceDefinition(KINDS.find((k) => k.kind === 'ValkeyCluster')!) as unknown as Crd;
    const version = crd.spec.versions[0]!;
    expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual([
      'Config',
      'Shards',
      'Replicas',
      'State',
      'Desired Shards',
      'Message',
      'Age',
    ]);
    const podAnnotations = prop(version.schema.openAPIV3Schema, 'spec', 'podAnnotations');
    expect(podAnnotations['x-kubernetes-validations']?.[0]?.rule).toContain("startsWith('valkey.gomomento.com/')");
    expect(prop(version.schema.openAPIV3Schema, 'spec', 'placement', 'zoneSpread').enum).toEqual(['bestEffort', 'required']);
  });

  it('ValkeyCluster bounds its pods and keeps spec.shards within spec.autoscaling with CEL on the spec', () => {
    const crd = customResourceDefinition(KINDS.find((k) => k.kind === 'ValkeyCluster')!) as unknown as Crd;
    const schema = crd.spec.versions[0]!.schema.openAPIV3Schema;
    expect(prop(schema, 'spec')['x-kubernetes-validations']?.map((r) => r.rule)).toEqual([
      'self.shards * (self.replicasPerShard + 1) <= 500',
      '!has(self.autoscaling) || (self.autoscaling.minShards <= self.shards && self.shards <= self.autoscaling.maxShards)',
    ]);
    expect(prop(schema, 'spec', 'autoscaling')['x-kubernetes-validations']).toHaveLength(4);
    expect(prop(schema, 'status', 'autoscaling', 'desiredShards')).toMatchObject({ type: 'integer' });
  });
});
