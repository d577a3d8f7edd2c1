// The generated CRDs on a real kube-apiserver (issue #4, items 1-3): they install and become
// Established, every example and test resource round-trips through server-side apply, admission
// rejects what the documentation says it rejects with messages a person can read, and kubectl
// prints the documented columns.
import { readdirSync } from 'node:fs';
import { ApiextensionsV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../src/api/group.js';
import { ensureTools, type ApiServer, type KubectlResult } from '../support/apiserver.js';
import { waitFor } from '../support/process.js';
import { cluster, image } from '../support/objects.js';
import { createNamespaces } from '../support/namespaces.js';
import { show, startWithCrds, warningsIn } from '../support/kubectl.js';
import { isLocalConfig, isValkeyResource, namespacesOf, type KubeObject } from '../support/objects.js';
import { CRD_DIR, examplePackages } from '../support/paths.js';
import { goldenCases, goldenInputDocs } from '../support/render.js';
import { joinDocs, packageDocs, toJsonStream, type SourceDoc } from '../support/yaml-docs.js';

const BUILD_TIMEOUT_MS = 45 * 60_000;
const FORMAT_MESSAGE = 'must be a full MAJOR.MINOR.PATCH version such as 9.0.1 (no "v" prefix, pre-release suffix or leading zeros)';
const FLOOR_MESSAGE = 'must be at least 9.0.1, the oldest Valkey release valkey-krm runs';

/** The Valkey resources of a source, as written: what a platform or product team applies. */
const valkeyDocs = (docs: readonly SourceDoc[]): SourceDoc[] => docs.filter((d) => isValkeyResource(d.object) && !isLocalConfig(d.object));

const SOURCES: { title: string; docs: SourceDoc[] }[] = [
  ...examplePackages().map((name) => ({ title: `kptfile-examples/${name}`, docs: valkeyDocs(packageDocs(name)) })),
  ...goldenCases().map((name) => ({ title: `golden ${name}`, docs: valkeyDocs(goldenInputDocs(name)) })),
].filter((s) => s.docs.length > 0);

/**
 * Golden cases whose input is wrong in a way the API server refuses too (a bad type, a version
 * below the floor): their round trip must fail,
 * which shows admission and the function agree that they are invalid.
 */
// error-settings-by-version sets tls-auto-reload-interval, a tls-* setting (who can connect and how);
// error-unknown-valkey-names has appendfsync: evrysec, a value no enum setting takes.
const REFUSED_AT_ADMISSION = new Set([
  'golden error-caused-by',
  'golden error-yaml-types',
  'golden error-settings-by-version',
  'golden error-unknown-valkey-names',
]);

/** What must survive a round trip: the spec and the metadata a person wrote. */
const written = (o: KubeObject) => ({
  kind: o.kind,
  name: o.metadata.name,
  namespace: o.metadata.namespace,
  labels: o.metadata.labels,
  annotations: o.metadata.annotations,
  spec: o.spec,
});

/** kubectl's table output: a header row and data rows, columns split on runs of spaces. */
function table(stdout: string): { header: string[]; rows: string[][] } {
  const [header = '', ...rows] = stdout.trimEnd().split('\n');
  const cells = (line: string): string[] => line.trim().split(/\s{2,}/);
  return { header: cells(header), rows: rows.map(cells) };
}

describe('generated CRDs on a real kube-apiserver', () => {
  let api: ApiServer;
  let crdApply: KubectlResult;

  beforeAll(async () => {
    await ensureTools();
  }, BUILD_TIMEOUT_MS);

  beforeAll(async () => {
    ({ api, crdApply } = await startWithCrds());
    await createNamespaces(api, [...namespacesOf(SOURCES.flatMap((s) => s.docs.map((d) => d.object))), 'admission', 'printer'], {
      restricted: true,
    });
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
  });

  describe('install', () => {
    it('every file in crds/ applies server-side, without warnings', () => {
      expect(crdApply.code, show(crdApply)).toBe(0);
      expect(warningsIn(crdApply.stderr)).toEqual([]);
      const files = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'));
      expect(crdApply.stdout.match(/serverside-applied$/gm)?.length).toBe(files.length);
    });

    it('the five kinds are served, Established, with structural schemas (read through @kubernetes/client-node)', async () => {
      const kc = new KubeConfig();
      kc.loadFromFile(api.kubeconfigPath);
      const ext = kc.makeApiClient(ApiextensionsV1Api);
      const list = await ext.listCustomResourceDefinition({ labelSelector: 'app.kubernetes.io/part-of=valkey-krm' });
      const summary = list.items
        .map((crd) => ({
          name: crd.metadata?.name,
          scope: crd.spec.scope,
          conditions: Object.fromEntries((crd.status?.conditions ?? []).map((c) => [c.type, c.status])),
        }))
        .sort((a, b) => String(a.name).localeCompare(String(b.name)));
      expect(summary).toEqual([
        { name: `valkeyclusters.${GROUP}`, scope: 'Namespaced', conditions: { NamesAccepted: 'True', Established: 'True' } },
        { name: `valkeyconfigs.${GROUP}`, scope: 'Cluster', conditions: { NamesAccepted: 'True', Established: 'True' } },
        { name: `valkeyimages.${GROUP}`, scope: 'Cluster', conditions: { NamesAccepted: 'True', Established: 'True' } },
        { name: `valkeymeteringrecords.${GROUP}`, scope: 'Namespaced', conditions: { NamesAccepted: 'True', Established: 'True' } },
        { name: `valkeyroles.${GROUP}`, scope: 'Cluster', conditions: { NamesAccepted: 'True', Established: 'True' } },
      ]);
    });

    it('kubectl explain shows the fields and their descriptions', async () => {
      // The OpenAPI document of new CRDs is published shortly after they are Established.
      let spec: KubectlResult | undefined;
      await waitFor(
        'kubectl explain valkeycluster.spec',
        async () => {
          spec = await api.kubectl(['explain', 'valkeycluster.spec']);
          return spec.code === 0;
        },
        {
          timeoutMs: 30_000,
          intervalMs: 250,
        },
      );
      const text = (r: KubectlResult | undefined): string => (r?.stdout ?? '').replace(/\s+/g, ' ');
      for (const field of ['configRef', 'shards', 'replicasPerShard', 'acl', 'tls', 'placement', 'podAnnotations'])
        expect(spec?.stdout).toMatch(new RegExp(`^\\s+${field}\\s`, 'm'));
      expect(text(spec)).toContain('The ValkeyConfig (menu item) this cluster runs.');
      const version = await api.kubectl(['explain', 'valkeyimage.spec.version']);
      expect(text(version), show(version)).toContain('full MAJOR.MINOR.PATCH, at least 9.0.1');
    });

    it('kubectl explain describes every field a product team may set', async () => {
      const r = await api.kubectl(['explain', 'valkeycluster.spec']);
      expect(r.code, show(r)).toBe(0);
      const undescribed = [...r.stdout.matchAll(/^ {2}(\w+)\t.*\n {4}<no description>$/gm)].map((m) => m[1]);
      expect(undescribed, 'fields without a description').toEqual([]);
      expect(r.stdout, 'spec itself has a description').not.toMatch(/^DESCRIPTION:\n {4}<empty>$/m);
    });
  });

  describe('round trip: every example and test resource applies server-side and reads back unchanged', () => {
    it('has sources to check', () => {
      expect(SOURCES.filter((s) => s.title.startsWith('kptfile-examples/')).length).toBeGreaterThanOrEqual(3);
      expect(SOURCES.length).toBeGreaterThanOrEqual(10);
    });

    it.each(SOURCES.map((s) => [s.title, s] as const))('%s', async (_title, source) => {
      // One field manager for every source, so applying a source replaces what an earlier one set.
      const input = joinDocs(source.docs);
      const applied = await api.kubectl(
        ['apply', '--server-side', '--force-conflicts', '--field-manager=contract-test', '--validate=strict', '-f', '-'],
        { input },
      );
      if (REFUSED_AT_ADMISSION.has(source.title)) {
        expect(applied.code, show(applied)).not.toBe(0);
        expect(applied.stderr, show(applied)).toMatch(/Error from server|is invalid: spec\./);
        return;
      }
      expect(applied.code, show(applied)).toBe(0);
      expect(warningsIn(applied.stderr), show(applied)).toEqual([]);
      const got = await api.kubectl(['get', '-f', '-', '-o', 'json'], { input });
      expect(got.code, show(got)).toBe(0);
      const parsed = JSON.parse(got.stdout) as { kind: string; items?: KubeObject[] };
      const items = parsed.kind === 'List' ? (parsed.items ?? []) : [parsed as KubeObject];
      // An object a source defines twice (an error case) reads back as its last definition, twice.
      const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      const last = new Map(source.docs.map((d) => [key(d.object), d.object]));
      expect(items.map(written)).toEqual(source.docs.map((d) => written(last.get(key(d.object)) ?? d.object)));
    });

    it('reads the ValkeyImages back through @kubernetes/client-node too', async () => {
      const kc = new KubeConfig();
      kc.loadFromFile(api.kubeconfigPath);
      const custom = kc.makeApiClient(CustomObjectsApi);
      const list = (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'valkeyimages' })) as {
        items: KubeObject[];
      };
      // One field manager applied every source in turn: the last source to apply an image wins.
      const last = new Map<string, unknown>();
      for (const o of SOURCES.flatMap((s) => s.docs.map((d) => d.object))) if (o.kind === 'ValkeyImage') last.set(o.metadata.name, o.spec);
      const read = new Map(list.items.map((i) => [i.metadata.name, i.spec]));
      expect(last.size).toBeGreaterThan(0);
      for (const [name, spec] of last) expect(read.get(name), `ValkeyImage ${name}`).toEqual(spec);
    });
  });

  describe('admission rejects what the documentation rejects, in words a person can read', () => {
    const dryRun = (objects: readonly unknown[]): Promise<KubectlResult> =>
      api.kubectl(['apply', '--server-side', '--dry-run=server', '--field-manager=contract-test', '-f', '-'], {
        input: toJsonStream(objects),
      });
    const readable = (r: KubectlResult): void => {
      expect(r.code, show(r)).not.toBe(0);
      // No Go values or nil paths: a person reads this.
      expect(r.stderr).not.toMatch(/&value\.|valueUnstructured|<nil>/);
    };

    it.each([
      ['9.0.0', FLOOR_MESSAGE],
      ['9.0', FORMAT_MESSAGE],
      ['9.0.1-rc1', FORMAT_MESSAGE],
      ['v9.0.1', FORMAT_MESSAGE],
      ['09.0.1', FORMAT_MESSAGE],
    ])('ValkeyImage version %s', async (version, message) => {
      const r = await dryRun([image('valkey-bad', { version })]);
      readable(r);
      expect(r.stderr).toContain(`The ValkeyImage "valkey-bad" is invalid: spec.version: `);
      expect(r.stderr).toContain(message);
    });

    it.each(['9.0.1', '9.1.0', '10.0.0'])('ValkeyImage version %s is accepted', async (version) => {
      const r = await dryRun([image('valkey-good', { version })]);
      expect(r.code, show(r)).toBe(0);
      expect(warningsIn(r.stderr)).toEqual([]);
    });

    it('the version rule holds on update too', async () => {
      const created = await api.kubectl(['apply', '--server-side', '--field-manager=contract-test', '-f', '-'], {
        input: toJsonStream([image('valkey-updated')]),
      });
      expect(created.code, show(created)).toBe(0);
      const patch = (version: string): Promise<KubectlResult> =>
        api.kubectl(['patch', 'valkeyimage', 'valkey-updated', '--type=merge', '-p', JSON.stringify({ spec: { version } })]);
      const down = await patch('9.0.0');
      readable(down);
      expect(down.stderr).toContain(FLOOR_MESSAGE);
      const up = await patch('9.1.0');
      expect(up.code, show(up)).toBe(0);
    });

    it('a ValkeyCluster podAnnotation under valkey.gomomento.com/', async () => {
      const r = await dryRun([cluster('cache', { podAnnotations: { 'valkey.gomomento.com/config-hash': 'x' } }, 'admission')]);
      readable(r);
      expect(r.stderr).toContain('The ValkeyCluster "cache" is invalid: spec.podAnnotations: ');
      expect(r.stderr).toContain('keys under valkey.gomomento.com/ are reserved for valkey-krm; use another prefix');
    });

    it('an unknown ValkeyCluster field under strict field validation (kubectl create)', async () => {
      const r = await api.kubectl(['create', '--dry-run=server', '--validate=strict', '-f', '-'], {
        input: toJsonStream([cluster('cache', { image: 'valkey/valkey:9.0.1' }, 'admission')]),
      });
      readable(r);
      expect(r.stderr).toContain('strict decoding error: unknown field "spec.image"');
    });

    it('an unknown ValkeyCluster field on server-side apply', async () => {
      const r = await dryRun([cluster('cache', { image: 'valkey/valkey:9.0.1' }, 'admission')]);
      readable(r);
      expect(r.stderr).toContain('.spec.image: field not declared in schema');
    });

    it('at most 500 pods per cluster: 250 shards x 2 and 500 x 1 are accepted, 251 x 2 is refused on spec.shards', async () => {
      for (const [shards, replicasPerShard] of [
        [250, 1],
        [500, 0],
      ]) {
        const ok = await dryRun([cluster('big', { shards, replicasPerShard }, 'admission')]);
        expect(ok.code, show(ok)).toBe(0);
      }
      const r = await dryRun([cluster('big', { shards: 251, replicasPerShard: 1 }, 'admission')]);
      readable(r);
      expect(r.stderr).toContain('The ValkeyCluster "big" is invalid: spec.shards: ');
      expect(r.stderr).toContain('shards × (replicasPerShard + 1) must be at most 500 pods per cluster');
    });

    it('spec.shards outside spec.autoscaling (CEL on the spec), on create and on a hand edit of shards', async () => {
      const autoscaling = { minShards: 3, maxShards: 8, scaleOut: { memoryPercent: 80 } };
      const r = await dryRun([cluster('cache', { shards: 2, autoscaling }, 'admission')]);
      readable(r);
      expect(r.stderr).toContain('The ValkeyCluster "cache" is invalid: spec.shards: ');
      expect(r.stderr).toContain('must be within autoscaling.minShards and autoscaling.maxShards');
      const created = await api.kubectl(['apply', '--server-side', '--field-manager=contract-test', '-f', '-'], {
        input: toJsonStream([cluster('autoscaled', { shards: 3, autoscaling }, 'admission')]),
      });
      expect(created.code, show(created)).toBe(0);
      const patch = (shards: number) =>
        api.kubectl([
          'patch',
          'valkeycluster',
          'autoscaled',
          '-n',
          'admission',
          '--type=merge',
          '-p',
          JSON.stringify({ spec: { shards } }),
        ]);
      const above = await patch(9);
      readable(above);
      expect(above.stderr).toContain('spec.shards: Invalid value');
      expect((await patch(8)).code).toBe(0);
    });

    it('a scale-in threshold at its scale-out twin', async () => {
      const autoscaling = { minShards: 1, maxShards: 8, scaleOut: { memoryPercent: 80 }, scaleIn: { memoryPercent: 90 } };
      const r = await dryRun([cluster('cache', { shards: 3, autoscaling }, 'admission')]);
      readable(r);
      expect(r.stderr).toContain('spec.autoscaling.scaleIn.memoryPercent: ');
      expect(r.stderr).toContain('scaleIn.memoryPercent must be below scaleOut.memoryPercent');
    });

    it('a bad enum: zoneSpread: sometimes', async () => {
      const r = await dryRun([cluster('cache', { placement: { zoneSpread: 'sometimes' } }, 'admission')]);
      expect(r.code, show(r)).not.toBe(0);
      expect(r.stderr).toContain('spec.placement.zoneSpread: Unsupported value: "sometimes": supported values: "bestEffort", "required"');
    });
  });

  describe('kubectl get prints the documented columns', () => {
    /** A merge patch of the status subresource of printer/sessions, as the controller writes it. */
    const patchSessionsStatus = (patch: { status: Record<string, unknown> }): Promise<KubectlResult> =>
      api.kubectl([
        'patch',
        'valkeycluster',
        'sessions',
        '-n',
        'printer',
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify(patch),
      ]);

    it('valkeyimages: Repository, Tag, Version', async () => {
      const images = [image('printer-9-0'), image('printer-10-0', { tag: '10.0.0-alpine', version: '10.0.0' })].map((o) => ({
        ...o,
        metadata: { ...o.metadata, labels: { suite: 'printer' } },
      }));
      const created = await api.kubectl(['apply', '--server-side', '--field-manager=contract-test', '-f', '-'], {
        input: toJsonStream(images),
      });
      expect(created.code, show(created)).toBe(0);
      const r = await api.kubectl(['get', 'valkeyimages', '-l', 'suite=printer', '--sort-by=.metadata.name']);
      expect(r.code, show(r)).toBe(0);
      const { header, rows } = table(r.stdout);
      expect(header).toEqual(['NAME', 'REPOSITORY', 'TAG', 'VERSION', 'AGE']);
      expect(rows.map((row) => row.slice(0, 4))).toEqual([
        ['printer-10-0', 'valkey/valkey', '10.0.0-alpine', '10.0.0'],
        ['printer-9-0', 'valkey/valkey', '9.0.1', '9.0.1'],
      ]);
    });

    it('valkeyclusters: Config, Shards, Replicas, State, Desired Shards (and Message with -o wide), from the status subresource', async () => {
      const created = await api.kubectl(['apply', '--server-side', '--field-manager=contract-test', '-f', '-'], {
        input: toJsonStream([cluster('sessions', { configRef: 'standard', shards: 3, replicasPerShard: 1 }, 'printer')]),
      });
      expect(created.code, show(created)).toBe(0);
      const status = { status: { state: 'Active', message: '6 of 6 nodes online', observedGeneration: 1 } };
      const patched = await patchSessionsStatus(status);
      expect(patched.code, show(patched)).toBe(0);

      const r = await api.kubectl(['get', 'valkeyclusters', '-n', 'printer']);
      expect(r.code, show(r)).toBe(0);
      const plain = table(r.stdout);
      // No autoscaling: DESIRED SHARDS is empty, which the column split reads as no cell.
      expect(plain.header).toEqual(['NAME', 'CONFIG', 'SHARDS', 'REPLICAS', 'STATE', 'DESIRED SHARDS', 'AGE']);
      expect(plain.rows.map((row) => row.slice(0, 5))).toEqual([['sessions', 'standard', '3', '1', 'Active']]);
      expect(plain.rows[0]).toHaveLength(6);

      const wide = table((await api.kubectl(['get', 'valkeyclusters', '-n', 'printer', '-o', 'wide'])).stdout);
      expect(wide.header).toEqual(['NAME', 'CONFIG', 'SHARDS', 'REPLICAS', 'STATE', 'DESIRED SHARDS', 'MESSAGE', 'AGE']);
      expect(wide.rows[0]?.slice(0, 5)).toEqual(['sessions', 'standard', '3', '1', 'Active']);
      expect(wide.rows[0]).toContain('6 of 6 nodes online');

      // The autoscaler's decision beside git's count.
      const decided = await patchSessionsStatus({
        status: {
          autoscaling: {
            desiredShards: 4,
            lastDecision: 'ScaleOut',
            lastDecisionReason: "shard 0's primary sessions-0-0 at 91% memoryPercent, above 80",
            lastDecisionTime: '2025-01-01T00:00:00Z',
            lastDecisionFromShards: 3,
          },
        },
      });
      expect(decided.code, show(decided)).toBe(0);
      const withDecision = table((await api.kubectl(['get', 'valkeyclusters', '-n', 'printer'])).stdout);
      expect(withDecision.rows.map((row) => row.slice(0, 6))).toEqual([['sessions', 'standard', '3', '1', 'Active', '4']]);
      const cleared = await patchSessionsStatus({ status: { autoscaling: null } });
      expect(cleared.code, show(cleared)).toBe(0);

      // Every state the controller writes is accepted by the status schema and shown.
      for (const state of ['Creating', 'Updating', 'Invalid', 'Failed', 'Active']) {
        const set = await patchSessionsStatus({ status: { state, message: `now ${state}` } });
        expect(set.code, show(set)).toBe(0);
        const row = table((await api.kubectl(['get', 'valkeyclusters', '-n', 'printer'])).stdout).rows[0];
        expect(row?.[4]).toBe(state);
      }
    });

    it('the status subresource enforces its schema too', async () => {
      const r = await patchSessionsStatus({ status: { state: 'Sleeping' } });
      expect(r.code, show(r)).not.toBe(0);
      expect(r.stderr).toContain(
        'status.state: Unsupported value: "Sleeping": supported values: "Creating", "Active", "Updating", "Invalid", "Failed"',
      );
    });
  });
});
