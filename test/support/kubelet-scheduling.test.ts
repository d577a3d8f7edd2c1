// The stand-in kubelet's binder applies kube-scheduler's hard filters to what valkey-krm renders
// (issue 23): a shard's pods with replicas never share a node by default, a pod with no node left
// stays Unschedulable (as kube-scheduler leaves it), and nodeSpread: bestEffort lets them share.
import { describe, expect, it } from 'vitest';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { renderAll } from '../../src/render/render-all.js';
import { nodeLabels } from './kubelet/nodes.js';
import { chooseNode, type Placed, type SchedPod } from './kubelet/scheduling.js';
import { cluster, config, image } from './objects.js';

const render = (nodeSpread?: 'required' | 'bestEffort', placement?: Record<string, unknown>) => {
  const rc = validateRenderConfig({
    apiVersion: 'valkey.gomomento.com/v1alpha1',
    kind: 'ValkeyRenderConfig',
    metadata: { name: 'render' },
    spec: {
      ...(nodeSpread ? { nodeSpread } : {}),
      systemUsers: { replication: { passwordHash: 'a'.repeat(64) }, controller: { passwordHash: 'b'.repeat(64) } },
    },
  }).config!;
  const out = renderAll(
    [
      image('img'),
      config('std', { imageRef: 'img', resources: { cpu: '1', memory: '2Gi' } }),
      cluster('c', { configRef: 'std', shards: 2, replicasPerShard: 2, ...(placement ? { placement } : {}) }, 'shop'),
    ],
    rc,
  );
  expect(out.problems.filter((p) => p.severity === 'error')).toEqual([]);
  // One pod per ordinal, as the StatefulSet controller makes them from the rendered template.
  return out.clusters[0]!.objects.filter((o) => o.kind === 'StatefulSet')
    .map(
      (s) =>
        (s as unknown as { spec: { template: { metadata: { labels: Record<string, string> }; spec: SchedPod['spec'] } } }).spec.template,
    )
    .map((t): SchedPod => ({ namespace: 'shop', labels: t.metadata.labels, spec: t.spec }));
};

/** Schedules three pods of each shard in turn, as pods come: where each went, or why not. */
function scheduleAll(templates: readonly SchedPod[], nodeNames: readonly string[]): string[][] {
  const nodes = nodeLabels(nodeNames);
  const placed: Placed[] = [];
  return templates.map((pod) =>
    [0, 1, 2].map(() => {
      const d = chooseNode(pod, nodes, placed);
      if (d.kind === 'unschedulable') return d.message;
      placed.push({ node: d.node, pod });
      return d.node;
    }),
  );
}

describe('binding by the rendered rules', () => {
  it('default (required): with three nodes each shard has its three pods on three nodes', () => {
    const where = scheduleAll(render(), ['n1', 'n2', 'n3']);
    for (const shard of where) expect(new Set(shard).size).toBe(3);
  });

  it('default (required): with two nodes a shard’s third pod is Unschedulable, as kube-scheduler would leave it', () => {
    const where = scheduleAll(render(), ['n1', 'n2']);
    for (const shard of where) {
      expect(new Set(shard.slice(0, 2))).toEqual(new Set(['n1', 'n2']));
      expect(shard[2]).toBe("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.");
    }
  });

  it('nodeSpread: bestEffort: with one node every pod is bound there', () => {
    const where = scheduleAll(render('bestEffort'), ['n1']);
    expect(where.flat()).toEqual(Array(6).fill('n1'));
  });

  it('zones: required node affinity and a DoNotSchedule zone spread hold next to the anti-affinity', () => {
    // Node zones come in turn: n1 zone-a, n2 zone-b, n3 zone-c, n4 zone-a.
    const where = scheduleAll(render(undefined, { zones: ['zone-a', 'zone-b'], zoneSpread: 'required' }), ['n1', 'n2', 'n3', 'n4']);
    // n3 is in no allowed zone; the second pod may not make zone-a two ahead of zone-b (maxSkew 1).
    expect(where).toEqual([
      ['n1', 'n2', 'n4'],
      ['n1', 'n2', 'n4'],
    ]);
  });
});
