// The integration tests read the controller's metrics synchronously, inside their polling loops,
// while prom-client only scrapes asynchronously. So the test controller keeps a scrape of its
// registry that is refreshed every few milliseconds while it runs; a read sees the /metrics text
// of at most REFRESH_MS ago, every metric from the same scrape.
import type { ControllerMetrics } from '../../../src/controller/runtime/metrics.js';

const REFRESH_MS = 5;

type Labels = Record<string, string>;

export interface MetricReadout {
  /** The sample with exactly these labels; 0 when there is none. */
  get(labels?: Labels): number;
}

/** The metrics the tests read, by their field in ControllerMetrics. */
const NAMES = {
  reconciles: 'valkey_status_sync_reconciles_total',
  reconcileErrors: 'valkey_status_sync_reconcile_errors_total',
  statusWrites: 'valkey_status_sync_status_writes_total',
  formationActions: 'valkey_status_sync_formation_actions_total',
  finalizerWrites: 'valkey_status_sync_finalizer_writes_total',
  watchErrors: 'valkey_status_sync_watch_errors_total',
  leader: 'valkey_status_sync_leader',
} as const satisfies Partial<Record<keyof ControllerMetrics, string>>;

export type MetricsReadout = { [K in keyof typeof NAMES]: MetricReadout } & {
  /** The text /metrics served at the last scrape. */
  registry: { render(): string };
  stop(): void;
};

const unescapeLabel = (v: string): string => v.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));

function parseLabels(text: string): Labels {
  const labels: Labels = {};
  for (const m of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1] as string] = unescapeLabel(m[2] as string);
  return labels;
}

function sampleOf(text: string, name: string, labels: Labels): number {
  const wanted = Object.keys(labels).sort();
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = parseLabels(m[2] ?? '');
    const keys = Object.keys(found).sort();
    if (keys.length === wanted.length && keys.every((k, i) => k === wanted[i] && found[k] === labels[k])) return Number(m[3]);
  }
  return 0;
}

export async function readMetrics(metrics: ControllerMetrics): Promise<MetricsReadout> {
  let text = await metrics.registry.metrics();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const refresh = async (): Promise<void> => {
    text = await metrics.registry.metrics();
  };
  const loop = (): void => {
    timer = setTimeout(() => void refresh().finally(() => (stopped ? undefined : loop())), REFRESH_MS);
    timer.unref();
  };
  loop();
  const readout = (name: string): MetricReadout => ({ get: (labels = {}) => sampleOf(text, name, labels) });
  return {
    reconciles: readout(NAMES.reconciles),
    reconcileErrors: readout(NAMES.reconcileErrors),
    statusWrites: readout(NAMES.statusWrites),
    formationActions: readout(NAMES.formationActions),
    finalizerWrites: readout(NAMES.finalizerWrites),
    watchErrors: readout(NAMES.watchErrors),
    leader: readout(NAMES.leader),
    registry: { render: () => text },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
