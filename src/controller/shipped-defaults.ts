/**
 * The timings the shipped controller (`valkey-status-sync`, main.ts) runs with: a pass with work
 * in progress is queued again after `progressMs`, a healthy cluster is read again every
 * `resyncMs`. Tests that make claims about how fast the product is (scaling) start the controller
 * with these, not with faster test timings.
 */
export const SHIPPED_TIMING = { progressMs: 2_000, resyncMs: 30_000, failedResyncMs: 30_000 } as const;
export const SHIPPED_RETRY_BACKOFF = { initialMs: 1_000, maxMs: 60_000, jitter: 0.2 } as const;
/** `--node-timeout`'s default: connect and command timeout per node. */
export const SHIPPED_NODE_TIMEOUT_MS = 3_000;
/**
 * `--valkey-metrics-seconds`' default: each pod's Valkey metrics figures are read at most this often,
 * in a pass (an Active cluster's pass comes every resyncMs, so there they are read every pass).
 */
export const SHIPPED_VALKEY_METRICS_MS = 15_000;
