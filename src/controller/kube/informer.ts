import { Backoff, type BackoffOptions } from '../runtime/backoff.js';
import type { Clock } from '../runtime/clock.js';
import { isApiError, type KubeClient } from './client.js';
import { objectKey, type KubeList, type ApiObject, type Status, type WatchEvent } from './types.js';

export interface InformerEvent<T> {
  type: 'added' | 'modified' | 'deleted';
  object: T;
  /** For `modified`: the object it replaces in the store. */
  old?: T;
}

/** Every failure of an informer arrives here, with the delay before it tries again. */
export interface InformerError {
  informer: string;
  phase: 'list' | 'watch';
  /** `gone`: the server no longer has our resourceVersion (410), so the informer relists. */
  reason: 'gone' | 'error';
  error: Error;
  retryInMs: number;
}

export interface InformerOptions<T> {
  name: string;
  client: KubeClient;
  /** Collection path, e.g. /api/v1/pods. */
  path: string;
  labelSelector?: string;
  clock: Clock;
  backoff: BackoffOptions;
  /** The server ends each watch after this long; the informer then watches again from where it was. */
  watchTimeoutSeconds?: number;
  pageSize?: number;
  onEvent: (e: InformerEvent<T>) => void;
  onError: (e: InformerError) => void;
}

/** Thrown inside the loop when the server says our resourceVersion is too old. */
class Gone extends Error {}

/**
 * List, then watch from the list's resourceVersion, keeping a local store. A 410 Gone (the
 * version was compacted away) relists and reports the difference as events; any other failure
 * waits a capped exponential backoff and resumes the watch. Errors go to `onError`, never thrown.
 */
export class Informer<T extends ApiObject> {
  private store = new Map<string, T>();
  private readonly abort = new AbortController();
  private readonly backoff: Backoff;
  private loop: Promise<void> | undefined;
  private synced = false;
  private resourceVersion = '';
  /** How many times the informer listed (the first list included). */
  lists = 0;

  constructor(private readonly opts: InformerOptions<T>) {
    this.backoff = new Backoff(opts.backoff);
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  list(): T[] {
    return [...this.store.values()];
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  private async run(): Promise<void> {
    let needList = true;
    while (!this.abort.signal.aborted) {
      let phase: InformerError['phase'] = 'watch';
      try {
        if (needList) {
          phase = 'list';
          await this.relist();
          needList = false;
          phase = 'watch';
        }
        const started = this.opts.clock.now();
        const delivered = await this.watchOnce();
        // A server that ends watches at once, without a word, must not make us spin.
        if (!delivered && this.opts.clock.now() - started < 1000) await this.opts.clock.sleep(this.backoff.next(), this.abort.signal);
      } catch (e) {
        if (this.abort.signal.aborted) break;
        if (e instanceof Gone || isApiError(e, 410)) {
          needList = true;
          this.opts.onError({ informer: this.opts.name, phase, reason: 'gone', error: e as Error, retryInMs: 0 });
          continue;
        }
        const retryInMs = this.backoff.next();
        this.opts.onError({
          informer: this.opts.name,
          phase,
          reason: 'error',
          error: e instanceof Error ? e : new Error(String(e)),
          retryInMs,
        });
        await this.opts.clock.sleep(retryInMs, this.abort.signal);
      }
    }
  }

  private async relist(): Promise<void> {
    const fresh = new Map<string, T>();
    let cont: string | undefined;
    let rv = '';
    do {
      const page = await this.opts.client.request<KubeList<T>>('GET', this.opts.path, {
        query: { labelSelector: this.opts.labelSelector, limit: this.opts.pageSize ?? 500, continue: cont },
      });
      for (const item of page.items) fresh.set(objectKey(item), item);
      cont = page.metadata.continue || undefined;
      rv = page.metadata.resourceVersion ?? '';
    } while (cont);
    this.lists++;
    const old = this.store;
    this.store = fresh;
    this.resourceVersion = rv;
    this.synced = true;
    this.backoff.reset();
    for (const [k, v] of fresh) {
      const before = old.get(k);
      if (!before) this.opts.onEvent({ type: 'added', object: v });
      else if (before.metadata.resourceVersion !== v.metadata.resourceVersion)
        this.opts.onEvent({ type: 'modified', object: v, old: before });
    }
    for (const [k, v] of old) if (!fresh.has(k)) this.opts.onEvent({ type: 'deleted', object: v });
  }

  /** One watch request; true if it delivered anything (so the connection was healthy). */
  private async watchOnce(): Promise<boolean> {
    const timeoutSeconds = this.opts.watchTimeoutSeconds ?? 300;
    let delivered = false;
    let gone: Gone | undefined;
    let failed: Error | undefined;
    await this.opts.client.watch(this.opts.path, {
      query: { labelSelector: this.opts.labelSelector, resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
      signal: this.abort.signal,
      idleTimeoutMs: (timeoutSeconds + 30) * 1000,
      onLine: (line) => {
        if (gone || failed) return;
        const event = JSON.parse(line) as WatchEvent<T | Status>;
        // The connection works: the next failure starts the backoff from the beginning.
        if (!delivered) this.backoff.reset();
        delivered = true;
        if (event.type === 'ERROR') {
          const status = event.object as Status;
          const message = `watch ${this.opts.path}: ${status.code ?? '?'} ${status.message ?? status.reason ?? ''}`;
          if (status.code === 410) gone = new Gone(message);
          else failed = new Error(message);
          return;
        }
        const object = event.object as T;
        if (object.metadata.resourceVersion) this.resourceVersion = object.metadata.resourceVersion;
        if (event.type === 'BOOKMARK') return;
        const key = objectKey(object);
        if (event.type === 'DELETED') {
          this.store.delete(key);
          this.opts.onEvent({ type: 'deleted', object });
        } else {
          const before = this.store.get(key);
          this.store.set(key, object);
          this.opts.onEvent(before ? { type: 'modified', object, old: before } : { type: 'added', object });
        }
      },
    });
    if (gone) throw gone;
    if (failed) throw failed;
    return delivered;
  }
}
