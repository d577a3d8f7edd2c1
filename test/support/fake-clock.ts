import type { Clock } from '../../src/controller/runtime/clock.js';

/** A clock tests move by hand: timers and sleeps fire only inside `advance`. */
export class FakeClock implements Clock {
  private t = Date.UTC(2026, 0, 1);
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 0;

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.t + Math.max(0, ms), fn, id });
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id);
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = (): void => {
        cancel();
        resolve();
      };
      const cancel = this.setTimer(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward, firing due timers in order, letting promise chains run in between. */
  async advance(ms: number): Promise<void> {
    const until = this.t + ms;
    for (;;) {
      await flush();
      const due = this.timers.filter((x) => x.at <= until).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = until;
    await flush();
  }
}

/** Lets pending promise callbacks (and I/O callbacks already queued) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}
