import { describe, expect, it } from 'vitest';
import { runFunction, type InputItem } from '../../src/krm/run-function.js';
import { protoKeyPaths } from '../../src/menu/own.js';
import { objectRefOf } from '../../src/menu/parse.js';
import {
  CONTROLLER_HASH,
  REPLICATION_HASH,
  binding,
  cluster,
  config,
  guideMenu,
  image,
  renderConfigObject,
  role,
} from '../support/objects.js';

// What readers produce: JSON.parse (and a YAML reader that does it right) makes `__proto__` an own key.
const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
const J = (s: string): unknown => JSON.parse(s);
const item = (value: unknown): InputItem => ({ text: `${JSON.stringify(value)}\n`, value });
const run = (objects: unknown[], functionConfig: unknown = renderConfigObject()) =>
  runFunction(objects.map(item), functionConfig, { validateOnly: false, dropLocalConfig: false });
const API = 'valkey.gomomento.com/v1alpha1';
const clusterJson = (extraSpec: string, extraMeta = '') =>
  J(
    `{"apiVersion":"${API}","kind":"ValkeyCluster","metadata":{"name":"c","namespace":"a"${extraMeta}},"spec":{"configRef":"standard","shards":1,"replicasPerShard":0${extraSpec}}}`,
  );

type Outcome = ReturnType<typeof run>;
/** Every key in every position: no throw, and either an error naming the key or a result that kept it. */
const positions: [string, (q: string, k: string) => Outcome, (r: Outcome, k: string) => void][] = [
  [
    'a valkey setting name',
    (q) =>
      run([
        ...guideMenu().slice(0, 1),
        J(
          `{"apiVersion":"${API}","kind":"ValkeyConfig","metadata":{"name":"standard"},"spec":{"imageRef":"valkey-9-0","valkey":{${q}:"1"}}}`,
        ),
        cluster('c'),
      ]),
    (r, k) => {
      // Never silently gone: an error, or a finding on the key that then reaches valkey.conf.
      expect(r.problems.some((p) => p.field === `spec.valkey.${k}` || p.message.includes(`${k}`))).toBe(true);
    },
  ],
  [
    'a podAnnotations key',
    (q) => run([...guideMenu(), clusterJson(`,"podAnnotations":{${q}:"x"}`)]),
    keptOrRefused(['spec', 'template', 'metadata', 'annotations']),
  ],
  [
    'a nodeSelector key',
    (q) => run([...guideMenu(), clusterJson(`,"placement":{"nodeSelector":{${q}:"x"}}`)]),
    keptOrRefused(['spec', 'template', 'spec', 'nodeSelector']),
  ],
  ['a label key', (q) => run([...guideMenu(), clusterJson('', `,"labels":{${q}:"x"}`)]), refusedUnlessValid],
  ['a metadata key', (q) => run([...guideMenu(), clusterJson('', `,${q}:{"namespace":"evil"}`)]), refusedUnlessValid],
  ['a spec key', (q) => run([...guideMenu(), clusterJson(`,${q}:{}`)]), refused],
  [
    'a ConfigMap function config key',
    (q) =>
      run(
        [...guideMenu(), cluster('c')],
        J(
          `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"f"},"data":{${q}:"x","systemUsers.replication.passwordHash":"${REPLICATION_HASH}","systemUsers.controller.passwordHash":"${CONTROLLER_HASH}"}}`,
        ),
      ),
    refused,
  ],
  [
    'a render config spec key',
    (q) =>
      run(
        [...guideMenu(), cluster('c')],
        J(
          `{"apiVersion":"${API}","kind":"ValkeyRenderConfig","metadata":{"name":"r"},"spec":{${q}:{},"systemUsers":{"replication":{"passwordHash":"${REPLICATION_HASH}"},"controller":{"passwordHash":"${CONTROLLER_HASH}"}}}}`,
        ),
      ),
    refused,
  ],
  ['a kind', (_, k) => run([...guideMenu(), { ...cluster('c'), kind: k }]), refused],
  ['a configRef', (_, k) => run([...guideMenu(), cluster('c', { configRef: k.toLowerCase() })]), refused],
  ['a roleRef', (_, k) => run([...guideMenu(), cluster('c', { acl: [binding('u', k.toLowerCase())] })]), refused],
  [
    'a role command',
    (_, k) => run([...guideMenu(), role('reader', { commands: [{ name: k, access: 'allow' }] }), cluster('c', { acl: [binding('u')] })]),
    findingOrRefused,
  ],
  [
    'a role category',
    (_, k) =>
      run([
        ...guideMenu(),
        role('reader', { categories: [{ name: k.toLowerCase(), access: 'allow' }] }),
        cluster('c', { acl: [binding('u')] }),
      ]),
    findingOrRefused,
  ],
  ['a username', (_, k) => run([...guideMenu(), role('reader'), cluster('c', { acl: [binding(k)] })]), refusedUnlessValid],
];

function refused(r: Outcome): void {
  expect(r.ok).toBe(false);
  expect(r.generated).toEqual([]);
}
function refusedUnlessValid(r: Outcome, k: string): void {
  if (k === '__proto__') refused(r);
  else expect(r.problems.filter((p) => p.severity === 'error').length > 0 || r.ok).toBe(true);
}
function findingOrRefused(r: Outcome): void {
  expect(r.problems.some((p) => p.severity !== 'info' && p.object?.kind === 'ValkeyRole')).toBe(true);
}
function keptOrRefused(path: string[]) {
  return (r: Outcome, k: string) => {
    if (!r.ok) return;
    const sts = r.generated.find((g) => g.object.kind === 'StatefulSet')?.object;
    const map = path.reduce<unknown>((v, p) => (v as Record<string, unknown>)[p], sts) as Record<string, unknown>;
    expect(Object.hasOwn(map, k), `${k} kept`).toBe(true);
  };
}

describe('keys that collide with Object.prototype, in every position', () => {
  for (const [where, make, check] of positions) {
    it.each(KEYS)(`${where}: %s neither crashes nor silently changes what is read`, (k) => {
      const r = make(JSON.stringify(k), k);
      check(r, k);
    });
  }

  it('an object whose reader set a prototype is read by its own keys only', () => {
    const value = Object.create({ kind: 'ValkeyCluster', metadata: { name: 'x', namespace: 'y' } }) as Record<string, unknown>;
    value.apiVersion = API;
    expect(objectRefOf(value)).toEqual({ apiVersion: API, kind: '', name: '' });
    const meta = Object.create({ namespace: 'evil' }) as Record<string, unknown>;
    meta.name = 'c';
    expect(objectRefOf({ apiVersion: API, kind: 'ValkeyCluster', metadata: meta })).toEqual({
      apiVersion: API,
      kind: 'ValkeyCluster',
      name: 'c',
    });
  });

  it('names where each __proto__ key is, and walks deep nesting without recursion or a cost per depth squared', () => {
    expect(protoKeyPaths(J('{"a":{"b":[{"__proto__":1}],"__proto__":2},"__proto__":3}'))).toEqual([
      '__proto__',
      'a.__proto__',
      'a.b[0].__proto__',
    ]);
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 200_000; i++) {
      const next: Record<string, unknown> = {};
      at.x = next;
      at = next;
    }
    expect(protoKeyPaths(deep)).toEqual([]);
  });

  it.each(['constructor', 'tostring', 'hasownproperty', 'valueof', 'prototype'])(
    'menu objects named %s work like any other name',
    (name) => {
      const r = run([
        image(name),
        config(name, { imageRef: name, resources: { cpu: '1', memory: '2Gi' }, valkey: { maxmemory: '1gb' } }),
        role(name),
        cluster('c', { configRef: name, replicasPerShard: 1, acl: [binding('u', name)] }),
      ]);
      expect(r.problems.filter((p) => p.severity !== 'info')).toEqual([]);
      expect(r.generated.length).toBeGreaterThan(0);
    },
  );
});
