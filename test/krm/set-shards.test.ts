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

describe('setShardsInText: anchors and aliases (issue 32)', () => {
  const ANCHORED = `apiVersion: valkey.gomomento.com/v1alpha1
kind: ValkeyCluster
metadata: {name: sessions, namespace: payments}
spec:
  shards: &a 2 # autoscaled
  replicasPerShard: 1
  autoscaling: {minShards: *a, maxShards: 8, scaleOut: {memoryPercent: 80}}
`;

  it('an anchored spec.shards: only spec.shards changes; each alias of it keeps the value it had', async () => {
    const out = setShardsInText(ANCHORED, T, 3) as { kind: string; text: string };
    expect(out.kind).toBe('changed');
    expect(out.text).toBe(ANCHORED.replace('shards: &a 2 #', 'shards: 3 #').replace('minShards: *a', 'minShards: 2'));
    const { parse } = await import('yaml');
    expect(parse(out.text).spec).toMatchObject({ shards: 3, autoscaling: { minShards: 2 } });
  });

  it('an anchor no alias uses stays; an alias of an anchor of the same name redefined later is not the one changed', () => {
    const unused = ANCHORED.replace('minShards: *a', 'minShards: 1');
    expect((setShardsInText(unused, T, 3) as { text: string }).text).toBe(unused.replace('&a 2', '&a 3'));
    const redefined = ANCHORED.replace('  replicasPerShard: 1\n', '  replicasPerShard: &a 1\n');
    // minShards: *a now names replicasPerShard's anchor; spec.shards' anchor has no alias.
    expect((setShardsInText(redefined, T, 3) as { text: string }).text).toBe(redefined.replace('&a 2', '&a 3'));
  });

  it('spec.shards that is itself an alias: only spec.shards changes', () => {
    const text = ANCHORED.replace('spec:\n', 'spec:\n  replicasPerShard: &m 2\n')
      .replace('shards: &a 2', 'shards: *m')
      .replace('  replicasPerShard: 1\n', '')
      .replace('minShards: *a', 'minShards: 1');
    expect((setShardsInText(text, T, 3) as { text: string }).text).toBe(text.replace('shards: *m', 'shards: 3'));
  });
});

describe('setShardsInText: compare-and-swap against the count the decision was made from (issue 32)', () => {
  it("the file says the decision's count: changed; already the new count: unchanged; anything else: stale, nothing written", () => {
    expect(setShardsInText(FILE, T, 4, 3).kind).toBe('changed');
    expect(setShardsInText(FILE, T, 3, 2).kind).toBe('unchanged');
    // "ScaleOut 2 -> 3" while git says 10 (a newer commit): never written over.
    const newer = FILE.replace('shards:   3', 'shards:   10');
    const stale = setShardsInText(newer, T, 3, 2);
    expect(stale.kind).toBe('stale');
    expect((stale as { message: string }).message).toContain(
      'has spec.shards 10 in git, not 2, the count the decision to go to 3 was made from',
    );
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

  it('--from: a file that moved on since the decision is refused with exit 3 and left as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'set-shards-'));
    const newer = FILE.replace('shards:   3', 'shards:   10');
    writeFileSync(join(dir, 'clusters.yaml'), newer);
    const stale = runSetShardsCommand(['--from', '2', 'payments/sessions', '3', dir], { cwd: '/' });
    expect(stale.exitCode).toBe(3);
    expect(stale.stderr).toContain('not 2, the count the decision to go to 3 was made from');
    expect(readFileSync(join(dir, 'clusters.yaml'), 'utf8')).toBe(newer);
    const ok = runSetShardsCommand(['--from', '10', 'payments/sessions', '11', dir], { cwd: '/' });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readFileSync(join(dir, 'clusters.yaml'), 'utf8')).toBe(FILE.replace('shards:   3', 'shards:   11'));
    expect(runSetShardsCommand(['--from', 'x', 'payments/sessions', '3', dir], { cwd: '/' }).exitCode).toBe(2);
  });
});
