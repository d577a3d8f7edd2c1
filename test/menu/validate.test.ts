import { describe, expect, it } from 'vitest';
import { renderAll } from '../../src/render/render-all.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { readFunctionConfig } from '../../src/krm/function-config.js';
import { binding, cluster, config, guideMenu, HASH_A, image, renderConfigObject, role } from '../support/objects.js';

const render = validateRenderConfig(renderConfigObject()).config!;
const problems = (objects: unknown[]) => renderAll(objects, render).problems;
const errorsOf = (objects: unknown[]) => problems(objects).filter((p) => p.severity === 'error');
const base = () => [...guideMenu(), role('reader')];

describe('ValkeyImage version admission rules', () => {
  it.each(['9.0.0', '8.1.3', '9.0', '9.0.1-rc1', 'v9.0.1', '09.0.1', '9.0.01'])('rejects version %j', (version) => {
    const errs = errorsOf([image('img', { tag: 'x', version })]);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ field: 'spec.version', object: { kind: 'ValkeyImage', name: 'img' } });
    expect(errs[0]!.message).toContain(`got "${version}"`);
  });
  it.each(['9.0.1', '9.1.0', '10.0.0'])('accepts version %j', (version) => {
    expect(errorsOf([image('img', { tag: version, version })])).toEqual([]);
  });
  it('an unquoted YAML number is a type error with a fix', () => {
    expect(errorsOf([image('img', { version: 9.1 })])[0]!.message).toMatchInlineSnapshot(
      `"ValkeyImage img: spec.version: YAML read the unquoted value as a number (9.1), but this field takes a string: put the value in quotes exactly as meant; it must be a full MAJOR.MINOR.PATCH version such as 9.0.1 (no "v" prefix, pre-release suffix or leading zeros)"`,
    );
  });
});

describe('ValkeyCluster: what product teams may not set', () => {
  it.each([
    ['image', 'valkey/valkey:9.0.1'],
    ['resources', { cpu: '8' }],
    ['valkey', { maxmemory: '1gb' }],
    ['imageRef', 'valkey-9-0'],
  ])('spec.%s is rejected, pointing at the menu', (field, value) => {
    const errs = errorsOf([...base(), cluster('c', { [field]: value })]);
    expect(errs.map((e) => e.field)).toEqual([`spec.${field}`]);
    expect(errs[0]!.message).toContain('The image, resources and Valkey settings come from the ValkeyConfig named in configRef');
  });

  it('reserved podAnnotations are rejected; others pass', () => {
    const errs = errorsOf([
      ...base(),
      cluster('c', { podAnnotations: { 'valkey.gomomento.com/config-hash': 'x', 'prometheus.io/scrape': 'true' } }),
    ]);
    expect(errs.map((e) => e.message)).toEqual([
      'ValkeyCluster team-a/c: spec.podAnnotations["valkey.gomomento.com/config-hash"]: "valkey.gomomento.com/config-hash": keys under valkey.gomomento.com/ are reserved for valkey-krm; use another prefix',
    ]);
  });

  it.each([
    [{ shards: 0 }, 'spec.shards'],
    [{ shards: 1.5 }, 'spec.shards'],
    [{ replicasPerShard: -1 }, 'spec.replicasPerShard'],
    [{ shards: '3' }, 'spec.shards'],
    [{ placement: { zoneSpread: 'sometimes' } }, 'spec.placement.zoneSpread'],
    [{ placement: { zones: [] } }, 'spec.placement.zones'],
    [{ placement: { zones: ['a', 'a'] } }, 'spec.placement.zones'],
    [{ tls: { secretRef: { name: 'x' } } }, 'spec.tls.secretRef'],
    [{ configRef: undefined }, 'spec.configRef'],
  ])('rejects %j at %s', (spec, field) => {
    expect(errorsOf([...base(), cluster('c', spec)]).map((e) => e.field)).toEqual([field]);
  });

  it('needs a namespace and a DNS-1035 name short enough for pod names', () => {
    const noNs = { ...cluster('c'), metadata: { name: 'c' } };
    expect(errorsOf([...base(), noNs]).map((e) => e.field)).toEqual(['metadata.namespace']);
    expect(errorsOf([...base(), cluster('Bad_Name')]).map((e) => e.field)).toEqual(['metadata.name']);
    expect(errorsOf([...base(), cluster('a'.repeat(41))]).map((e) => e.field)).toEqual(['metadata.name']);
    expect(errorsOf([...base(), cluster('a'.repeat(40))])).toEqual([]);
  });

  it('a missing metadata.name is reported', () => {
    const nameless = { ...cluster('c'), metadata: { namespace: 'x' } };
    expect(errorsOf([...base(), nameless]).map((e) => e.message)).toEqual([
      'ValkeyCluster x/(unnamed): metadata.name: is required: every object needs a name',
    ]);
  });
});

describe('references and names', () => {
  it('duplicate names of the same kind', () => {
    expect(errorsOf([...base(), config('standard', { imageRef: 'valkey-9-0' })]).map((e) => e.message)).toEqual([
      'ValkeyConfig standard is defined 2 times; names must be unique, so keep one and remove or rename the others',
      'ValkeyConfig large: spec.baseRef: cannot be resolved, caused by its base ValkeyConfig standard, which is invalid; fix the errors reported on standard first',
    ]);
    expect(errorsOf([...base(), cluster('c'), cluster('c'), cluster('c', {}, 'other')]).map((e) => e.message)).toEqual([
      'ValkeyCluster team-a/c is defined 2 times; names must be unique, so keep one and remove or rename the others',
    ]);
  });

  it('a ValkeyCluster referencing a missing config', () => {
    expect(errorsOf([...base(), cluster('c', { configRef: 'standrd' })]).map((e) => e.message)).toEqual([
      'ValkeyCluster team-a/c: spec.configRef: ValkeyConfig "standrd" does not exist; pick a config from the menu (did you mean "standard"?)',
    ]);
  });

  it('ACL bindings referencing a missing role, at both levels', () => {
    const objects = [
      ...base(),
      config('secure', { baseRef: 'standard', acl: [binding('ops', 'admin')] }),
      cluster('c', { configRef: 'secure', acl: [binding('app', 'writer')] }),
    ];
    expect(errorsOf(objects).map((e) => e.field)).toEqual(['spec.acl[0].permissions[0].roleRef', 'spec.acl[0].permissions[0].roleRef']);
    expect(errorsOf(objects).map((e) => e.object?.kind)).toEqual(['ValkeyConfig', 'ValkeyCluster']);
  });

  it('a username bound at both config and cluster level', () => {
    const objects = [
      ...base(),
      config('secure', { baseRef: 'standard', acl: [binding('ops')] }),
      cluster('c', { configRef: 'secure', acl: [binding('ops')] }),
    ];
    expect(errorsOf(objects).map((e) => e.message)).toEqual([
      'ValkeyCluster team-a/c: spec.acl[0].username: user "ops" is already defined by the platform in ValkeyConfig secure (spec.acl); a team cannot redefine a platform user, so choose another username',
    ]);
  });

  it('reserved and repeated usernames', () => {
    const objects = [
      ...base(),
      cluster('c', { acl: [binding('default'), binding('app'), binding('app'), binding('valkey-krm-controller')] }),
    ];
    expect(errorsOf(objects).map((e) => e.field)).toEqual(['spec.acl[0].username', 'spec.acl[2].username', 'spec.acl[3].username']);
  });

  it('malformed password hashes', () => {
    const bad = { ...binding('app'), passwordHashes: [HASH_A.toUpperCase(), 'abc', HASH_A] };
    const errs = errorsOf([...base(), cluster('c', { acl: [bad] })]);
    expect(errs.map((e) => e.field)).toEqual(['spec.acl[0].passwordHashes[0]', 'spec.acl[0].passwordHashes[1]']);
    expect(errs[0]!.message).toContain('sha256sum');
  });

  it('collects every problem at once', () => {
    const objects = [
      image('old', { version: '9.0.0' }),
      config('a', { imageRef: 'nope' }),
      cluster('x', { configRef: 'a', shards: 0 }),
      cluster('y', { configRef: 'zzz' }),
    ];
    expect(errorsOf(objects).length).toBeGreaterThanOrEqual(4);
  });

  it('a valid menu with clusters renders and reports no errors', () => {
    const out = renderAll([...base(), cluster('c', { configRef: 'large', acl: [binding('app')] })], render);
    expect(out.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(out.clusters).toHaveLength(1);
  });
});

describe('the render config', () => {
  it('requires systemUsers and says how to create them', () => {
    const r = validateRenderConfig({ ...renderConfigObject(), spec: {} });
    expect(r.config).toBeUndefined();
    expect(r.problems[0]!.message).toContain('openssl rand -hex 32');
    expect(r.problems[0]!.message).toContain('kubectl -n <cluster namespace> create secret generic valkey-replication');
  });
  it('rejects a malformed hash', () => {
    const r = validateRenderConfig(
      renderConfigObject({ systemUsers: { replication: { passwordHash: 'nope' }, controller: { passwordHash: HASH_A } } }),
    );
    expect(r.problems.map((p) => p.field)).toEqual(['spec.systemUsers.replication.passwordHash']);
  });
  it('accepts the flattened ConfigMap form with defaults', () => {
    const r = readFunctionConfig({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'function-input' },
      data: {
        'systemUsers.replication.passwordHash': HASH_A,
        'systemUsers.controller.passwordHash': HASH_A,
        defaultZoneSpread: 'required',
        nodeSpread: 'bestEffort',
      },
    });
    expect(r.problems).toEqual([]);
    expect(r.config).toEqual({
      outputDir: 'rendered',
      clusterDomain: 'cluster.local',
      defaultZoneSpread: 'required',
      nodeSpread: 'bestEffort',
      systemUsers: {
        replication: { passwordHash: HASH_A, secretName: 'valkey-replication' },
        controller: { passwordHash: HASH_A, secretName: 'valkey-controller' },
      },
      networkPolicy: {
        enabled: true,
        controller: { namespace: 'valkey-system', podLabels: { 'app.kubernetes.io/name': 'valkey-status-sync' } },
      },
    });
  });
  it('rejects unknown ConfigMap keys and outputDir escaping the package', () => {
    const r = readFunctionConfig({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f' }, data: { outdir: 'x' } });
    expect(r.problems.map((p) => p.field)).toContain('data.outdir');
    const r2 = validateRenderConfig(renderConfigObject({ outputDir: '../elsewhere' }));
    expect(r2.problems.map((p) => p.field)).toEqual(['spec.outputDir']);
  });
});

describe('an invalid object does not cascade into misleading errors', () => {
  it('an image that fails its schema is reported once, and its dependents say it is invalid', () => {
    const objects = [
      image('valkey-9-0', { version: '9.0.0' }),
      ...guideMenu().slice(1),
      role('reader'),
      cluster('c', { configRef: 'large' }),
    ];
    expect(errorsOf(objects).map((e) => e.message)).toEqual([
      'ValkeyImage valkey-9-0: spec.version: must be at least 9.0.1, the oldest Valkey release valkey-krm runs; got "9.0.0"',
      'ValkeyCluster team-a/c: spec.configRef: ValkeyConfig "large" cannot be resolved, caused by its image: ValkeyImage valkey-9-0 (the imageRef of ValkeyConfig standard) is invalid; fix the errors reported on ValkeyImage valkey-9-0 first',
    ]);
  });
  it('an invalid config, base or role is named as invalid, not missing', () => {
    const objects = [
      ...guideMenu(),
      role('bad', { categories: [{ name: 'read', access: 'maybe' }] }),
      config('broken', { baseRef: 'standard', resources: { cpu: 'lots' } }),
      config('child', { baseRef: 'broken' }),
      cluster('a', { configRef: 'broken' }),
      cluster('b', { configRef: 'large', acl: [binding('app', 'bad')] }),
    ];
    const messages = errorsOf(objects).map((e) => e.message);
    expect(messages).toContain(
      'ValkeyConfig child: spec.baseRef: cannot be resolved, caused by its base ValkeyConfig broken, which is invalid; fix the errors reported on broken first',
    );
    expect(messages).toContain(
      'ValkeyCluster team-a/a: spec.configRef: cannot be rendered, caused by ValkeyConfig broken, which is invalid; fix the errors reported on broken first',
    );
    expect(messages).toContain(
      'ValkeyCluster team-a/b: spec.acl[0].permissions[0].roleRef: caused by ValkeyRole bad, which is invalid; fix the errors reported on it first',
    );
    expect(messages.filter((m) => m.includes('does not exist'))).toEqual([]);
  });
});
