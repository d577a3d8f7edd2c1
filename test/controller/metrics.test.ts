import { describe, expect, it } from 'vitest';
import { controllerMetrics } from '../../src/controller/metrics.js';
import { jsonLogger } from '../../src/controller/log.js';

describe('metrics', () => {
  it('renders the Prometheus text format: HELP, TYPE, sorted escaped labels, nodes by version', () => {
    const m = controllerMetrics();
    m.reconciles.inc({ kind: 'cluster', result: 'ok' });
    m.reconciles.inc({ result: 'ok', kind: 'cluster' });
    m.reconciles.inc({ kind: 'images', result: 'error' });
    m.statusWrites.inc();
    m.setClusterVersions('shop/a', ['9.0.1', '9.0.1', 'unknown']);
    m.setClusterVersions('shop/b', ['9.0.1', 'not-valkey']);
    m.setClusterVersions('shop/gone', ['8.0.0']);
    m.setClusterVersions('shop/gone', undefined);
    m.watchErrors.inc({ resource: 'pods', phase: 'watch "x"\n' });
    m.leader.set({}, 1);
    const text = m.registry.render();
    expect(text).toContain(
      [
        '# HELP valkey_status_sync_reconciles_total Reconcile passes, by kind (cluster, images) and result (ok, error).',
        '# TYPE valkey_status_sync_reconciles_total counter',
        'valkey_status_sync_reconciles_total{kind="cluster",result="ok"} 2',
        'valkey_status_sync_reconciles_total{kind="images",result="error"} 1',
      ].join('\n'),
    );
    expect(text).toContain('valkey_status_sync_status_writes_total 1\n');
    expect(text).toContain('valkey_status_sync_nodes{version="9.0.1"} 3\nvalkey_status_sync_nodes{version="not-valkey"} 1\nvalkey_status_sync_nodes{version="unknown"} 1\n');
    expect(text).not.toContain('8.0.0');
    expect(text).toContain('# TYPE valkey_status_sync_leader gauge\nvalkey_status_sync_leader 1\n');
    expect(text).toContain('valkey_status_sync_watch_errors_total{phase="watch \\"x\\"\\n",resource="pods"} 1');
  });
});

describe('jsonLogger', () => {
  it('writes one JSON object per line with fields, child fields and plain error messages; filters by level', () => {
    const lines: string[] = [];
    const log = jsonLogger({ level: 'info', write: (l) => lines.push(l), now: () => Date.UTC(2026, 0, 1), fields: { component: 'x' } });
    log.debug('hidden');
    log.child({ cluster: 'shop/a' }).warn('formation step failed', { error: Object.assign(new Error('ERR boom'), { code: 'E1' }) });
    expect(lines).toEqual([
      '{"ts":"2026-01-01T00:00:00.000Z","level":"warn","msg":"formation step failed","component":"x","cluster":"shop/a","error":"ERR boom (E1)"}\n',
    ]);
  });
});
