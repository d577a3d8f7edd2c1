// An application on the cluster while slots move: iovalkey's Cluster client (it follows MOVED and
// ASK itself, as applications do) loads keys spread over all slots, then writers keep setting them
// to increasing versions and reading them back. Every acknowledged version is remembered, so at
// the end a key holding less than its last acknowledged version is a lost write.
import { Cluster } from 'iovalkey';
import { APP_USER } from './slot-cluster.js';

export interface WorkloadReport {
  writes: number;
  reads: number;
  /** Keys whose final value is older than their last acknowledged write. */
  lostWrites: number;
  /** Reads that returned an older version than one already acknowledged. */
  staleReads: number;
  /** Errors that reached the application (MOVED and ASK never do: the client follows them), by message. */
  errors: Record<string, number>;
  /** The longest a single command took, in ms: what a client saw as a pause. */
  maxPauseMs: number;
  /** ASK and MOVED redirects the client followed (counted where iovalkey reads the error). */
  askRedirects: number;
  movedRedirects: number;
}

/** Counts the redirects a Cluster client follows: iovalkey reports them to no one, so its error handler is wrapped. */
function countRedirects(client: Cluster, report: WorkloadReport): void {
  const target = client as unknown as { handleError: (error: Error, ...rest: unknown[]) => unknown };
  const original = target.handleError.bind(client);
  target.handleError = (error, ...rest) => {
    if (error.message.startsWith('ASK ')) report.askRedirects++;
    else if (error.message.startsWith('MOVED ')) report.movedRedirects++;
    return original(error, ...rest);
  };
}

export interface Workload {
  /**
   * Stops the writers, reads every key back and reports. `seed`: where to read from when the
   * first seed may be gone (a roll re-creates every pod, with new addresses).
   */
  stop(seed?: Seed): Promise<WorkloadReport>;
  /** ASK redirects followed so far (to tell one phase of a run from another). */
  askRedirects(): number;
}

/** A seed node: a port on 127.0.0.1, or a host and port (a pod IP in the kube world). */
export type Seed = number | { host: string; port: number };

export function clusterClient(seed: Seed, password: string, autoPipelining = false): Cluster {
  const client = new Cluster([typeof seed === 'number' ? { host: '127.0.0.1', port: seed } : seed], {
    redisOptions: { username: APP_USER, password },
    enableAutoPipelining: autoPipelining,
    maxRedirections: 64,
    retryDelayOnTryAgain: 50,
    retryDelayOnClusterDown: 100,
  });
  // A node going away (a roll, a failover) is an 'error' event as well as a failed command: the
  // commands' failures are what a workload counts, so the events need no second report.
  client.on('error', () => {});
  return client;
}

const keyOf = (i: number): string => `key:${i}`;

/** Sets `count` keys to version 0, in parallel chunks. */
export async function loadKeys(client: Cluster, count: number, chunk = 5_000): Promise<void> {
  for (let start = 0; start < count; start += chunk) {
    const sets: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(count, start + chunk); i++) sets.push(client.set(keyOf(i), '0'));
    await Promise.all(sets);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function startWorkload(port: Seed, password: string, keyCount: number, writers = 4): Workload {
  const client = clusterClient(port, password);
  const acked = new Int32Array(keyCount);
  const report: WorkloadReport = {
    writes: 0,
    reads: 0,
    lostWrites: 0,
    staleReads: 0,
    errors: {},
    maxPauseMs: 0,
    askRedirects: 0,
    movedRedirects: 0,
  };
  countRedirects(client, report);
  const fail = (e: unknown): void => {
    const m = (e instanceof Error ? e.message : String(e)).slice(0, 80);
    report.errors[m] = (report.errors[m] ?? 0) + 1;
  };
  const timed = async <T>(op: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await op();
    } finally {
      report.maxPauseMs = Math.max(report.maxPauseMs, performance.now() - started);
    }
  };
  let running = true;
  const loop = async (w: number): Promise<void> => {
    const own = Math.floor(keyCount / writers);
    while (running) {
      const i = w + writers * Math.floor(Math.random() * own);
      const version = (acked[i] as number) + 1;
      try {
        await timed(() => client.set(keyOf(i), String(version)));
        acked[i] = version;
        report.writes++;
      } catch (e) {
        fail(e);
        await sleep(10);
      }
      const j = w + writers * Math.floor(Math.random() * own);
      try {
        const value = await timed(() => client.get(keyOf(j)));
        report.reads++;
        if (value === null || Number(value) < (acked[j] as number)) report.staleReads++;
      } catch (e) {
        fail(e);
        await sleep(10);
      }
    }
  };
  const loops = Array.from({ length: writers }, (_, w) => loop(w));
  return {
    askRedirects: () => report.askRedirects,
    async stop(seed?: Seed) {
      running = false;
      await Promise.all(loops);
      client.disconnect();
      // Not auto-pipelined: iovalkey's pipelines do not follow ASK, so a read during a migration would fail.
      const checker = clusterClient(seed ?? port, password);
      try {
        for (let start = 0; start < keyCount; start += 5_000) {
          const idx = Array.from({ length: Math.min(5_000, keyCount - start) }, (_, k) => start + k);
          const values = await Promise.all(idx.map((i) => checker.get(keyOf(i))));
          for (const [k, v] of values.entries()) if (v === null || Number(v) < (acked[idx[k] as number] as number)) report.lostWrites++;
        }
      } finally {
        checker.disconnect();
      }
      return report;
    },
  };
}
