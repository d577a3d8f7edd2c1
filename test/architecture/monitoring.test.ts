// deploy/monitoring (issue 35): every metric an alert rule or a dashboard query names is one the
// controller exports, with the labels it selects on. promtool runs the rules themselves
// (test/integration/monitoring.test.ts).
import { describe, expect, it } from 'vitest';
import { controllerMetrics } from '../../src/controller/runtime/metrics.js';
import { monitoringQueries } from '../support/promtool.js';

const metrics = controllerMetrics();
const labelsOf = (name: string): string[] | undefined => {
  const m = metrics.registry.getSingleMetric(name) as { labelNames?: string[] } | undefined;
  return m ? [...(m.labelNames ?? [])] : undefined;
};

describe('deploy/monitoring', () => {
  const all = monitoringQueries();

  it('has alerts for every state the docs tell a team to watch', () => {
    const alerts = all.filter((e) => e.where.startsWith('alert ')).map((e) => e.where.slice(6));
    for (const name of [
      'ValkeyClusterFailed',
      'ValkeyClusterInvalid',
      'ValkeyRollHeld',
      'ValkeyCertificateExpiringSoon',
      'ValkeyControllerNoLeader',
      'ValkeyControllerReconcileErrors',
      'ValkeyReplicationBroken',
      'ValkeyMemoryNearMaxmemory',
      'ValkeyClientsNearMaxclients',
      'ValkeyClusterStateFail',
      'ValkeyAutoscalerAtMaximum',
      'ValkeyDataLost',
      'ValkeyMajorityOfPrimariesLost',
      'ValkeyNodeLost',
    ])
      expect(alerts).toContain(name);
  });

  it('names only metrics the controller exports, and selects only on their labels', () => {
    const wrong: string[] = [];
    for (const { where, expr } of all) {
      const names = [...expr.matchAll(/\b(valkey_\w+?)(_bucket|_sum|_count)?\b(\{[^}]*\})?/g)];
      expect(names.length, `${where}: ${expr}`).toBeGreaterThan(0);
      const known = new Set<string>(['le']);
      for (const [, name, suffix, selector] of names) {
        const labels = labelsOf(name as string);
        if (!labels) {
          wrong.push(`${where}: ${name} is not exported`);
          continue;
        }
        if (
          suffix &&
          !(metrics.registry.getSingleMetric(name as string) as { type?: string } | undefined)?.constructor.name.match(/Histogram/)
        )
          wrong.push(`${where}: ${name}${suffix} is not a histogram's series`);
        for (const l of labels) known.add(l);
        for (const [, label] of (selector ?? '').matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g))
          if (!labels.includes(label as string)) wrong.push(`${where}: ${name} has no label ${label}`);
      }
      for (const [, list] of expr.matchAll(/\b(?:by|on|group_left|group_right)\s*\(([^)]*)\)/g))
        for (const label of (list as string).split(',').map((s) => s.trim()))
          if (!known.has(label)) wrong.push(`${where}: no metric of it has the label ${label}`);
    }
    expect(wrong).toEqual([]);
  });
});
