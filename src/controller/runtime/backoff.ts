/**
 * Capped exponential backoff: initial, initial*factor, ... up to max. Pure: the caller sleeps.
 * `jitter` (0..1) spreads retries of many watchers; tests pass a fixed `random`.
 */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor?: number;
  jitter?: number;
  random?: () => number;
}

export class Backoff {
  private attempt = 0;

  constructor(private readonly opts: BackoffOptions) {}

  /** The delay before the next retry; each call grows the following one. */
  next(): number {
    const { initialMs, maxMs, factor = 2, jitter = 0, random = Math.random } = this.opts;
    const base = Math.min(maxMs, initialMs * factor ** this.attempt);
    if (base < maxMs) this.attempt++;
    const spread = base * jitter * random();
    return Math.round(Math.min(maxMs, base + spread));
  }

  reset(): void {
    this.attempt = 0;
  }
}
