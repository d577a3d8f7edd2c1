// List-then-watch of one resource collection over plain HTTPS with the harness's bearer token,
// the way an informer does it: list for a resourceVersion, watch from there, relist when the
// server says the version is too old (410) and resume when a watch ends (the server closes each
// watch after a while).
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiServer } from './apiserver.js';

export interface KubeMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
}

export interface WatchedObject {
  metadata: KubeMeta;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Watch {
  /** Resolves once the first list has been delivered as ADDED events. */
  readonly synced: Promise<void>;
  stop(): void;
}

interface ListResponse<T> {
  metadata: { resourceVersion: string };
  items: T[];
}

interface WatchEvent<T> {
  type: WatchEventType | 'BOOKMARK' | 'ERROR';
  object: T & { code?: number };
}

/**
 * Calls `onEvent` for every object of `path` (e.g. `/api/v1/pods`): ADDED for the list, then
 * each change. After a relist, objects that vanished meanwhile are reported as DELETED.
 */
export function watchCollection<T extends WatchedObject>(
  api: ApiServer,
  path: string,
  onEvent: (type: WatchEventType, object: T) => void,
): Watch {
  let stopped = false;
  let current: ClientRequest | undefined;
  const known = new Map<string, T>();
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => (markSynced = resolve));

  const deliver = (type: WatchEventType, object: T): void => {
    if (type === 'DELETED') known.delete(object.metadata.uid);
    else known.set(object.metadata.uid, object);
    onEvent(type, object);
  };

  const list = async (): Promise<string> => {
    const res = await api.request('GET', path);
    if (res.status !== 200) throw new Error(`list ${path}: ${res.status} ${res.body}`);
    const body = JSON.parse(res.body) as ListResponse<T>;
    const seen = new Set(body.items.map((o) => o.metadata.uid));
    for (const [uid, old] of known) if (!seen.has(uid)) deliver('DELETED', old);
    for (const item of body.items) deliver(known.has(item.metadata.uid) ? 'MODIFIED' : 'ADDED', item);
    markSynced();
    return body.metadata.resourceVersion;
  };

  /** One watch request; resolves with the version to resume from, or undefined to relist. */
  const watchOnce = (from: string): Promise<string | undefined> =>
    new Promise((resolve) => {
      const url = new URL(`${path}?watch=1&allowWatchBookmarks=true&resourceVersion=${from}`, api.url);
      let version: string | undefined = from;
      let buffered = '';
      const req = httpsRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: 'GET',
          rejectUnauthorized: false,
          headers: { Authorization: `Bearer ${api.token}`, Accept: 'application/json' },
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            resolve(undefined);
            return;
          }
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
              const line = buffered.slice(0, nl).trim();
              buffered = buffered.slice(nl + 1);
              if (line === '' || version === undefined) continue;
              const event = JSON.parse(line) as WatchEvent<T>;
              if (event.type === 'ERROR') {
                version = undefined; // 410 Gone and friends: start over from a list
                req.destroy();
                continue;
              }
              version = event.object.metadata.resourceVersion;
              if (event.type !== 'BOOKMARK' && !stopped) deliver(event.type, event.object);
            }
          });
          res.on('end', () => resolve(version));
          res.on('error', () => resolve(version));
        },
      );
      req.on('error', () => resolve(undefined)); // relist: a failing list backs off
      req.end();
      current = req;
    });

  void (async () => {
    let from: string | undefined;
    while (!stopped) {
      try {
        from ??= await list();
        from = await watchOnce(from);
      } catch {
        from = undefined;
        if (!stopped) await sleep(200); // the API server restarting, most likely
      }
    }
  })();

  return {
    synced,
    stop() {
      stopped = true;
      current?.destroy();
    },
  };
}
