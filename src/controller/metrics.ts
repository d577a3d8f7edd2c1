/**
 * The controller's Prometheus metrics, rendered in the text exposition format (version 0.0.4)
 * without a client library: a handful of counters and gauges is all it has.
 */
export type Labels = Record<string, string>;

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: () => [Labels, number][];
}

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelKey = (labels: Labels): string =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k] as string)}"`)
    .join(',');

/** Values by label set; what a counter and a gauge share. */
class Series {
  protected readonly values = new Map<string, [Labels, number]>();
  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels))?.[1] ?? 0;
  }
  samples(): [Labels, number][] {
    return [...this.values.values()];
  }
}

export class Counter extends Series {
  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    const current = this.values.get(key);
    this.values.set(key, [labels, (current?.[1] ?? 0) + by]);
  }
}

export class Gauge extends Series {
  set(labels: Labels, value: number): void {
    this.values.set(labelKey(labels), [labels, value]);
  }
}

export class Registry {
  private readonly families: Family[] = [];

  counter(name: string, help: string): Counter {
    const c = new Counter();
    this.families.push({ name, help, type: 'counter', samples: () => c.samples() });
    return c;
  }

  gauge(name: string, help: string): Gauge {
    const g = new Gauge();
    this.families.push({ name, help, type: 'gauge', samples: () => g.samples() });
    return g;
  }

  /** A gauge computed when scraped. */
  gaugeFn(name: string, help: string, samples: () => [Labels, number][]): void {
    this.families.push({ name, help, type: 'gauge', samples });
  }

  render(): string {
    const lines: string[] = [];
    for (const f of this.families) {
      lines.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`);
      const samples = f.samples().sort(([a], [b]) => labelKey(a).localeCompare(labelKey(b)));
      for (const [labels, value] of samples) {
        const key = labelKey(labels);
        lines.push(`${f.name}${key ? `{${key}}` : ''} ${Number.isFinite(value) ? String(value) : value > 0 ? '+Inf' : '-Inf'}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }
}

/** Every metric the controller exports; names are documented in docs/controller.md. */
export function controllerMetrics(registry = new Registry()) {
  const nodesByCluster = new Map<string, readonly string[]>();
  const m = {
    registry,
    reconciles: registry.counter('valkey_status_sync_reconciles_total', 'Reconcile passes, by kind (cluster, images) and result (ok, error).'),
    reconcileErrors: registry.counter('valkey_status_sync_reconcile_errors_total', 'Errors met while reconciling, by kind (node, formation, api).'),
    statusWrites: registry.counter('valkey_status_sync_status_writes_total', 'Status patches written to ValkeyClusters (unchanged status is never written).'),
    formationActions: registry.counter('valkey_status_sync_formation_actions_total', 'Cluster commands sent to form or heal clusters, by action and result.'),
    finalizerWrites: registry.counter('valkey_status_sync_finalizer_writes_total', 'ValkeyImage finalizers added or released, by action.'),
    watchErrors: registry.counter('valkey_status_sync_watch_errors_total', 'List/watch failures, by resource, phase and reason (gone: 410, the informer relists; error: retried with backoff).'),
    leader: registry.gauge('valkey_status_sync_leader', '1 while this replica holds the leader Lease.'),
    /** Remember the versions a cluster's nodes run (or `not-valkey`, `unknown`) for the nodes gauge. */
    setClusterVersions(cluster: string, versions: readonly string[] | undefined): void {
      if (versions) nodesByCluster.set(cluster, versions);
      else nodesByCluster.delete(cluster);
    },
  };
  registry.gaugeFn('valkey_status_sync_nodes', 'Nodes of all clusters by the version they run (not-valkey, unknown when unreachable).', () => {
    const counts = new Map<string, number>();
    for (const versions of nodesByCluster.values()) for (const v of versions) counts.set(v, (counts.get(v) ?? 0) + 1);
    return [...counts].map(([version, n]) => [{ version }, n]);
  });
  return m;
}

export type ControllerMetrics = ReturnType<typeof controllerMetrics>;
