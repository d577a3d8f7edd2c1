import { Backoff, type BackoffOptions } from './backoff.js';
import type { Clock } from './clock.js';

export interface WorkResult {
  /** Look at this key again after this long (a resync, or polling a formation in progress). */
  requeueAfterMs?: number;
}

export interface WorkQueueOptions {
  /** At most this many keys are processed at once; a slow key holds one slot, never all. */
  concurrency: number;
  clock: Clock;
  /** Retry delays for a key whose handler threw, per key. */
  retry: BackoffOptions;
  handler: (key: string) => Promise<WorkResult>;
  onError: (key: string, error: Error, retryInMs: number) => void;
}

/**
 * A keyed work queue in the manner of client-go's: a key is queued at most once, never handled
 * by two workers at once (an add during handling runs it again afterwards), delayed adds keep the
 * earliest time, and failures retry with per-key capped exponential backoff.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; cancel: () => void }>();
  private readonly failures = new Map<string, Backoff>();
  private readonly idle: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly opts: WorkQueueOptions) {}

  add(key: string): void {
    if (this.stopped) return;
    this.cancelTimer(key);
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.opts.clock.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    existing?.cancel();
    const cancel = this.opts.clock.setTimer(ms, () => {
      this.timers.delete(key);
      this.add(key);
    });
    this.timers.set(key, { at, cancel });
  }

  /** Keys queued, running or waiting on a timer. */
  get size(): number {
    return new Set([...this.queued, ...this.active, ...this.timers.keys()]).size;
  }

  /** Stops taking work, cancels timers, and waits for the handlers in flight. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    if (this.active.size > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private cancelTimer(key: string): void {
    this.timers.get(key)?.cancel();
    this.timers.delete(key);
  }

  private pump(): void {
    while (!this.stopped && this.active.size < this.opts.concurrency && this.queue.length > 0) {
      const key = this.queue.shift() as string;
      this.queued.delete(key);
      this.active.add(key);
      void this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    let result: WorkResult = {};
    try {
      result = await this.opts.handler(key);
      this.failures.delete(key);
    } catch (e) {
      const backoff = this.failures.get(key) ?? new Backoff(this.opts.retry);
      this.failures.set(key, backoff);
      const retryInMs = backoff.next();
      this.opts.onError(key, e instanceof Error ? e : new Error(String(e)), retryInMs);
      result = { requeueAfterMs: retryInMs };
    }
    this.active.delete(key);
    if (this.stopped) {
      if (this.active.size === 0) for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    if (this.dirty.delete(key)) this.add(key);
    else if (result.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
    this.pump();
  }
}
