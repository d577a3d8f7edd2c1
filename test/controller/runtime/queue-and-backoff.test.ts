import { describe, expect, it } from 'vitest';
import { Backoff } from '../../../src/controller/runtime/backoff.js';
import { mapLimit } from '../../../src/controller/runtime/map-limit.js';
import { WorkQueue, type WorkResult } from '../../../src/controller/runtime/work-queue.js';
import { FakeClock, flush } from '../../support/fake-clock.js';

describe('Backoff', () => {
  it('doubles from the initial delay up to the cap, and starts over after reset', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1000 });
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([100, 200, 400, 800, 1000, 1000]);
    b.reset();
    expect(b.next()).toBe(100);
  });

  it('adds jitter on top, never beyond the cap', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 250, jitter: 0.5, random: () => 1 });
    expect([b.next(), b.next(), b.next()]).toEqual([150, 250, 250]);
  });
});

function deferred(): { promise: Promise<WorkResult>; resolve: (r: WorkResult) => void } {
  let resolve!: (r: WorkResult) => void;
  const promise = new Promise<WorkResult>((r) => (resolve = r));
  return { promise, resolve };
}

describe('WorkQueue', () => {
  it('a slow key holds one worker; other keys keep flowing', async () => {
    const clock = new FakeClock();
    const slow = deferred();
    const done: string[] = [];
    const q = new WorkQueue({
      concurrency: 2,
      clock,
      retry: { initialMs: 10, maxMs: 100 },
      handler: async (key) => {
        if (key === 'slow') return slow.promise;
        done.push(key);
        return {};
      },
      onError: () => {},
    });
    q.add('slow');
    for (const k of ['a', 'b', 'c']) q.add(k);
    await flush();
    expect(done).toEqual(['a', 'b', 'c']);
    slow.resolve({});
    await flush();
    expect(q.size).toBe(0);
  });

  it('never runs one key twice at once; an add while it runs runs it once more afterwards', async () => {
    const clock = new FakeClock();
    const gates: ReturnType<typeof deferred>[] = [];
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const q = new WorkQueue({
      concurrency: 4,
      clock,
      retry: { initialMs: 10, maxMs: 100 },
      handler: async () => {
        runs++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        const g = deferred();
        gates.push(g);
        const r = await g.promise;
        running--;
        return r;
      },
      onError: () => {},
    });
    q.add('k');
    await flush();
    q.add('k');
    q.add('k');
    await flush();
    expect(runs).toBe(1);
    gates[0]?.resolve({});
    await flush();
    expect(runs).toBe(2);
    gates[1]?.resolve({});
    await flush();
    expect(maxRunning).toBe(1);
    expect(runs).toBe(2);
  });

  it('requeues after the delay the handler asks for; an earlier add wins over a later timer', async () => {
    const clock = new FakeClock();
    const seen: number[] = [];
    const q = new WorkQueue({
      concurrency: 1,
      clock,
      retry: { initialMs: 10, maxMs: 100 },
      handler: async () => {
        seen.push(clock.now());
        return { requeueAfterMs: 1000 };
      },
      onError: () => {},
    });
    const t0 = clock.now();
    q.add('k');
    await clock.advance(999);
    expect(seen.map((t) => t - t0)).toEqual([0]);
    await clock.advance(1);
    expect(seen.map((t) => t - t0)).toEqual([0, 1000]);
    q.add('k'); // an event: now, not at 2000
    await flush();
    expect(seen.map((t) => t - t0)).toEqual([0, 1000, 1000]);
    await q.shutdown();
    expect(clock.pending).toBe(0);
  });

  it('retries a failing key with growing delays, reports each failure, and resets on success', async () => {
    const clock = new FakeClock();
    const errors: [string, string, number][] = [];
    let failuresLeft = 3;
    let successes = 0;
    const q = new WorkQueue({
      concurrency: 1,
      clock,
      retry: { initialMs: 100, maxMs: 1000 },
      handler: async () => {
        if (failuresLeft-- > 0) throw new Error('apiserver said no');
        successes++;
        return {};
      },
      onError: (key, error, retryInMs) => errors.push([key, error.message, retryInMs]),
    });
    q.add('k');
    await clock.advance(100 + 200 + 400);
    expect(errors).toEqual([
      ['k', 'apiserver said no', 100],
      ['k', 'apiserver said no', 200],
      ['k', 'apiserver said no', 400],
    ]);
    expect(successes).toBe(1);
  });

  it('shutdown waits for work in flight and refuses new work', async () => {
    const clock = new FakeClock();
    const g = deferred();
    let finished = false;
    const q = new WorkQueue({
      concurrency: 1,
      clock,
      retry: { initialMs: 10, maxMs: 100 },
      handler: async () => {
        await g.promise;
        finished = true;
        return { requeueAfterMs: 5 };
      },
      onError: () => {},
    });
    q.add('k');
    await flush();
    const stopped = q.shutdown();
    q.add('other');
    g.resolve({});
    await stopped;
    expect(finished).toBe(true);
    expect(clock.pending).toBe(0);
    expect(q.size).toBe(0);
  });
});

describe('mapLimit', () => {
  it('keeps at most `limit` calls in flight and the results in input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });
});
