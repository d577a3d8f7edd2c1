// Everything in a package that claims to be valkey-krm's output but is not exactly what this render
// produces is a finding, for EVERY kind the render writes: a table over the objects a fully featured
// cluster renders (TLS with client Certificates, the NetworkPolicy, the connection ConfigMap, PDBs,
// StatefulSets, the Service, the config ConfigMap), so a new kind cannot slip by. Each object is forged
// four ways (edited where it was committed, a second edited copy in another file, a copy without our
// labels, our labels on a name the render does not write) and render, validate-valkey and plan must
// each say so; render may instead replace the edited committed copy with its own (issue 32).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPlanCommand } from '../../src/krm/plan-command.js';
import { runFunction, type InputItem } from '../../src/krm/run-function.js';
import { binding, cluster, config, image, renderConfigObject, role } from '../support/objects.js';

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
};

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const item = (value: unknown, path: string, index = 0): InputItem => ({ text: `${JSON.stringify(value)}\n`, value, file: { path, index } });
const CONFIG = renderConfigObject({ outputDir: 'valkey' });
const inputs = () => [
  image('img'),
  config('std', {
    imageRef: 'img',
    resources: { cpu: '1', memory: '2Gi' },
    valkey: { maxmemory: '1gb' },
    acl: [binding('platform-reader', 'rw')],
  }),
  role('rw'),
  cluster(
    'orders',
    {
      configRef: 'std',
      shards: 2,
      replicasPerShard: 1,
      acl: [binding('orders-api', 'rw')],
      tls: { secretRef: 'orders-tls', clientCertificates: { issuerRef: { kind: 'ClusterIssuer', name: 'ca' }, users: ['orders-api'] } },
    },
    'shop',
  ),
];

const RENDERED: Obj[] = (() => {
  const out = runFunction(
    inputs().map((v, i) => item(v, 'package.yaml', i)),
    CONFIG,
    { validateOnly: false, dropLocalConfig: false },
  );
  if (!out.ok) throw new Error(JSON.stringify(out.problems));
  return out.generated.map((g) => clone(g.object) as unknown as Obj);
})();
const OUTPUT_FILE = 'valkey/shop/orders.yaml';

/** A change to each object that matters to whoever applies it: another host, another image, open access. */
function forge(o: Obj): Obj {
  const f = clone(o);
  const spec = f.spec as Record<string, unknown>;
  switch (f.kind) {
    case 'ConfigMap':
      if (f.data?.service !== undefined) f.data = { ...f.data, service: 'orders.attacker.example', seeds: 'attacker.example:6379' };
      else f.data = { ...f.data, 'valkey.conf': `${f.data?.['valkey.conf'] ?? ''}protected-mode no\n` };
      break;
    case 'NetworkPolicy':
      spec.ingress = [{}];
      break;
    case 'Service':
      spec.type = 'LoadBalancer';
      delete spec.clusterIP;
      break;
    case 'PodDisruptionBudget':
      spec.maxUnavailable = '100%';
      delete spec.minAvailable;
      break;
    case 'StatefulSet': {
      const c = (spec.template as { spec: { containers: { image: string }[] } }).spec.containers[0] as { image: string };
      c.image = 'registry.attacker.example/miner:latest';
      break;
    }
    case 'Certificate':
      spec.commonName = 'valkey-krm-controller';
      break;
    default:
      throw new Error(`no forgery for ${f.kind}: add one, the table must cover every kind the render writes`);
  }
  return f;
}

const without = (o: Obj): Obj => {
  const f = forge(o);
  delete f.metadata.labels;
  delete f.metadata.annotations;
  return f;
};
/** Our labels (managed-by and the cluster's) on an object the render does not write. */
const labelledExtra = (o: Obj): Obj => {
  const f = forge(o);
  f.metadata.name = `${f.metadata.name}-extra`;
  delete f.metadata.annotations;
  return f;
};

const FORGERIES: [string, (objects: Obj[], index: number) => InputItem[]][] = [
  ['edited where it was committed', (objects, i) => objects.map((o, j) => item(j === i ? forge(o) : o, OUTPUT_FILE, j))],
  [
    'an edited second copy in another file',
    (objects, i) => [...objects.map((o, j) => item(o, OUTPUT_FILE, j)), item(forge(objects[i] as Obj), 'extra/copy.yaml')],
  ],
  [
    'an edited copy without our labels in another file',
    (objects, i) => [...objects.map((o, j) => item(o, OUTPUT_FILE, j)), item(without(objects[i] as Obj), 'extra/bare.yaml')],
  ],
  [
    'our labels on a name the render does not write',
    (objects, i) => [...objects.map((o, j) => item(o, OUTPUT_FILE, j)), item(labelledExtra(objects[i] as Obj), 'extra/labelled.yaml')],
  ],
];

const CELLS = RENDERED.flatMap((o, i) => FORGERIES.map(([how, make]) => [`${o.kind} ${o.metadata.name}`, how, i, make] as const));
const packageItems = () => inputs().map((v, i) => item(v, 'package.yaml', i));
const errors = (out: ReturnType<typeof runFunction>) => out.problems.filter((p) => p.severity === 'error').map((p) => p.message);

describe('the table covers every kind the render writes', () => {
  it('a TLS cluster with client certificates renders each kind, and every one is forged', () => {
    expect([...new Set(RENDERED.map((o) => o.kind))].sort()).toEqual([
      'Certificate',
      'ConfigMap',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Service',
      'StatefulSet',
    ]);
    expect(RENDERED.map((o) => o.metadata.name)).toContain('orders-connection');
    for (const o of RENDERED) expect(forge(o)).not.toEqual(o);
  });

  it('the committed package alone is clean (the check is fair)', () => {
    const committed = [...packageItems(), ...RENDERED.map((o, j) => item(o, OUTPUT_FILE, j))];
    for (const validateOnly of [true, false])
      expect(errors(runFunction(committed, CONFIG, { validateOnly, dropLocalConfig: false }))).toEqual([]);
  });
});

describe.each(CELLS)('%s, %s', (_what, how, index, make) => {
  const forged = () => [...packageItems(), ...make(RENDERED, index)];

  it('validate-valkey reports it', () => {
    const out = runFunction(forged(), CONFIG, { validateOnly: true, dropLocalConfig: false });
    expect(errors(out)).not.toEqual([]);
  });

  it('render reports it, or writes its own object in its place', () => {
    const out = runFunction(forged(), CONFIG, { validateOnly: false, dropLocalConfig: false });
    if (how === 'edited where it was committed') {
      expect(errors(out)).toEqual([]);
      expect(out.generated.map((g) => g.object)).toEqual(RENDERED);
    } else expect(errors(out)).not.toEqual([]);
  });

  const dir = mkdtempSync(join(tmpdir(), 'valkey-krm-claims-kinds-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('plan reports it, and --fail-on any does not exit 0', () => {
    const file = (name: string, docs: unknown[]) =>
      writeFileSync(join(dir, name), [CONFIG, ...docs].map((d) => `---\n${JSON.stringify(d)}\n`).join(''));
    file('base.yaml', [...inputs(), ...RENDERED]);
    file(
      'change.yaml',
      forged()
        .filter((i) => i.file?.path !== 'package.yaml')
        .map((i) => i.value)
        .concat(inputs()),
    );
    const out = runPlanCommand(['--base', 'base.yaml', '--fail-on', 'any', 'change.yaml'], { cwd: dir });
    expect(out.exitCode, `${out.stdout}${out.stderr}`).not.toBe(0);
    expect(out.stdout).not.toMatch(/^valkey-krm plan: .*unchanged/m);
  });
});
