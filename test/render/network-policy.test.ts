// The NetworkPolicy rendered per cluster (issue 37), judged against the labels of the pods the
// same render makes, the controller's pods as deploy/controller ships them, and other clusters'
// pods: who it selects, and who it admits to which port. The judge below follows the NetworkPolicy
// API's rules (networking.k8s.io/v1): a policy selects pods of its own namespace by podSelector; an
// ingress rule admits a peer if any `from` entry matches it and the port is listed; a podSelector
// alone means pods of the policy's namespace, a namespaceSelector alone every pod of the selected
// namespaces, both together the selected pods of the selected namespaces. Whether a CNI enforces it
// is not tested here (docs/operations.md says which do).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { BUS_PORT, CLIENT_PORT } from '../../src/api/index.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { renderAll } from '../../src/render/render-all.js';
import { cluster, config, image } from '../support/objects.js';
import { repoPath } from '../support/paths.js';

type Labels = Record<string, string>;
interface Selector {
  matchLabels?: Labels;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
}
interface Policy {
  metadata: { name: string; namespace: string };
  spec: { podSelector: Selector; policyTypes: string[]; ingress: { from?: Peer[]; ports?: { port: number; protocol: string }[] }[] };
}
/** A pod as the policy sees it: its labels, its namespace and that namespace's labels. */
interface PodAt {
  labels: Labels;
  namespace: string;
  namespaceLabels: Labels;
}

function matches(s: Selector, labels: Labels): boolean {
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of s.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const ok =
      e.operator === 'In'
        ? has && (e.values ?? []).includes(value as string)
        : e.operator === 'NotIn'
          ? !has || !(e.values ?? []).includes(value as string)
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : (() => {
                  throw new Error(`unknown operator ${e.operator}`);
                })();
    if (!ok) return false;
  }
  return true;
}

const selects = (p: Policy, pod: PodAt): boolean => pod.namespace === p.metadata.namespace && matches(p.spec.podSelector, pod.labels);

function peerMatches(p: Policy, peer: Peer, from: PodAt): boolean {
  const nsOk = peer.namespaceSelector ? matches(peer.namespaceSelector, from.namespaceLabels) : from.namespace === p.metadata.namespace;
  const podOk = peer.podSelector ? matches(peer.podSelector, from.labels) : true;
  return nsOk && podOk;
}

/** Does the policy let `from` reach a selected pod on TCP `port`? */
function admits(p: Policy, from: PodAt, port: number): boolean {
  return p.spec.ingress.some(
    (rule) =>
      (rule.ports === undefined || rule.ports.some((r) => r.port === port && r.protocol === 'TCP')) &&
      (rule.from === undefined || rule.from.some((peer) => peerMatches(p, peer, from))),
  );
}

const nsLabels = (ns: string, extra: Labels = {}): Labels => ({ 'kubernetes.io/metadata.name': ns, ...extra });

const renderConfig = (networkPolicy?: Record<string, unknown>) =>
  validateRenderConfig({
    apiVersion: 'valkey.gomomento.com/v1alpha1',
    kind: 'ValkeyRenderConfig',
    metadata: { name: 'render' },
    spec: {
      ...(networkPolicy ? { networkPolicy } : {}),
      systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } },
    },
  });

const menu = [image('img'), config('std', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' } })];

function render(networkPolicy?: Record<string, unknown>) {
  const rc = renderConfig(networkPolicy);
  if (!rc.config) throw new Error(JSON.stringify(rc.problems));
  const out = renderAll(
    [
      ...menu,
      cluster('cache', { configRef: 'std', shards: 3, replicasPerShard: 2 }, 'team-a'),
      cluster('other', { configRef: 'std', shards: 2, replicasPerShard: 1 }, 'team-a'),
      cluster('cache', { configRef: 'std', shards: 1, replicasPerShard: 1 }, 'team-b'),
    ],
    rc.config,
  );
  expect(out.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return out.clusters;
}

interface Template {
  metadata: { labels: Labels };
  spec: { containers: { ports: { name: string; containerPort: number }[]; [probe: string]: unknown }[] };
}

/**
 * Every pod a cluster's StatefulSets make: the template's labels plus the two the StatefulSet
 * controller adds (pod name and revision), for every ordinal.
 */
function podsOf(
  objects: readonly { kind: string; metadata: { name: string; namespace?: string }; spec?: unknown }[],
): (PodAt & { name: string })[] {
  return objects
    .filter((o) => o.kind === 'StatefulSet')
    .flatMap((sts) => {
      const spec = sts.spec as { replicas: number; template: Template };
      const ns = sts.metadata.namespace as string;
      return Array.from({ length: spec.replicas }, (_, ordinal) => ({
        name: `${sts.metadata.name}-${ordinal}`,
        namespace: ns,
        namespaceLabels: nsLabels(ns),
        labels: {
          ...spec.template.metadata.labels,
          'statefulset.kubernetes.io/pod-name': `${sts.metadata.name}-${ordinal}`,
          'controller-revision-hash': `${sts.metadata.name}-abc123`,
        },
      }));
    });
}

/** The controller's pods as deploy/controller ships them: the Deployment's template labels, in its namespace. */
function shippedController(): PodAt {
  const docs = parseAllDocuments(readFileSync(repoPath('deploy/controller/deployment.yaml'), 'utf8')).map((d) => d.toJS());
  const deployment = docs.find((d) => d?.kind === 'Deployment') as {
    metadata: { namespace: string };
    spec: { template: { metadata: { labels: Labels } } };
  };
  return {
    labels: deployment.spec.template.metadata.labels,
    namespace: deployment.metadata.namespace,
    namespaceLabels: nsLabels(deployment.metadata.namespace, { 'app.kubernetes.io/part-of': 'valkey-krm' }),
  };
}

const policyOf = (objects: readonly { kind: string }[]): Policy => {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  expect(policies).toHaveLength(1);
  return policies[0] as unknown as Policy;
};

describe('the NetworkPolicy rendered per cluster', () => {
  const clusters = render();
  const [cacheA, otherA, cacheB] = [
    clusters.find((c) => c.namespace === 'team-a' && c.name === 'cache')!,
    clusters.find((c) => c.namespace === 'team-a' && c.name === 'other')!,
    clusters.find((c) => c.namespace === 'team-b' && c.name === 'cache')!,
  ];
  const policy = policyOf(cacheA.objects);
  const own = podsOf(cacheA.objects);
  const otherPods = [...podsOf(otherA.objects), ...podsOf(cacheB.objects)];

  it('selects every pod of its cluster and no pod of another cluster, same name in another namespace included', () => {
    expect(own).toHaveLength(9);
    for (const pod of own) expect(selects(policy, pod), pod.name).toBe(true);
    for (const pod of otherPods) expect(selects(policy, pod), `${pod.namespace}/${pod.name}`).toBe(false);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
  });

  it("admits the cluster's own pods to both ports: the bus, and replication and slot migration on the client port", () => {
    for (const from of own) {
      expect(admits(policy, from, BUS_PORT), from.name).toBe(true);
      expect(admits(policy, from, CLIENT_PORT), from.name).toBe(true);
    }
  });

  it("keeps every other cluster's pods off the bus port, in its namespace or another", () => {
    for (const from of otherPods) expect(admits(policy, from, BUS_PORT), `${from.namespace}/${from.name}`).toBe(false);
    // The other cluster's own policy keeps this one's pods off its bus in turn.
    const otherPolicy = policyOf(otherA.objects);
    for (const from of own) expect(admits(otherPolicy, from, BUS_PORT), from.name).toBe(false);
  });

  it("admits the controller's pods as deploy/controller ships them to both ports, and a look-alike in another namespace to neither", () => {
    const controller = shippedController();
    expect(admits(policy, controller, CLIENT_PORT)).toBe(true);
    expect(admits(policy, controller, BUS_PORT)).toBe(true);
    const impostor = { ...controller, namespace: 'team-a', namespaceLabels: nsLabels('team-a') };
    expect(admits(policy, impostor, BUS_PORT)).toBe(false);
    const elsewhere = { ...controller, namespace: 'team-c', namespaceLabels: nsLabels('team-c') };
    expect(admits(policy, elsewhere, CLIENT_PORT)).toBe(false);
  });

  it("admits any pod of the cluster's namespace to the client port only; none of another namespace by default", () => {
    const app = { labels: { app: 'web' }, namespace: 'team-a', namespaceLabels: nsLabels('team-a') };
    expect(admits(policy, app, CLIENT_PORT)).toBe(true);
    expect(admits(policy, app, BUS_PORT)).toBe(false);
    const foreignApp = { labels: { app: 'web' }, namespace: 'team-b', namespaceLabels: nsLabels('team-b') };
    expect(admits(policy, foreignApp, CLIENT_PORT)).toBe(false);
  });

  it('lists exactly the ports the pods listen on; every probe is exec, so the kubelet needs no rule', () => {
    const sts = cacheA.objects.find((o) => o.kind === 'StatefulSet') as unknown as { spec: { template: Template } };
    const container = sts.spec.template.spec.containers[0]!;
    const ports = new Set(policy.spec.ingress.flatMap((r) => (r.ports ?? []).map((p) => p.port)));
    expect([...ports].sort()).toEqual(container.ports.map((p) => p.containerPort).sort());
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      expect(Object.keys(container[probe] as object), probe).toContain('exec');
      expect(container[probe], probe).not.toHaveProperty('httpGet');
      expect(container[probe], probe).not.toHaveProperty('tcpSocket');
      expect(container[probe], probe).not.toHaveProperty('grpc');
    }
  });

  it('admits clients of the namespaces clientNamespaces selects to the client port, never to the bus', () => {
    const [withClients] = render({
      clientNamespaces: {
        matchLabels: { 'example.com/cache-clients': 'yes' },
        matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }],
      },
      controller: { namespace: 'platform', podLabels: { 'example.com/role': 'valkey-controller' } },
    }).filter((c) => c.namespace === 'team-a' && c.name === 'cache');
    const p = policyOf(withClients!.objects);
    const web = (ns: string, extra: Labels) => ({ labels: { app: 'web' }, namespace: ns, namespaceLabels: nsLabels(ns, extra) });
    expect(admits(p, web('shop', { 'example.com/cache-clients': 'yes', env: 'prod' }), CLIENT_PORT)).toBe(true);
    expect(admits(p, web('shop', { 'example.com/cache-clients': 'yes', env: 'prod' }), BUS_PORT)).toBe(false);
    expect(admits(p, web('shop-dev', { 'example.com/cache-clients': 'yes', env: 'dev' }), CLIENT_PORT)).toBe(false);
    expect(admits(p, web('blog', {}), CLIENT_PORT)).toBe(false);
    // The cluster's own namespace keeps its access.
    expect(admits(p, web('team-a', {}), CLIENT_PORT)).toBe(true);
    // The controller as configured, not as shipped.
    const ctl = { labels: { 'example.com/role': 'valkey-controller' }, namespace: 'platform', namespaceLabels: nsLabels('platform') };
    expect(admits(p, ctl, BUS_PORT)).toBe(true);
    expect(admits(p, shippedController(), BUS_PORT)).toBe(false);
  });

  it('is not rendered when the render config switches it off', () => {
    for (const c of render({ enabled: false })) expect(c.objects.filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
  });

  it('refuses a selector the API server would refuse, naming the field', () => {
    const bad = renderConfig({ clientNamespaces: { matchExpressions: [{ key: 'env', operator: 'In' }] } });
    expect(bad.config).toBeUndefined();
    expect(bad.problems.map((p) => `${p.field}: ${p.message}`).join('\n')).toMatch(
      /networkPolicy\.clientNamespaces\.matchExpressions\[0\]: .*In and NotIn need values/,
    );
    const badNs = renderConfig({ controller: { namespace: 'Not_A_Namespace' } });
    expect(badNs.problems.map((p) => `${p.field}: ${p.message}`).join('\n')).toMatch(
      /networkPolicy\.controller\.namespace.*namespace name/,
    );
  });
});
