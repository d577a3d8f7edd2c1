// The real node's teardown leaves nothing behind: not after a clean stop, and not after a crash
// (every daemon SIGKILLed with pods running) followed by the next start of the same world, which
// must clean up first and come up Ready again.
import { afterAll, describe, expect, it } from 'vitest';
import { nodeImages } from '../support/node/images.js';
import { layoutOf } from '../support/node/layout.js';
import { startRealNode, type RealNode } from '../support/node/real-node.js';
import { hostSnapshot, leftovers, netnsInode, runcContainers } from '../support/node/teardown.js';
import { waitFor } from '../support/process.js';
import { figure } from '../support/node/node-suite.js';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const MIN = 60_000;
const NAME = 'teardown';

/** A pod with two long-running containers from the Valkey image: something for runc to leave behind. */
const sleeper = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: {
    automountServiceAccountToken: false,
    containers: ['a', 'b'].map((c) => ({ name: c, image: 'valkey/valkey:9.1.2', command: ['sleep', '3600'] })),
  },
});

describe('the real node teardown', () => {
  let node: RealNode | undefined;
  afterAll(async () => {
    await node?.stop();
  }, 5 * MIN);

  const runningPod = async (n: RealNode, name: string): Promise<void> => {
    await n.apply([sleeper(name)]);
    await waitFor(
      `pod ${name} Running`,
      async () =>
        (await n.json<{ status?: { phase?: string } }>('GET', `/api/v1/namespaces/default/pods/${name}`)).status?.phase === 'Running',
      { timeoutMs: 3 * MIN, intervalMs: 500 },
    );
  };

  it(
    'after a crash, the next start cleans up and comes up; after stop nothing is left',
    async () => {
      const images = (await nodeImages()).archives;
      const layout = layoutOf(NAME);
      const host = await hostSnapshot();

      const first = await startRealNode({ name: NAME, images });
      node = first;
      const firstNetns = netnsInode(layout.netnsPath);
      await runningPod(first, 'sleeper');
      const firstContainers = await runcContainers(layout);
      expect(firstContainers.length).toBeGreaterThanOrEqual(3); // the sandbox and both containers

      // The crash: every daemon of the node SIGKILLed at once, pods left running.
      for (const f of readdirSync(layout.pids)) process.kill(Number(readFileSync(join(layout.pids, f), 'utf8')), 'SIGKILL');
      expect(await runcContainers(layout)).toEqual(firstContainers);

      const t = Date.now();
      const second = await startRealNode({ name: NAME, images });
      node = second;
      figure(`teardown: the crashed node cleaned and a new one Ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      // The new node runs under the same directory and netns name: only what belongs to the first one
      // counts here (its netns by inode, unless the kernel gave the new one the same number).
      const secondNetns = netnsInode(layout.netnsPath);
      const gone = await leftovers(layout, {
        netnsInode: firstNetns,
        containerIds: firstContainers,
        cniNetnsBefore: host.cniNetnsBefore,
        sysctlsBefore: [],
      });
      expect(gone.filter((g) => /cgroup/.test(g) || (secondNetns !== firstNetns && /in the node's netns/.test(g)))).toEqual([]);
      expect(await runcContainers(layout)).toEqual([]);
      await runningPod(second, 'sleeper-2');
      const secondContainers = await runcContainers(layout);

      await second.stop();
      node = undefined;
      for (const probe of [
        { netnsInode: firstNetns, containerIds: firstContainers },
        { netnsInode: secondNetns, containerIds: secondContainers },
      ])
        expect(await leftovers(layout, { ...probe, ...host })).toEqual([]);
    },
    20 * MIN,
  );
});
