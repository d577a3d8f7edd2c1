import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** A non-2xx answer from the API server, with the Status object's reason when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export const isApiError = (e: unknown, status?: number): e is ApiError =>
  e instanceof ApiError && (status === undefined || e.status === status);

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestInit {
  query?: Query;
  body?: unknown;
  contentType?: 'application/json' | 'application/merge-patch+json';
  timeoutMs?: number;
  /** Accept header (default application/json), e.g. PartialObjectMetadata for a metadata-only GET. */
  accept?: string;
}

export interface WatchInit {
  query: Query;
  signal: AbortSignal;
  /** Abort when no byte arrives for this long (a silently dead connection). */
  idleTimeoutMs: number;
  onLine: (line: string) => void;
}

/** The few verbs the controller needs, over plain HTTPS; auth comes from @kubernetes/client-node. */
export interface KubeClient {
  request<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, init?: RequestInit): Promise<T>;
  /** Streams a watch; resolves when the server ends it, rejects on errors (or aborts quietly). */
  watch(path: string, init: WatchInit): Promise<void>;
}

interface Transport {
  base: URL;
  agent: HttpAgent;
  options(): Promise<RequestOptions>;
}

function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

function apiError(status: number, body: string, what: string): ApiError {
  try {
    const s = JSON.parse(body) as { reason?: string; message?: string };
    return new ApiError(status, s.reason ?? '', `${what}: ${status} ${s.message ?? body}`);
  } catch {
    return new ApiError(status, '', `${what}: ${status} ${body.slice(0, 200)}`);
  }
}

/**
 * A client for the current context of `kc` (in-cluster or a kubeconfig). Connections are kept
 * alive; credentials are re-applied per request so rotated service-account tokens are picked up.
 */
export async function kubeClientFromConfig(kc: KubeConfig): Promise<KubeClient> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const base = new URL(cluster.server);
  const tlsOptions: RequestOptions = {};
  await kc.applyToHTTPSOptions(tlsOptions);
  const secure = base.protocol === 'https:';
  const agentOptions = {
    keepAlive: true,
    ca: tlsOptions.ca,
    cert: tlsOptions.cert,
    key: tlsOptions.key,
    ...(tlsOptions.rejectUnauthorized !== undefined ? { rejectUnauthorized: tlsOptions.rejectUnauthorized } : {}),
    ...(tlsOptions.servername ? { servername: tlsOptions.servername } : {}),
  };
  const agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent({ keepAlive: true });
  const transport: Transport = {
    base,
    agent,
    async options() {
      const o: RequestOptions = { headers: {} };
      await kc.applyToHTTPSOptions(o);
      return { headers: o.headers ?? {}, ...(o.auth ? { auth: o.auth } : {}) };
    },
  };
  return makeClient(transport);
}

function makeClient(t: Transport): KubeClient {
  // Synchronous on purpose: callers attach their 'error' listener in the same tick, before a
  // reused keep-alive socket that died (an API server restart) can report it.
  const send = (auth: RequestOptions, method: string, path: string, headers: Record<string, string>, timeoutMs: number) => {
    const url = new URL(path, t.base);
    const requestFn = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return requestFn({
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method,
      agent: t.agent,
      ...auth,
      headers: { ...(auth.headers as Record<string, string>), Accept: 'application/json', ...headers },
      timeout: timeoutMs,
    });
  };

  return {
    async request<T>(method: string, path: string, init: RequestInit = {}): Promise<T> {
      const full = withQuery(path, init.query);
      const body = init.body === undefined ? undefined : JSON.stringify(init.body);
      // Content-Length always: Node sends no length and no chunking for a DELETE body, so the
      // server would read the body as the start of the next request on the kept-alive socket.
      const headers: Record<string, string> = {
        ...(body === undefined
          ? {}
          : { 'Content-Type': init.contentType ?? 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }),
        ...(init.accept ? { Accept: init.accept } : {}),
      };
      const auth = await t.options();
      return new Promise<T>((resolve, reject) => {
        const req = send(auth, method, full, headers, init.timeoutMs ?? 30_000);
        req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
        req.on('error', reject);
        req.on('response', (res) => {
          readBody(res).then((text) => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) reject(apiError(status, text, `${method} ${path}`));
            else resolve((text ? JSON.parse(text) : {}) as T);
          }, reject);
        });
        req.end(body);
      });
    },

    async watch(path, init) {
      if (init.signal.aborted) return;
      const auth = await t.options();
      return new Promise<void>((resolve, reject) => {
        const req = send(auth, 'GET', withQuery(path, { ...init.query, watch: true }), {}, init.idleTimeoutMs);
        const abort = (): void => {
          req.destroy();
          resolve();
        };
        const done = (err?: Error): void => {
          init.signal.removeEventListener('abort', abort);
          if (init.signal.aborted) resolve();
          else if (err) reject(err);
          else resolve();
        };
        // Listeners first: destroying the request (an abort) reports "socket hang up" as an error.
        req.on('error', (e) => done(e));
        req.on('timeout', () => req.destroy(new Error(`watch ${path}: nothing received for ${init.idleTimeoutMs} ms`)));
        if (init.signal.aborted) return abort();
        init.signal.addEventListener('abort', abort, { once: true });
        req.on('response', (res) => {
          const status = res.statusCode ?? 0;
          if (status !== 200) {
            readBody(res).then((text) => done(apiError(status, text, `watch ${path}`)), done);
            return;
          }
          let buffered = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            let nl = buffered.indexOf('\n');
            while (nl >= 0) {
              const line = buffered.slice(0, nl).trim();
              buffered = buffered.slice(nl + 1);
              if (line) {
                try {
                  init.onLine(line);
                } catch (e) {
                  req.destroy();
                  done(e instanceof Error ? e : new Error(String(e)));
                  return;
                }
              }
              nl = buffered.indexOf('\n');
            }
          });
          res.on('end', () => done());
          res.on('aborted', () => done(new Error(`watch ${path}: connection aborted`)));
          res.on('error', (e) => done(e));
        });
        req.end();
      });
    },
  };
}
