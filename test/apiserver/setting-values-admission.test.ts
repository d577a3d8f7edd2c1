// Issue 32: the CRD refuses what it can express. Every value of test/support/setting-value-cases.ts
// (the values test/valkey/setting-values.test.ts starts real Valkey 9.1.2 on), under each setting's
// name and each of its aliases, is sent to a real kube-apiserver with the generated CRDs as a
// ValkeyConfig (server-side dry run), and rendered by the function:
//  - the API server installs the CRD, so the rules' estimated CEL cost is within its limits;
//  - admission never refuses a value the function renders green (and so Valkey starts on);
//  - every setting that has a rule refuses at admission at least one value the function refuses,
//    and the values (hz: abc, io-threads: 9999, save: 60, ...) are refused by name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../src/api/group.js';
import { generatedValkeySettingAliases } from '../../src/api/valkey-settings.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { renderAll } from '../../src/render/render-all.js';
import { ensureTools, type ApiServer } from '../support/apiserver.js';
import { show, startWithCrds } from '../support/kubectl.js';
import { cluster, config, image } from '../support/objects.js';
import { inPool } from '../support/pool.js';
import { settingValueCases } from '../support/setting-value-cases.js';

const render = validateRenderConfig({
  apiVersion: 'valkey.gomomento.com/v1alpha1',
  kind: 'ValkeyRenderConfig',
  metadata: { name: 'render' },
  spec: { systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } } },
}).config!;

/** The function's errors on spec.valkey.<key> for one config setting `key` to `value`. */
function functionErrors(key: string, value: string): string[] {
  const out = renderAll(
    [
      image('img', { tag: '9.1.2', version: '9.1.2' }),
      config('tuned', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' }, valkey: { [key]: value } }),
      cluster('c', { configRef: 'tuned', replicasPerShard: 1 }),
    ],
    render,
  );
  return out.problems.filter((p) => p.severity === 'error' && p.field === `spec.valkey.${key}`).map((p) => p.message);
}

const aliasesOf = (name: string): string[] =>
  Object.entries(generatedValkeySettingAliases())
    .filter(([alias, canonical]) => canonical === name && /^[a-z][a-z0-9-]*$/.test(alias))
    .map(([alias]) => alias);

const cases = settingValueCases().flatMap((c) => [c.name, ...aliasesOf(c.name)].map((key) => ({ ...c, key })));

describe('setting values at admission (the ValkeyConfig CRD on a real kube-apiserver)', () => {
  let api: ApiServer;

  beforeAll(async () => {
    await ensureTools();
    const started = await startWithCrds();
    api = started.api;
    expect(started.crdApply.code, show(started.crdApply)).toBe(0);
  }, 600_000);

  afterAll(async () => {
    await api?.stop();
  });

  /** The API server's verdict on a ValkeyConfig setting `key` to `value`: undefined when admitted, else its message. */
  async function admission(key: string, value: string): Promise<string | undefined> {
    const res = await api.request('POST', `/apis/${GROUP}/${VERSION}/valkeyconfigs?dryRun=All&fieldValidation=Strict`, {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'ValkeyConfig',
      metadata: { name: 'probe' },
      spec: { valkey: { [key]: value } },
    });
    if (res.status === 201) return undefined;
    if (res.status !== 422) throw new Error(`${key} ${JSON.stringify(value)}: HTTP ${res.status}: ${res.body}`);
    return (JSON.parse(res.body) as { message: string }).message;
  }

  it('admission refuses no value the function renders green, and every rule refuses a value the function refuses', async () => {
    const started = performance.now();
    const verdicts = await inPool(cases, 8, async (c) => ({
      ...c,
      admission: await admission(c.key, c.value),
      fn: functionErrors(c.key, c.value),
    }));
    const label = (v: (typeof verdicts)[number]) => `${v.key} ${JSON.stringify(v.value)}`;
    const tooStrict = verdicts.filter((v) => v.admission !== undefined && v.fn.length === 0).map((v) => `${label(v)}: ${v.admission}`);
    expect(tooStrict).toEqual([]);
    const refusedByFunction = verdicts.filter((v) => v.fn.length > 0);
    const alsoAtAdmission = refusedByFunction.filter((v) => v.admission !== undefined);
    // A setting with a rule refuses at admission; one without a rule (a string, a parser not
    // modelled in CEL) admits everything and leaves the value to the function.
    const keysWithRefusal = new Set(alsoAtAdmission.map((v) => v.key));
    const ruleKeys = new Set(
      (
        await api.kubectl(['get', 'crd', `valkeyconfigs.${GROUP}`, '-o', 'json']).then((r) => JSON.parse(r.stdout) as CrdJson)
      ).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.valkey['x-kubernetes-validations']
        .map((r) => /^!\('([^']+)' in self\)/.exec(r.rule)?.[1])
        .filter((k): k is string => k !== undefined),
    );
    const silentRules = [...ruleKeys].filter((k) => cases.some((c) => c.key === k) && !keysWithRefusal.has(k));
    expect(silentRules).toEqual([]);
    console.log(
      `${verdicts.length} values of ${new Set(cases.map((c) => c.key)).size} setting names at admission in ${Math.round(performance.now() - started)} ms: the function refuses ${refusedByFunction.length}, admission ${alsoAtAdmission.length} of them (${ruleKeys.size} names have a rule); admission refuses nothing the function renders green`,
    );
  }, 300_000);

  it.each([
    ['hz', 'abc', 'hz: "abc" is not a value Valkey takes; it takes a whole number from 0 to 2147483647'],
    ['io-threads', '9999', 'io-threads: "9999" is not a value Valkey takes; it takes a whole number from 1 to 256'],
    ['save', '60', 'save: "60" is not a value Valkey takes; it takes pairs of <seconds> <changes>'],
    ['maxmemory', '1.5gb', 'maxmemory: "1.5gb" is not a value Valkey takes; it takes a number of bytes with an optional unit'],
    ['proto-max-bulk-len', '1000kb', 'at least 1048576 bytes'],
    ['maxmemory-clients', '101%', 'or a percentage up to 100%'],
    ['client-output-buffer-limit', 'normal 0 0', 'groups of <class> <hard limit> <soft limit> <soft seconds>'],
    ['notify-keyspace-events', 'KZ', 'the event class characters'],
    ['slave-priority', '-1', 'slave-priority: "-1" is not a value Valkey takes'],
  ])('%s: %s is refused at admission, naming the setting, the value and the form', async (key, value, message) => {
    expect(functionErrors(key, value)).not.toEqual([]);
    const why = await admission(key, value);
    expect(why).toContain('spec.valkey');
    expect(why).toContain(message);
  });
});

interface CrdJson {
  spec: {
    versions: [
      {
        schema: {
          openAPIV3Schema: { properties: { spec: { properties: { valkey: { 'x-kubernetes-validations': { rule: string }[] } } } } };
        };
      },
    ];
  };
}
