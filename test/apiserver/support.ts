// Shared plumbing for the contract tests against a real kube-apiserver (issue #4): start the
// harness with the generated CRDs installed, find the example and golden resources, run
// render-valkey, and read kubectl's verdicts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ApiextensionsV1Api, KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { GROUP } from '../../src/api/group.js';
import { parseDocuments } from '../../src/krm/read-input.js';
import { waitFor } from '../harness/process.js';
import { startApiServer, type ApiServer, type KubectlResult } from '../harness/apiserver.js';
import { REPO_ROOT, isGenerated, renderPlain, type KubeObject } from '../integration/support.js';

export { REPO_ROOT, isGenerated, type KubeObject };
export const CRD_DIR = join(REPO_ROOT, 'crds');
export const EXAMPLES_DIR = join(REPO_ROOT, 'kptfile-examples');
export const GOLDEN_DIR = join(REPO_ROOT, 'test/golden/cases');

/** One document as written in a file: its exact text (what kubectl reads) and its value (what the function reads). */
export interface SourceDoc {
  text: string;
  object: KubeObject;
}

export const VALKEY_KINDS = ['ValkeyImage', 'ValkeyConfig', 'ValkeyRole', 'ValkeyCluster'] as const;
export const isValkeyResource = (o: KubeObject): boolean => groupOf(o) === GROUP && (VALKEY_KINDS as readonly string[]).includes(o.kind);
export const isLocalConfig = (o: KubeObject): boolean => o.metadata?.annotations?.['config.kubernetes.io/local-config'] === 'true';
export const describeObject = (o: KubeObject): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** kubectl's warnings: one `Warning: ...` line on stderr each. */
export const warningsIn = (stderr: string): string[] => stderr.split('\n').filter((l) => /^Warning:/.test(l));

/** Compact context for a failed expectation. */
export const show = (r: KubectlResult): string => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/** A JSON stream (objects one after another, as kubectl reads them): unlike YAML, it means the same to kubectl and to us. */
export const toJsonStream = (objects: readonly unknown[]): string => objects.map((o) => JSON.stringify(o)).join('\n');

export function parseSourceDocs(text: string, where: string): SourceDoc[] {
  const { docs, errors } = parseDocuments(text, where);
  if (errors.length) throw new Error(errors.map((e) => e.message).join('\n'));
  return docs.filter((d) => d.value !== null && typeof d.value === 'object').map((d) => ({ text: d.text, object: d.value as KubeObject }));
}

/** Joins documents into one stream for `kubectl -f -`, keeping each one's exact text. */
export const joinDocs = (docs: readonly SourceDoc[]): string => docs.map((d) => d.text).join('---\n');

/** The example packages: every directory under kptfile-examples/ that has a Kptfile (more get added over time). */
export function examplePackages(): string[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((name) => existsSync(join(EXAMPLES_DIR, name, 'Kptfile')))
    .sort();
}

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (entry.startsWith('.')) continue;
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...yamlFiles(full));
    else if (/\.ya?ml$/.test(entry)) out.push(full);
  }
  return out;
}

/** Every document of every YAML file of a package, as written. */
export function packageDocs(name: string): SourceDoc[] {
  const dir = join(EXAMPLES_DIR, name);
  return yamlFiles(dir).flatMap((file) => parseSourceDocs(readFileSync(file, 'utf8'), relative(REPO_ROOT, file)));
}

export const goldenCases = (): string[] =>
  readdirSync(GOLDEN_DIR)
    .filter((n) => statSync(join(GOLDEN_DIR, n)).isDirectory())
    .sort();

export const goldenInputDocs = (name: string): SourceDoc[] =>
  parseSourceDocs(readFileSync(join(GOLDEN_DIR, name, 'resources.yaml'), 'utf8'), `test/golden/cases/${name}/resources.yaml`);

const KPT_ANNOTATION = /^(internal\.)?config\.kubernetes\.io\//;

/** Drops the annotations kpt and kustomize strip before anything reaches a cluster. */
export function withoutKptAnnotations(o: KubeObject): KubeObject {
  const annotations = Object.fromEntries(Object.entries(o.metadata.annotations ?? {}).filter(([k]) => !KPT_ANNOTATION.test(k)));
  const metadata = { ...o.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete (metadata as { annotations?: unknown }).annotations;
  return { ...o, metadata };
}

/** The objects render-valkey generated in a golden case's expected ResourceList, as kpt would apply them. */
export function goldenGenerated(name: string): KubeObject[] {
  const list = parse(readFileSync(join(GOLDEN_DIR, name, '_expected.yaml'), 'utf8')) as { items?: KubeObject[] };
  return (list.items ?? []).filter(isGenerated).map(withoutKptAnnotations);
}

async function renderFiles(args: string[], what: string): Promise<SourceDoc[]> {
  const r = await renderPlain(args);
  if (r.code !== 0) throw new Error(`render-valkey ${what} exited ${r.code}:\n${r.stderr}`);
  return parseSourceDocs(r.stdout, `render-valkey ${what}`);
}

/** `render-valkey kptfile-examples/<name>` in plain-files mode: every document it prints, byte for byte. */
export const renderPackage = (name: string): Promise<SourceDoc[]> => renderFiles([join(EXAMPLES_DIR, name)], `kptfile-examples/${name}`);

/** A golden case's inputs through plain-files mode (the bytes Argo CD would apply), with its function config. */
export function renderGoldenCase(name: string): Promise<SourceDoc[]> {
  const dir = join(GOLDEN_DIR, name);
  const fnconfig = join(dir, '_fnconfig.yaml');
  const args = existsSync(fnconfig) ? ['--config', fnconfig] : [];
  return renderFiles([...args, join(dir, 'resources.yaml')], `test/golden/cases/${name}`);
}

/** A Pod per StatefulSet, made from its template, as the StatefulSet controller would make pod 0. */
export function podsFromTemplates(objects: readonly KubeObject[]): KubeObject[] {
  return objects
    .filter((o) => o.kind === 'StatefulSet')
    .map((sts) => {
      const template = (sts.spec as { template: { metadata?: KubeObject['metadata']; spec: unknown } }).template;
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { ...template.metadata, name: `${sts.metadata.name}-0`, namespace: sts.metadata.namespace as string },
        spec: template.spec,
      };
    });
}

export const namespacesOf = (objects: readonly KubeObject[]): string[] =>
  [...new Set(objects.map((o) => o.metadata.namespace).filter((n): n is string => typeof n === 'string' && n !== ''))].sort();

/**
 * Namespaces as a restricted-by-default cluster has them: Pod Security `restricted` enforced and
 * warned about, and a `default` ServiceAccount (no controller-manager runs to create it).
 */
export async function ensureNamespaces(api: ApiServer, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const docs = names.flatMap((name) => [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' } },
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: name } },
  ]);
  const r = await api.kubectl(['apply', '--server-side', '--field-manager=contract-test', '-f', '-'], { input: toJsonStream(docs) });
  if (r.code !== 0) throw new Error(`creating namespaces ${names.join(', ')} failed:\n${show(r)}`);
}

/** API groups this server serves (core is ""): objects of other groups (cert-manager, ...) cannot be checked here. */
export async function servedGroups(api: ApiServer): Promise<Set<string>> {
  const res = await api.request('GET', '/apis');
  const body = JSON.parse(res.body) as { groups: { name: string }[] };
  return new Set(['', ...body.groups.map((g) => g.name)]);
}

/** The API group of an object ("" for core, and for a document without an apiVersion). */
export function groupOf(o: KubeObject): string {
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  return apiVersion.includes('/') ? (apiVersion.split('/')[0] as string) : '';
}

/**
 * Starts the harness and installs crds/ with `kubectl apply --server-side`, then waits (through
 * @kubernetes/client-node) until every valkey-krm CRD is Established.
 */
export async function startWithCrds(): Promise<{ api: ApiServer; crdApply: KubectlResult }> {
  const api = await startApiServer();
  try {
    const crdApply = await api.kubectl(['apply', '--server-side', '--field-manager=contract-test', '-f', CRD_DIR]);
    if (crdApply.code !== 0) return { api, crdApply };
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfigPath);
    const ext = kc.makeApiClient(ApiextensionsV1Api);
    await waitFor(
      'valkey-krm CRDs Established',
      async () => {
        const list = await ext.listCustomResourceDefinition({ labelSelector: 'app.kubernetes.io/part-of=valkey-krm' });
        const established = list.items.filter((crd) =>
          crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'),
        );
        return established.length === VALKEY_KINDS.length;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    return { api, crdApply };
  } catch (e) {
    await api.stop();
    throw e;
  }
}

/** Runs `fn` over `items`, at most `limit` at a time; results in input order. */
export async function inPool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
