import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A scrape of the metrics registry: the exposition text and its content type. */
export interface MetricsScrape {
  contentType: string;
  body: string;
}

export interface HealthServerOptions {
  host: string;
  port: number;
  /** Alive: the process can still do its job. */
  healthy: () => boolean;
  /** Ready: caches synced (leader) or standing by (not leader). */
  ready: () => boolean;
  metrics: () => Promise<MetricsScrape>;
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/** /healthz, /readyz (what the kubelet's probes ask) and /metrics on one small HTTP listener. */
export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, 'method not allowed\n');
    switch (path) {
      case '/healthz':
        return opts.healthy() ? reply(200, 'ok\n') : reply(503, 'unhealthy\n');
      case '/readyz':
        return opts.ready() ? reply(200, 'ok\n') : reply(503, 'not ready\n');
      case '/metrics':
        return void opts.metrics().then(
          (scrape) => reply(200, scrape.body, scrape.contentType),
          (e: unknown) => reply(500, `cannot collect metrics: ${e instanceof Error ? e.message : String(e)}\n`),
        );
      default:
        return reply(404, 'not found\n');
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
