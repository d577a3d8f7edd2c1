import type { NodeSession } from './node-session.js';

/** Sends the graceful failover and waits until the replica says it is the primary. */
export async function failoverAndConfirm(
  session: NodeSession,
  sleep: (ms: number) => Promise<void>,
  timeoutMs = 15_000,
): Promise<'ok' | 'timeout'> {
  await session.failover();
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const self = (await session.clusterNodes()).split('\n').find((l) => l.includes('myself'));
    if (self && /(^|,)master(,|$)/.test(self.split(' ')[2] ?? '')) return 'ok';
    await sleep(100);
  }
  return 'timeout';
}
