import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProbeServerOptions {
  host: string;
  port: number;
  /** Alive: the process can still do its job. */
  healthy: () => boolean;
  /** Ready: caches synced (leader) or standing by (not leader). */
  ready: () => boolean;
  metrics: () => string;
}

export interface ProbeServer {
  readonly port: number;
  close(): Promise<void>;
}

/** /healthz, /readyz and /metrics on one small HTTP listener. */
export async function startProbeServer(opts: ProbeServerOptions): Promise<ProbeServer> {
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
        return reply(200, opts.metrics(), 'text/plain; version=0.0.4; charset=utf-8');
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
