import { Backoff, type BackoffOptions } from './backoff.js';
import type { Clock } from './clock.js';

/**
 * Per-key backoff for an operation retried across reconcile passes (an ACL load a node refused):
 * after a failure the key is blocked for a growing delay; a success clears it. Only pacing lives
 * here, never a decision: a restarted controller merely retries sooner.
 */
export class RetryGate {
  private readonly keys = new Map<string, { backoff: Backoff; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly opts: BackoffOptions,
  ) {}

  blocked(key: string): boolean {
    const k = this.keys.get(key);
    return k !== undefined && this.clock.now() < k.until;
  }

  /** Records a failure; returns how long the key is now blocked. */
  failed(key: string): number {
    const k = this.keys.get(key) ?? { backoff: new Backoff(this.opts), until: 0 };
    const delay = k.backoff.next();
    k.until = this.clock.now() + delay;
    this.keys.set(key, k);
    return delay;
  }

  succeeded(key: string): void {
    this.keys.delete(key);
  }
}
