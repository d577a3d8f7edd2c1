// The autoscaling job's one edit to git (krm/set-shards.ts): spec.shards of one ValkeyCluster,
// found among the files, with every other byte of its file kept.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSetShardsCommand, setShardsInText } from '../../src/krm/set-shards.js';

const FILE = `# Team payments' caches. Reviewed by @platform.
apiVersion: valkey.gomomento.com/v1alpha1
kind: ValkeyCluster
metadata:
  name: sessions
  namespace: payments
spec:
  configRef: standard   # the menu's default
  shards:   3 # autoscaled, see spec.autoscaling
  replicasPerShard: 1
  autoscaling: {minShards: 3, maxShards: 8, scaleOut: {memoryPercent: 80}}
---
apiVersion: valkey.gomomento.com/v1alpha1
kind: ValkeyCluster
metadata:
  name: carts
  namespace: payments
spec:
  configRef: standard
  shards: 3
  replicasPerShard: 1
`;
const T = { namespace: 'payments', name: 'sessions' };

describe('setShardsInText', () => {
  it('changes the one value and nothing else', () => {
    const out = setShardsInText(FILE, T, 4);
    expect(out.kind).toBe('changed');
    const text = (out as { text: string }).text;
    expect(text).toBe(FILE.replace('shards:   3 # autoscaled', 'shards:   4 # autoscaled'));
  });

  it.each([
    [
      'JSON',
      '{"apiVersion":"valkey.gomomento.com/v1alpha1","kind":"ValkeyCluster","metadata":{"name":"sessions","namespace":"payments"},"spec":{"shards":3}}\n',
      '"shards":5}',
    ],
    [
      'a quoted key and a flow mapping',
      `apiVersion: valkey.gomomento.com/v1alpha1\nkind: ValkeyCluster\nmetadata: {name: sessions}\nspec: {"shards": 3, configRef: x}\n`,
      '{"shards": 5,',
    ],
    ['no namespace in the file (kustomize sets it)', FILE.replace('  namespace: payments\n', ''), 'shards:   5 #'],
  ])('%s', (_name, text, expected) => {
    const out = setShardsInText(text, T, 5) as { kind: string; text: string };
    expect(out.kind).toBe('changed');
    expect(out.text).toContain(expected);
    expect(out.text.length).toBe(text.length);
  });

  it('already at the count: unchanged; another namespace or no such cluster: absent; no shards: an error', () => {
    expect(setShardsInText(FILE, T, 3).kind).toBe('unchanged');
    expect(setShardsInText(FILE, { namespace: 'other', name: 'sessions' }, 4).kind).toBe('absent');
    expect(setShardsInText('not: [valid', T, 4).kind).toBe('absent');
    expect(setShardsInText(FILE.replace('  shards:   3 # autoscaled, see spec.autoscaling\n', ''), T, 4)).toEqual({
      kind: 'error',
      message: 'ValkeyCluster payments/sessions has no spec.shards to edit',
    });
  });
});

describe('render-valkey set-shards', () => {
  it('finds the file under a directory and writes it; refuses a cluster defined twice', () => {
    const dir = mkdtempSync(join(tmpdir(), 'set-shards-'));
    writeFileSync(join(dir, 'clusters.yaml'), FILE);
    writeFileSync(join(dir, 'other.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
    const ok = runSetShardsCommand(['payments/sessions', '4', dir], { cwd: '/' });
    expect(ok).toEqual({ stdout: `${join(dir, 'clusters.yaml')}\n`, stderr: '', exitCode: 0 });
    expect(readFileSync(join(dir, 'clusters.yaml'), 'utf8')).toBe(FILE.replace('shards:   3', 'shards:   4'));
    writeFileSync(join(dir, 'copy.yaml'), FILE);
    const twice = runSetShardsCommand(['payments/sessions', '5', dir], { cwd: '/' });
    expect(twice.exitCode).toBe(1);
    expect(twice.stderr).toContain('is defined in');
    const missing = runSetShardsCommand(['payments/nothing', '5', dir], { cwd: '/' });
    expect(missing).toMatchObject({ exitCode: 1, stderr: 'render-valkey set-shards: no file defines ValkeyCluster payments/nothing\n' });
    expect(runSetShardsCommand(['payments/sessions', '0', dir], { cwd: '/' }).exitCode).toBe(2);
  });
});
