// Issue 32: what renders green starts. Every setting a ValkeyConfig may set, with the values the
// tables suggest (bounds and one past them, units, signs, leading zeros, arity, case, each enum
// value, the special parsers' forms: test/support/setting-value-cases.ts), is rendered; then a real
// Valkey 9.1.2 is started on it:
//  - a green render's valkey.conf, exactly as rendered (paths moved to a temp dir, the port, bus
//    port and nodes.conf made the server's own), must start and answer PING. The green values are
//    started in rounds, one value of every setting per round in one rendered file; a round that
//    does not start is started again one value at a time, so the value it failed on is named;
//  - a refused value, written as the render would write it at the end of the same file, must stop
//    the server from starting: the render refuses nothing Valkey takes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { valkeyConfLine } from '../../src/api/contract/valkey-conf.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { renderAll } from '../../src/render/render-all.js';
import { tempDirs } from '../support/files.js';
import { cluster, config, image } from '../support/objects.js';
import { inPool } from '../support/pool.js';
import { freePort } from '../support/process.js';
import { settingValueCases, type SettingValueCase } from '../support/setting-value-cases.js';
import { SUPPORTED_BUILD, readsConf, startValkey } from '../support/valkey.js';

const render = validateRenderConfig({
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyRenderConfig',
  metadata: { name: 'render' },
  spec: { systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } } },
}).config!;

const dirs = tempDirs('setting-values');
afterAll(() => dirs.cleanup());

/** The render of one config setting `valkey` and a cluster on it: its errors on spec.valkey, or its files. */
function renderSettings(valkey: Record<string, string>): { errors: { field?: string; message: string }[]; conf: string; acl: string } {
  const out = renderAll(
    [
      image('img', { tag: '9.1.2', version: '9.1.2' }),
      config('tuned', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' }, valkey }),
      cluster('c', { configRef: 'tuned', replicasPerShard: 1 }),
    ],
    render,
  );
  const errors = out.problems.filter((p) => p.severity === 'error').map((p) => ({ field: p.field, message: p.message }));
  const cm = out.clusters[0]?.objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> } | undefined;
  return { errors, conf: cm?.data['valkey.conf'] ?? '', acl: cm?.data['users.acl'] ?? '' };
}

const aclDir = dirs.make('conf');
/** The rendered file with its paths in the test's temp dir (nodes.conf and ports are the server's own, as arguments). */
function confText(conf: string, acl: string): string {
  writeFileSync(join(aclDir, 'users.acl'), acl);
  return conf.replaceAll('/etc/valkey/conf', aclDir).replaceAll('/data', aclDir);
}

/** Whether 9.1.2 starts on `text` and answers PING; the start-up log's last lines when it does not. */
async function starts(text: string): Promise<{ ok: true } | { ok: false; log: string }> {
  try {
    const server = await startValkey({
      build: SUPPORTED_BUILD,
      confText: text,
      args: ['--cluster-port', String(await freePort()), '--cluster-config-file', 'nodes.conf'],
      quietFailure: true,
      readyTimeoutMs: 15_000,
    });
    await server.kill();
    return { ok: true };
  } catch (e) {
    return {
      ok: false,
      log: String((e as Error).message)
        .split('\n')
        .slice(-8)
        .join('\n'),
    };
  }
}

const cases = settingValueCases();
// The test's cluster has one replica per shard, 2Gi and 1 CPU: a min-replicas-to-write above it, a
// maxmemory at the memory limit, a maxclients below the cluster's own connections are refused on
// the cluster (shape checks, src/render/shape-checks.ts: spec.replicasPerShard, spec.configRef),
// not as values the server refuses, so those errors are left out here.
const shapeError = (e: { field?: string }) => e.field === 'spec.replicasPerShard' || e.field === 'spec.configRef';
const verdicts = cases.map((c) => {
  const r = renderSettings({ [c.name]: c.value });
  return { ...c, ...r, errors: r.errors.filter((e) => !shapeError(e)) };
});
const label = (c: SettingValueCase) => `${c.name} ${JSON.stringify(c.value)}`;

describe(`every setting's values, rendered and started on a real Valkey ${SUPPORTED_BUILD}`, () => {
  it('the render refuses a value only on its own field, and both verdicts occur for every setting with a number, an enum or a parser', () => {
    const stray = verdicts.filter((v) => v.errors.some((e) => e.field !== `spec.valkey.${v.name}`));
    expect(stray.map((v) => `${label(v)}: ${v.errors.map((e) => e.message).join('; ')}`)).toEqual([]);
    const byName = new Map<string, Set<boolean>>();
    for (const v of verdicts) byName.set(v.name, (byName.get(v.name) ?? new Set()).add(v.errors.length === 0));
    const oneSided = [...byName].filter(([name, seen]) => seen.size < 2 && cases.filter((c) => c.name === name).length > 1).map(([n]) => n);
    expect(oneSided).toEqual([]);
    console.log(
      `${cases.length} values of ${byName.size} settings: ${verdicts.filter((v) => v.errors.length === 0).length} green, ${verdicts.filter((v) => v.errors.length > 0).length} refused`,
    );
  });

  it('every green render starts (in rounds, each failed round value by value); every refused value stops the server', async () => {
    const started = performance.now();
    const green = verdicts.filter((v) => v.errors.length === 0);
    const refused = verdicts.filter((v) => v.errors.length > 0);
    const rounds: (typeof green)[] = [];
    const seen = new Map<string, number>();
    for (const v of green) {
      const r = seen.get(v.name) ?? 0;
      seen.set(v.name, r + 1);
      if (!rounds[r]) rounds[r] = [];
      rounds[r].push(v);
    }
    const failedGreen: string[] = [];
    let starts_ = 0;
    await inPool(rounds, 2, async (round) => {
      const together = renderSettings(Object.fromEntries(round.map((v) => [v.name, v.value])));
      starts_++;
      if (together.errors.length === 0 && (await starts(confText(together.conf, together.acl))).ok) return;
      await inPool(round, 4, async (v) => {
        starts_++;
        const one = await starts(confText(v.conf, v.acl));
        if (!one.ok) failedGreen.push(`${label(v)} rendered green but Valkey did not start:\n${one.log}`);
      });
    });
    const base = renderSettings({});
    const baseText = confText(base.conf, base.acl);
    const startedRefused: string[] = [];
    let probes = 0;
    await inPool(refused, 4, async (v) => {
      // The loader stops at the first line it refuses, before it opens anything: a refusal of this
      // line ends it at once. Only a line it reads (and may then exit on) needs a full start.
      const text = `${baseText}${valkeyConfLine(v.name, v.value)}\n`;
      probes++;
      const read = await readsConf(text);
      if (!read.accepted && read.line === text.split('\n').length - 1) return;
      if (!read.accepted) throw new Error(`${label(v)}: the base file was refused at line ${read.line}: ${read.message}`);
      starts_++;
      const one = await starts(text);
      if (one.ok) startedRefused.push(`${label(v)}: the render refused it (${v.errors[0]?.message}) but Valkey starts on it`);
    });
    console.log(
      `${green.length} green values in ${rounds.length} rounds and ${refused.length} refused ones: ${starts_} starts and ${probes} reads of the file by valkey-server ${SUPPORTED_BUILD} in ${Math.round(performance.now() - started)} ms`,
    );
    expect(failedGreen).toEqual([]);
    expect(startedRefused).toEqual([]);
  }, 600_000);
});
