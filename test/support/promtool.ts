// deploy/monitoring's alert rules under promtool (built from its Go module: scripts/build-promtool.sh):
// `promtool check rules`, then `promtool test rules` with the given series held for three hours,
// expecting at one time exactly the alerts given (every other alert of the rules: none).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { run, type Ran } from './exec.js';
import { tempDirs } from './files.js';
import { repoPath } from './paths.js';

interface Rule {
  alert: string;
  expr: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
type Groups = Array<{ name: string; rules: Rule[] }>;

/** The PrometheusRule's groups, as shipped. */
export function shippedRuleGroups(): Groups {
  return (parse(readFileSync(repoPath('deploy/monitoring/prometheus-rule.yaml'), 'utf8')) as { spec: { groups: Groups } }).spec.groups;
}

export interface Series {
  series: string;
  value: number;
}

/** The `valkey_*` samples of a /metrics text (the controller's and Valkey's per-pod series): name{labels} value. */
export function seriesOf(metricsText: string): Series[] {
  return metricsText
    .split('\n')
    .filter((line) => line.startsWith('valkey_'))
    .map((line) => {
      const space = line.lastIndexOf(' ');
      return { series: line.slice(0, space), value: Number(line.slice(space + 1)) };
    });
}

export interface PromtoolRules {
  test(series: readonly Series[], evalTime: string, firing: Array<[alert: string, labels: Record<string, string>]>): Promise<Ran>;
  cleanup(): void;
}

export async function promtoolRules(): Promise<PromtoolRules> {
  const env = execFileSync('bash', [repoPath('scripts/build-promtool.sh'), '--print-env'], { encoding: 'utf8' });
  const promtool = /^PROMTOOL=(.*)$/m.exec(env)?.[1] ?? '';
  if (!promtool) throw new Error(`scripts/build-promtool.sh printed no PROMTOOL=: ${env}`);
  const tmp = tempDirs('promtool');
  const groups = shippedRuleGroups();
  const rules = groups.flatMap((g) => g.rules);
  const expected = (rule: Rule, labels: Record<string, string>) => {
    const fill = (s: string) => s.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, l: string) => labels[l] ?? '');
    return {
      exp_labels: { ...labels, ...rule.labels },
      exp_annotations: Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, fill(v)])),
    };
  };
  return {
    async test(series, evalTime, firing) {
      const dir = tmp.make();
      const file = join(dir, 'rules.yaml');
      writeFileSync(file, stringify({ groups }));
      const byAlert = new Map<string, unknown[]>(rules.map((r) => [r.alert, []]));
      for (const [alert, labels] of firing) {
        const rule = rules.find((r) => r.alert === alert);
        if (!rule) throw new Error(`no alert ${alert} in deploy/monitoring/prometheus-rule.yaml`);
        byAlert.get(alert)?.push(expected(rule, labels));
      }
      const test = {
        rule_files: [file],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: series.map((s) => ({ series: s.series, values: `${s.value}+0x180` })),
            alert_rule_test: [...byAlert].map(([alertname, exp_alerts]) => ({ eval_time: evalTime, alertname, exp_alerts })),
          },
        ],
      };
      const testFile = join(dir, 'test.yaml');
      writeFileSync(testFile, stringify(test));
      const check = await run(promtool, ['check', 'rules', file]);
      if (check.code !== 0) return check;
      return run(promtool, ['test', 'rules', testFile]);
    },
    cleanup: () => tmp.cleanup(),
  };
}

/** Every query of deploy/monitoring: each alert's expression, each dashboard panel's targets and label_values variables. */
export function monitoringQueries(): Array<{ where: string; expr: string }> {
  const out = shippedRuleGroups().flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })));
  for (const file of ['valkey-krm-fleet.json', 'valkey-krm-cluster.json']) {
    const dash = JSON.parse(readFileSync(repoPath('deploy/monitoring/dashboards', file), 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
      templating: { list: Array<{ name: string; query?: string | { query: string } }> };
    };
    for (const p of dash.panels) for (const t of p.targets) out.push({ where: `${file}: ${p.title}`, expr: t.expr });
    for (const v of dash.templating.list)
      if (typeof v.query === 'string' && v.query.includes('label_values')) out.push({ where: `${file}: $${v.name}`, expr: v.query });
  }
  return out;
}

/** The metric names a query names (a histogram's _bucket/_sum/_count series by the histogram's name). */
export const metricNamesIn = (expr: string): string[] => [
  ...new Set([...expr.matchAll(/\b(valkey_\w+?)(?:_bucket|_sum|_count)?\b/g)].map((m) => m[1] as string)),
];
