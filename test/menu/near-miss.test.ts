import { describe, expect, it } from 'vitest';
import { runFunction, type InputItem } from '../../src/krm/run-function.js';
import { cluster, guideMenu, renderConfigObject } from '../support/objects.js';

const item = (value: unknown): InputItem => ({ text: `${JSON.stringify(value)}\n`, value });
const run = (extra: unknown[]) =>
  runFunction([...guideMenu(), ...extra].map(item), renderConfigObject(), { validateOnly: false, dropLocalConfig: false });
const withType = (apiVersion: string, kind: string) => ({ ...cluster('cache'), apiVersion, kind });
const errors = (extra: unknown[]) =>
  run(extra)
    .problems.filter((p) => p.severity === 'error')
    .map((p) => p.message);

describe('near misses of our kinds and group are errors with a did-you-mean, not foreign objects', () => {
  it.each([
    [
      'valkey.gomomento.com/v1alpha1',
      'ValkeyCLuster',
      'kind: "ValkeyCLuster" is not a kind of valkey.gomomento.com; did you mean "ValkeyCluster"?',
    ],
    ['valkey.gomomento.com/v1alpha1', 'Valkeycluster', 'did you mean "ValkeyCluster"?'],
    ['valkey.gomomento.com/v1alpha1', 'ValkeyClustr', 'did you mean "ValkeyCluster"?'],
    ['valkey.gomomento.com/v1alpha1', 'Redis', 'the kinds are ValkeyImage, ValkeyConfig, ValkeyRole, ValkeyCluster, ValkeyRenderConfig'],
    ['valkey.gomomento.com/v1alpha1', 'constructor', 'the kinds are'],
    ['valkey.gomomento.com/v1alpha1', '__proto__', 'the kinds are'],
    [
      'valkey.momento.com/v1alpha1',
      'ValkeyCluster',
      'apiVersion: "valkey.momento.com/v1alpha1" is not valkey-krm\'s API; did you mean "valkey.gomomento.com/v1alpha1"?',
    ],
    ['valkey.gomomento.io/v1alpha1', 'ValkeyCluster', 'did you mean "valkey.gomomento.com/v1alpha1"?'],
    ['Valkey.GoMomento.com/v1alpha1', 'ValkeyCluster', 'did you mean "valkey.gomomento.com/v1alpha1"?'],
    ['valkey.momento.com/v1alpha1', 'ValkeyCLuster', 'did you mean "valkey.gomomento.com/v1alpha1" and kind "ValkeyCluster"?'],
    ['v1', 'ValkeyCluster', 'did you mean "valkey.gomomento.com/v1alpha1"?'],
  ])('%s %s', (apiVersion, kind, message) => {
    const r = run([withType(apiVersion, kind)]);
    expect(r.ok).toBe(false);
    expect(r.problems.filter((p) => p.severity === 'error').map((p) => p.message)).toEqual([expect.stringContaining(message)]);
  });

  it('a version we do not serve is an error (as before)', () => {
    expect(errors([withType('valkey.gomomento.com/v1alpha2', 'ValkeyCluster')])).toEqual([expect.stringContaining('is not served')]);
  });

  it.each([
    ['apps/v1', 'StatefulSet'],
    ['valkey.example.com/v1', 'ValkeyCluster'],
    ['example.com/v1', 'ValkeyClusterBackup'],
    ['v1', 'ConfigMap'],
  ])('someone else’s API passes through: %s %s', (apiVersion, kind) => {
    expect(errors([withType(apiVersion, kind)])).toEqual([]);
  });
});
