// Bytes Valkey cannot take in an ACL rule or a setting. Valkey 9.1.2 crashes (SIGSEGV) loading a
// users.acl whose selector holds a NUL, at start-up and on ACL LOAD alike: one such pattern took
// every node of a cluster down. The function refuses every control character in key and channel
// patterns (and in setting values, but tab), at the config and at the cluster level; this test
// shows the real server crashing on the line the renderer used to write, and that the function
// now refuses it. The CRDs refuse the same (agreement-rows.ts, on a real kube-apiserver).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runFunction } from '../../src/krm/run-function.js';
import { tempDirs } from '../support/files.js';
import { binding, cluster, guideMenu, renderConfigObject, role } from '../support/objects.js';
import { SUPPORTED_BUILD, valkeyServerPath } from '../support/valkey.js';

const tmp = tempDirs('acl-bytes');
afterAll(() => tmp.cleanup());

/** valkey-server on an ACL file, in cluster mode as the pods run it; how it ended within a few seconds. */
function loadAcl(acl: string): { signal: NodeJS.Signals | null; status: number | null; log: string } {
  const dir = tmp.make();
  writeFileSync(join(dir, 'users.acl'), acl);
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const r = spawnSync(
    valkeyServerPath(SUPPORTED_BUILD),
    ['--port', port, '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf')].concat([
      '--aclfile',
      join(dir, 'users.acl'),
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ]),
    { timeout: 12_000, killSignal: 'SIGTERM', encoding: 'utf8' },
  );
  return { signal: r.signal, status: r.status, log: `${r.stdout}${r.stderr}` };
}

/** A users.acl line in the renderer's form: the fixed rules, then one selector per permission. */
const aclFile = (selector: string) =>
  `user default on nopass resetchannels -@all +ping\nuser app on nopass resetchannels -@all +ping (${selector})\n`;

const render = (menu: unknown[]) =>
  runFunction(
    menu.map((value) => ({ text: '', value })),
    undefined,
    { validateOnly: false, dropLocalConfig: true },
  );
const errorsOf = (menu: unknown[]) =>
  render(menu)
    .problems.filter((p) => p.severity === 'error')
    .map((p) => `${p.field}: ${p.message}`);

describe(`Valkey ${SUPPORTED_BUILD} on control characters in an ACL selector`, () => {
  it('starts on the clean line (the control case)', () => {
    const r = loadAcl(aclFile('+@read ~app:* &ch:*'));
    // Still running when the test stopped it (Valkey exits cleanly on SIGTERM).
    expect(r.log).toContain('Ready to accept connections');
    expect(r.signal, r.log).not.toBe('SIGSEGV');
  });

  it.each([
    ['a key pattern', '+@read ~app:\u0000*'],
    ['a channel pattern', '+@read ~app:* &ch\u0000'],
  ])('crashes (SIGSEGV) on a NUL in %s', (_what, selector) => {
    const r = loadAcl(aclFile(selector));
    expect(r.signal, r.log).toBe('SIGSEGV');
    expect(r.log).not.toContain('Ready to accept connections');
  });
});

describe('the function refuses what Valkey cannot take', () => {
  const CONTROLS = ['\u0000', '\u0001', '\u001b', '\u007f', '\u0085', '\u009b'];

  it.each(CONTROLS.map((c) => [JSON.stringify(c), c]))('%s in key and channel patterns, at the config and the cluster level', (_n, c) => {
    const bad = { ...binding('app', 'reader', [{ pattern: `app:${c}*`, access: 'readwrite' }]) };
    const badChannel = binding('app2', 'reader');
    (badChannel.permissions[0] as { channels?: string[] }).channels = [`ch${c}`];
    const menu = guideMenu();
    (menu[1] as { spec: Record<string, unknown> }).spec.acl = [bad, badChannel];
    const errors = errorsOf([...menu, role('reader'), renderConfigObject(), cluster('c1', { acl: [{ ...bad, username: 'team' }] })]);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^spec\.acl\[0\]\.permissions\[0\]\.keys\[0\]\.pattern: ValkeyConfig standard: .*without whitespace, quotes or control characters/,
        ),
        expect.stringMatching(
          /^spec\.acl\[1\]\.permissions\[0\]\.channels\[0\]: ValkeyConfig standard: .*without whitespace, quotes or control characters/,
        ),
        expect.stringMatching(/^spec\.acl\[0\]\.permissions\[0\]\.keys\[0\]\.pattern: ValkeyCluster team-a\/c1: .*control characters/),
      ]),
    );
  });

  it.each(['\u0000', '\u001b', '\u007f', '\r'])('%j in a setting value; a tab between arguments is fine', (c) => {
    const menu = guideMenu();
    const valkey = (menu[1] as unknown as { spec: { valkey: Record<string, string> } }).spec.valkey;
    valkey.maxmemory = `1500mb${c}`;
    expect(errorsOf([...menu, renderConfigObject(), cluster('c1')]).join('\n')).toMatch(/control character/);
    valkey.maxmemory = '1500mb';
    valkey.save = '3600\t1';
    expect(errorsOf([...menu, renderConfigObject(), cluster('c1')])).toEqual([]);
  });
});
