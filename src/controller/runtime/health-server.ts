import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

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
  /** Bounds on what clients may hold open (defaults: HEALTH_SERVER_LIMITS). */
  limits?: Partial<HealthServerLimits>;
}

/**
 * The listener is reachable from every pod that may reach the controller's port, so a client
 * that opens connections and never speaks (or speaks one byte a minute) must not hold sockets and
 * memory until the process runs out: each connection is closed when idle, a request must arrive
 * whole in time, and past a small number of connections new ones are closed at once. The kubelet's
 * probes and a Prometheus scrape need one connection each, for well under a second.
 */
export interface HealthServerLimits {
  /** A connection with no bytes either way for this long is closed. */
  idleMs: number;
  /** A request's headers, and the whole request, must arrive within this. */
  requestMs: number;
  /** Connections open at once; more are closed on arrival. */
  maxConnections: number;
}

export const HEALTH_SERVER_LIMITS: HealthServerLimits = { idleMs: 10_000, requestMs: 5_000, maxConnections: 32 };

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/** /healthz, /readyz (what the kubelet's probes ask) and /metrics on one small HTTP listener. */
export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const limits = { ...HEALTH_SERVER_LIMITS, ...opts.limits };
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
  // Node 20's own bounds (server.timeout, headersTimeout, requestTimeout) leave a socket that never
  // sends a byte, or one byte, open for ever (seen on v20.20.2): each connection gets its own timer,
  // closing it once idle for idleMs, or once a request started requestMs ago has not been answered.
  const state = new WeakMap<Socket, { lastMs: number; requestSinceMs?: number }>();
  server.on('connection', (socket: Socket) => {
    const st: { lastMs: number; requestSinceMs?: number } = { lastMs: Date.now() };
    state.set(socket, st);
    socket.on('data', () => {
      st.lastMs = Date.now();
      st.requestSinceMs ??= st.lastMs;
    });
    const check = setInterval(
      () => {
        const now = Date.now();
        if (now - st.lastMs >= limits.idleMs || (st.requestSinceMs !== undefined && now - st.requestSinceMs >= limits.requestMs))
          socket.destroy();
      },
      Math.max(20, Math.floor(Math.min(limits.idleMs, limits.requestMs) / 10)),
    );
    check.unref();
    socket.once('close', () => clearInterval(check));
  });
  server.on('request', (req, res) => {
    res.once('finish', () => {
      const st = state.get(req.socket);
      if (st) {
        st.requestSinceMs = undefined;
        st.lastMs = Date.now();
      }
    });
  });
  server.keepAliveTimeout = Math.min(5_000, limits.idleMs);
  // Node's request timers are off: on v20 they mark a socket that sent nothing destroyed at
  // requestMs without closing it, and the client holds it for ever. The timer above is the bound.
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  server.maxConnections = limits.maxConnections;
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
