import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../../src/api/index.js';
import { controllerMetrics } from '../../../src/controller/runtime/metrics.js';
import { startHealthServer } from '../../../src/controller/runtime/health-server.js';
import { jsonLogger } from '../../../src/controller/runtime/log.js';
import { NODE_COMMANDS, sessionOpener, type NodeCommand } from '../../../src/controller/valkey/node-session.js';
import { RespParser } from '../../../src/controller/valkey/resp.js';

describe('metrics', () => {
  it('renders the Prometheus text format: HELP, TYPE, one series per label set, escaped labels, nodes by version', async () => {
    const m = controllerMetrics();
    m.reconciles.inc({ kind: 'cluster', result: 'ok' });
    m.reconciles.inc({ result: 'ok', kind: 'cluster' });
    m.reconciles.inc({ kind: 'images', result: 'error' });
    m.statusWrites.inc();
    m.setClusterVersions('shop/a', ['9.0.1', '9.0.1', 'unknown']);
    m.setClusterVersions('shop/b', ['not-valkey', '9.0.1']);
    m.setClusterVersions('shop/gone', ['8.0.0']);
    m.setClusterVersions('shop/gone', undefined);
    // Labels in alphabetical order, as the controller passes them (prom-client prints them in the order first given).
    m.watchErrors.inc({ phase: 'watch "x"\n', resource: 'pods' });
    m.leader.set(1);
    const text = await m.registry.metrics();
    expect(text).toContain(
      [
        '# HELP valkey_status_sync_reconciles_total Reconcile passes, by kind (cluster, images) and result (ok, error).',
        '# TYPE valkey_status_sync_reconciles_total counter',
        'valkey_status_sync_reconciles_total{kind="cluster",result="ok"} 2',
        'valkey_status_sync_reconciles_total{kind="images",result="error"} 1',
      ].join('\n'),
    );
    expect(text).toContain('valkey_status_sync_status_writes_total 1\n');
    expect(text).toContain(
      'valkey_status_sync_nodes{version="9.0.1"} 3\nvalkey_status_sync_nodes{version="not-valkey"} 1\nvalkey_status_sync_nodes{version="unknown"} 1\n',
    );
    expect(text).not.toContain('8.0.0');
    expect(text).toContain('# TYPE valkey_status_sync_leader gauge\nvalkey_status_sync_leader 1\n');
    expect(text).toContain('valkey_status_sync_watch_errors_total{phase="watch \\"x\\"\\n",resource="pods"} 1');
  });

  it('says which release it is: build_info carries package.json’s version', async () => {
    const text = await controllerMetrics().registry.metrics();
    expect(text).toContain(`valkey_status_sync_build_info{version="${PACKAGE_VERSION}"} 1\n`);
  });

  it("adds prom-client's process, heap, GC and event-loop metrics", async () => {
    const text = await controllerMetrics().registry.metrics();
    for (const family of [
      'process_cpu_seconds_total counter',
      'process_resident_memory_bytes gauge',
      'nodejs_heap_size_used_bytes gauge',
      'nodejs_gc_duration_seconds histogram',
      'nodejs_eventloop_lag_seconds gauge',
    ]) {
      expect(text).toContain(`# TYPE ${family}\n`);
    }
  });

  it('has histograms of reconcile passes by kind and result, and of node commands by command', async () => {
    const m = controllerMetrics();
    m.reconcileSeconds.observe({ kind: 'cluster', result: 'ok' }, 0.2);
    m.timeNodeCommand('CLUSTER NODES', 0.002);
    const text = await m.registry.metrics();
    expect(text).toContain('# TYPE valkey_status_sync_reconcile_duration_seconds histogram\n');
    expect(text).toContain('valkey_status_sync_reconcile_duration_seconds_bucket{le="0.1",kind="cluster",result="ok"} 0\n');
    expect(text).toContain('valkey_status_sync_reconcile_duration_seconds_bucket{le="0.25",kind="cluster",result="ok"} 1\n');
    expect(text).toContain('valkey_status_sync_reconcile_duration_seconds_count{kind="cluster",result="ok"} 1\n');
    expect(text).toContain('# TYPE valkey_status_sync_node_command_duration_seconds histogram\n');
    expect(text).toContain('valkey_status_sync_node_command_duration_seconds_bucket{le="0.001",command="CLUSTER NODES"} 0\n');
    expect(text).toContain('valkey_status_sync_node_command_duration_seconds_bucket{le="0.0025",command="CLUSTER NODES"} 1\n');
    expect(text).toContain('valkey_status_sync_node_command_duration_seconds_sum{command="CLUSTER NODES"} 0.002\n');
  });

  it('a node session times each command that got a reply, error replies included, under its fixed name', async () => {
    // A loopback node: OK to AUTH, an error to CLUSTER FORGET, silence to CLUSTER FAILOVER, a text to the rest.
    const server = createServer((socket) => {
      const parser = new RespParser();
      socket.on('data', (chunk) => {
        parser.push(chunk);
        for (let v = parser.next(); v !== undefined; v = parser.next()) {
          const [name = '', sub = ''] = v as string[];
          if (name === 'AUTH') socket.write('+OK\r\n');
          else if (sub === 'FORGET') socket.write('-ERR Unknown node\r\n');
          else if (sub !== 'FAILOVER') socket.write('$2\r\nhi\r\n');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const timed: [NodeCommand, number][] = [];
    const open = sessionOpener(
      async () => ({ username: 'u', password: 'p' }),
      { connectMs: 1000, commandMs: 200 },
      (command, seconds) => timed.push([command, seconds]),
    );
    try {
      const s = await open({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, busPort: 0 }, undefined);
      await s.infoServer();
      await s.clusterNodes();
      await s.meet({ host: '10.0.0.1', port: 6379, busPort: 16379 });
      await expect(s.forget('abc')).rejects.toThrow('Unknown node');
      await expect(s.takeover()).rejects.toThrow('no reply to CLUSTER FAILOVER within 200 ms');
      s.close();
    } finally {
      server.close();
    }
    expect(timed.map(([c]) => c)).toEqual(['AUTH', 'INFO', 'CLUSTER NODES', 'CLUSTER MEET', 'CLUSTER FORGET']);
    expect(timed.every(([c, s]) => NODE_COMMANDS.includes(c) && s >= 0 && s < 1)).toBe(true);
  });
});

describe('the health server', () => {
  it('serves the registry on /metrics with its content type, next to /healthz and /readyz', async () => {
    const m = controllerMetrics();
    m.reconcileSeconds.observe({ kind: 'images', result: 'ok' }, 0.01);
    const server = await startHealthServer({
      host: '127.0.0.1',
      port: 0,
      healthy: () => true,
      ready: () => false,
      metrics: async () => ({ contentType: m.registry.contentType, body: await m.registry.metrics() }),
    });
    try {
      const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
      const res = await fetch(url('/metrics'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const body = await res.text();
      expect(body).toContain('valkey_status_sync_reconcile_duration_seconds_count{kind="images",result="ok"} 1\n');
      expect(body).toContain('# TYPE valkey_status_sync_node_command_duration_seconds histogram\n');
      expect(body).toContain('# TYPE nodejs_eventloop_lag_seconds gauge\n');
      expect((await fetch(url('/healthz'))).status).toBe(200);
      expect((await fetch(url('/readyz'))).status).toBe(503);
    } finally {
      await server.close();
    }
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
