// What render-valkey produces meets a real kube-apiserver (issue #4, items 4-6): every rendered
// object passes server-side dry run without warnings, every pod template is admitted as a Pod
// under Pod Security `restricted`, and the function and the CRDs judge invalid resources alike.
// kubectl runs in beforeAll, a few at a time (each one parses the server's OpenAPI); the tests
// then read its verdicts.
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderConfigSpec, type Problem } from '../../src/api/index.js';
import { renderAll } from '../../src/render/render-all.js';
import { ensureTools, type ApiServer, type KubectlResult } from '../support/apiserver.js';
import { CONTROLLER_HASH, REPLICATION_HASH, guideMenu, role } from '../support/objects.js';
import { AGREEMENT_NAMESPACE, ROWS, type AgreementRow } from './agreement-rows.js';
import { createNamespaces } from '../support/namespaces.js';
import { installCertificateCrd, servedGroups, show, startWithCrds, warningsIn } from '../support/kubectl.js';
import {
  describeObject,
  groupOf,
  isGenerated,
  namespacesOf,
  podsFromTemplates,
  withoutKptAnnotations,
  type KubeObject,
} from '../support/objects.js';
import { examplePackages } from '../support/paths.js';
import { inPool } from '../support/pool.js';
import { goldenCases, goldenGenerated, renderGoldenCase, renderPackage } from '../support/render.js';
import { joinDocs, parseSourceDocs, toJsonStream, type SourceDoc } from '../support/yaml-docs.js';

const BUILD_TIMEOUT_MS = 45 * 60_000;
// kubectl is CPU-bound (it parses the server's OpenAPI): one per core, at least two.
const KUBECTL_AT_ONCE = Math.max(2, Math.min(8, availableParallelism()));

interface RenderedSource {
  /** The documents to dry-run, byte for byte as render-valkey printed them. */
  docs: SourceDoc[];
  /** Printed documents of API groups this server does not serve (e.g. cert-manager's Certificate). */
  foreign: KubeObject[];
}

const EXAMPLE_TITLES = examplePackages().map((n) => `kptfile-examples/${n}`);
const GOLDEN_WITH_OUTPUT = goldenCases().filter((n) => goldenGenerated(n).length > 0);
const SOURCE_TITLES = [...EXAMPLE_TITLES, ...GOLDEN_WITH_OUTPUT.map((n) => `golden ${n}`)];

const RENDER_CONFIG = renderConfigSpec().parse({
  systemUsers: { replication: { passwordHash: REPLICATION_HASH }, controller: { passwordHash: CONTROLLER_HASH } },
});
const BASE_MENU = [...guideMenu(), role('reader')];

/** render-valkey's verdict on a row: the subject among a valid menu and a cluster that uses it. */
function judge(row: AgreementRow) {
  const [subject, ...rest] = parseSourceDocs(row.text, row.name).map((d) => d.object);
  if (!subject || rest.length > 0) throw new Error(`row "${row.name}" must hold exactly one resource`);
  const result = renderAll([...BASE_MENU, ...row.context, subject], RENDER_CONFIG);
  const errors = result.problems.filter((p) => p.severity === 'error');
  const own = errors.filter((p) => p.object?.kind === subject.kind && p.object.name === subject.metadata.name);
  return { errors, own, objects: result.clusters.flatMap((c) => c.objects) };
}
type Verdict = ReturnType<typeof judge>;
const listed = (problems: readonly Problem[]): string[] => problems.map((p) => `${p.field ?? '(no field)'}: ${p.message}`);

const dryRunApply = (api: ApiServer, input: string): Promise<KubectlResult> =>
  api.kubectl(['apply', '--server-side', '--dry-run=server', '--validate=strict', '--field-manager=valkey-krm', '-f', '-'], { input });
const dryRunCreate = (api: ApiServer, input: string): Promise<KubectlResult> =>
  api.kubectl(['create', '--dry-run=server', '--validate=strict', '-f', '-'], { input });

/** Accepted: exit 0, one "(server dry run)" line per document, and no warning. */
function expectAccepted(r: KubectlResult | undefined, count: number): void {
  if (!r) throw new Error('no kubectl result: beforeAll failed');
  expect(r.code, show(r)).toBe(0);
  expect(warningsIn(r.stderr), show(r)).toEqual([]);
  expect(r.stdout.match(/\(server dry run\)$/gm)?.length ?? 0, show(r)).toBe(count);
}

describe('rendered objects on a real kube-apiserver', () => {
  let api: ApiServer;
  const sources = new Map<string, RenderedSource>();

  beforeAll(async () => {
    await ensureTools();
  }, BUILD_TIMEOUT_MS);

  beforeAll(async () => {
    // Render while the server starts; keep the server (afterAll stops it) even if rendering fails.
    const rendering = Promise.all([inPool(examplePackages(), 2, renderPackage), inPool(GOLDEN_WITH_OUTPUT, 2, renderGoldenCase)]);
    rendering.catch(() => undefined);
    const started = await startWithCrds();
    api = started.api;
    const [examples, golden] = await rendering;
    expect(started.crdApply.code, show(started.crdApply)).toBe(0);
    // The rendered client Certificates (spec.tls.clientCertificates) and the examples' own are checked too.
    await installCertificateCrd(api);
    const served = await servedGroups(api);
    examplePackages().forEach((name, i) => {
      const printed = examples[i] as SourceDoc[];
      const isServed = (d: SourceDoc): boolean => served.has(groupOf(d.object));
      sources.set(`kptfile-examples/${name}`, {
        docs: printed.filter(isServed),
        foreign: printed.filter((d) => !isServed(d)).map((d) => d.object),
      });
    });
    GOLDEN_WITH_OUTPUT.forEach((name, i) => {
      sources.set(`golden ${name}`, { docs: (golden[i] as SourceDoc[]).filter((d) => isGenerated(d.object)), foreign: [] });
    });
    const objects = [...sources.values()].flatMap((s) => s.docs.map((d) => d.object));
    await createNamespaces(api, [...namespacesOf(objects), AGREEMENT_NAMESPACE], { restricted: true });
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
  });

  const source = (title: string): RenderedSource => {
    const s = sources.get(title);
    if (!s) throw new Error(`${title} was not rendered: beforeAll failed`);
    return s;
  };

  it('has example packages and golden cases to check', () => {
    expect(EXAMPLE_TITLES.length).toBeGreaterThanOrEqual(3);
    expect(GOLDEN_WITH_OUTPUT.length).toBeGreaterThanOrEqual(8);
  });

  describe('server-side dry run of everything render-valkey prints, with no warnings', () => {
    const results = new Map<string, KubectlResult>();
    beforeAll(async () => {
      await inPool(SOURCE_TITLES, KUBECTL_AT_ONCE, async (title) => {
        results.set(title, await dryRunApply(api, joinDocs(source(title).docs)));
      });
    }, 120_000);

    it.each(EXAMPLE_TITLES)('%s', (title) => {
      const { docs, foreign } = source(title);
      // A package with ValkeyClusters renders objects for them (a menu-only package renders none).
      const hasClusters = docs.some((d) => d.object.kind === 'ValkeyCluster');
      expect(
        docs.some((d) => isGenerated(d.object)),
        'rendered objects',
      ).toBe(hasClusters);
      // Only other people's objects may be left out, never one the function generated.
      expect(foreign.filter(isGenerated).map(describeObject)).toEqual([]);
      expectAccepted(results.get(title), docs.length);
    });

    it.each(GOLDEN_WITH_OUTPUT)('golden %s', (name) => {
      const { docs } = source(`golden ${name}`);
      // The bytes applied are the golden case's generated objects.
      expect(docs.map((d) => withoutKptAnnotations(d.object))).toEqual(goldenGenerated(name));
      expectAccepted(results.get(`golden ${name}`), docs.length);
    });
  });

  describe('Pod Security restricted', () => {
    let control: KubectlResult | undefined;
    let controlWorkload: KubectlResult | undefined;
    let pods: KubeObject[] = [];
    let admitted: KubectlResult | undefined;
    beforeAll(async () => {
      const [namespace] = namespacesOf([...sources.values()].flatMap((s) => s.docs.map((d) => d.object)));
      const privileged = { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] };
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'privileged', namespace }, spec: privileged };
      const labels = { app: 'privileged' };
      const workload = {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'privileged', namespace },
        spec: { serviceName: 'privileged', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: privileged } },
      };
      pods = SOURCE_TITLES.flatMap((title) => podsFromTemplates(source(title).docs.map((d) => d.object)));
      [control, controlWorkload, admitted] = await Promise.all([
        dryRunCreate(api, toJsonStream([pod])),
        dryRunApply(api, toJsonStream([workload])),
        dryRunCreate(api, toJsonStream(pods)),
      ]);
    }, 120_000);

    it('is enforced in the namespaces used: a privileged pod is rejected, a privileged StatefulSet draws a warning', () => {
      expect(control?.code).not.toBe(0);
      expect(control?.stderr).toMatch(/violates PodSecurity "restricted:latest"/);
      // So "no warnings" above means something: the same check warns about workloads.
      expect(controlWorkload?.code).toBe(0);
      expect(warningsIn(controlWorkload?.stderr ?? '').join('\n')).toMatch(/would violate PodSecurity "restricted:latest"/);
    });

    it('admits the pod template of every rendered StatefulSet as a Pod (examples and golden cases)', () => {
      const statefulSets = [...sources.values()].flatMap((s) => s.docs.filter((d) => d.object.kind === 'StatefulSet'));
      expect(pods.length).toBe(statefulSets.length);
      expect(pods.length).toBeGreaterThan(GOLDEN_WITH_OUTPUT.length);
      expectAccepted(admitted, pods.length);
    });
  });

  describe('agreement table: render-valkey and the CRDs judge alike', () => {
    const server = new Map<AgreementRow, KubectlResult>();
    // The function's verdicts, each judged once (for accepted rows beforeAll needs them first).
    const judged = new Map<AgreementRow, Verdict>();
    const verdictOf = (row: AgreementRow): Verdict => {
      let v = judged.get(row);
      if (!v) {
        v = judge(row);
        judged.set(row, v);
      }
      return v;
    };
    const accepted = ROWS.filter((r) => r.verdict === 'accept');
    let renderedObjects: unknown[] = [];
    let rendered: KubectlResult | undefined;

    beforeAll(async () => {
      // What the function renders for the rows it accepts: one dry run for all of them.
      renderedObjects = accepted.flatMap((row) => verdictOf(row).objects);
      const [, dry] = await Promise.all([
        inPool(ROWS, KUBECTL_AT_ONCE, async (row) => {
          server.set(
            row,
            await api.kubectl(['create', '--dry-run=server', '--validate=strict', '-o', 'name', '-f', '-'], { input: row.text }),
          );
        }),
        dryRunApply(api, toJsonStream(renderedObjects)),
      ]);
      rendered = dry;
      // One kubectl per row, KUBECTL_AT_ONCE at a time: some 160 rows on a loaded two-core machine.
    }, 300_000);

    it('covers every kind, both verdicts', () => {
      for (const kind of ['ValkeyImage', 'ValkeyConfig', 'ValkeyRole', 'ValkeyCluster']) {
        for (const verdict of ['reject', 'accept'])
          expect(
            ROWS.some((r) => r.verdict === verdict && r.text.includes(kind)),
            `${verdict} ${kind}`,
          ).toBe(true);
      }
    });

    it.each(ROWS.filter((r) => r.verdict === 'reject').map((r) => [r.name, r] as const))('both reject: %s', (_name, row) => {
      const fn = verdictOf(row);
      const r = server.get(row) as KubectlResult;
      const verdicts = { function: fn.own.length > 0 ? 'reject' : 'accept', apiserver: r.code !== 0 ? 'reject' : 'accept' };
      expect(verdicts, `function:\n${listed(fn.errors).join('\n')}\nkubectl: ${show(r)}`).toEqual({
        function: 'reject',
        apiserver: 'reject',
      });
      // Both name the field, so a person can find it.
      const field = row.field as string;
      expect(
        listed(fn.own).filter((line) => line.startsWith(field) || line.includes(` ${field}`)),
        `the function names ${field}`,
      ).not.toEqual([]);
      expect(r.stderr, `kube-apiserver names ${field}`).toContain(field);
    });

    it.each(accepted.map((r) => [r.name, r] as const))('both accept: %s', (_name, row) => {
      const fn = verdictOf(row);
      const r = server.get(row) as KubectlResult;
      const verdicts = { function: fn.errors.length === 0 ? 'accept' : 'reject', apiserver: r.code === 0 ? 'accept' : 'reject' };
      expect(verdicts, `function:\n${listed(fn.errors).join('\n')}\nkubectl: ${show(r)}`).toEqual({
        function: 'accept',
        apiserver: 'accept',
      });
      expect(warningsIn(r.stderr)).toEqual([]);
      expect(fn.objects.length, 'what the function accepts, it renders').toBeGreaterThan(0);
    });

    it('what the function renders for the accepted rows, the server accepts', () => {
      expect(renderedObjects.length).toBeGreaterThan(accepted.length);
      expectAccepted(rendered, renderedObjects.length);
    });
  });
});
