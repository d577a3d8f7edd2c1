// A binary below the floor that never answers INFO: Valkey 8.0.1 refuses the rendered users.acl
// (`+cluster|syncslots`) and exits at start-up. The real 8.0.1 and 9.1.2 servers are started on
// the rendered file, their logs cut as the kubelet cuts a FallbackToLogsOnError termination
// message (the stand-in's logTail), and the pod status carrying it is observed: the 8.0.1 pod is
// rejected by the version its log names, without being dialled; a 9.1.2 start-up failure is not a
// version problem and is dialled as before. (The kube-world half: test/controller/below-floor.integration.test.ts.)
import { spawn } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rejectionMessage, strictPolicy, versionInStartupLog } from '../../src/controller/cluster/version-gate.js';
import type { Pod } from '../../src/controller/kube/types.js';
import { observeNode } from '../../src/controller/valkey/observe-node.js';
import { renderClusterObjects } from '../support/controller/day2-world.js';
import { tempDirs } from '../support/files.js';
import { logTail } from '../support/kubelet/termination.js';
import { cluster, role } from '../support/objects.js';
import { valkeyServerPath, type ValkeyBuild } from '../support/valkey.js';

const dirs = tempDirs('startup-version');
afterAll(() => dirs.cleanup());

const objects = renderClusterObjects<{ kind: string; data?: Record<string, string> }>({ replication: 'r-pass', controller: 'c-pass' }, [
  role('reader'),
  cluster('old', { shards: 1, replicasPerShard: 1 }, 'gate'),
]);
const renderedAcl = objects.find((o) => o.kind === 'ConfigMap')?.data?.['users.acl'] ?? '';

/** Starts `build` on the rendered users.acl with `extra` args; its exit code and the kubelet's log tail. */
async function failedStart(build: ValkeyBuild, extra: string[]): Promise<{ code: number | null; tail: string }> {
  const dir = dirs.make(build);
  writeFileSync(join(dir, 'users.acl'), renderedAcl);
  const logPath = join(dir, 'container.log');
  const log = createWriteStream(logPath);
  const child = spawn(
    valkeyServerPath(build),
    ['--port', '0', '--cluster-enabled', 'yes', '--dir', dir, '--aclfile', join(dir, 'users.acl'), ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // Two sources into one file: neither may end it (the default would, when stdout closes first,
  // and stderr's last words then hit a closed stream); 'close' comes once both have drained.
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  await new Promise((r) => log.end(r));
  return { code, tail: await logTail(logPath) };
}

/** A pod in CrashLoopBackOff whose last termination carries `message`, as the kubelet reports it. */
const crashLooping = (message: string): Pod => ({
  metadata: { name: 'old-0-0', namespace: 'gate', labels: { 'valkey.gomomento.com/shard': '0' } },
  spec: { nodeName: 'node-a' },
  status: {
    phase: 'Running',
    podIP: '10.0.0.7',
    containerStatuses: [
      {
        name: 'valkey',
        ready: false,
        restartCount: 3,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error', message } },
      },
    ],
  },
});

const place = { pod: 'old-0-0', shard: 0, ordinal: 0, ip: '10.0.0.7' };

describe('a container that exits at start-up, judged by the version its log names', () => {
  it('8.0.1 on the rendered users.acl: rejected as below the floor without being dialled, naming the version and what it said', async () => {
    expect(renderedAcl).toContain('+cluster|syncslots');
    const { code, tail } = await failedStart('8.0.1', []);
    expect(code).toBe(1);
    expect(versionInStartupLog(tail)).toBe('8.0.1');
    const dialled: string[] = [];
    const observed = await observeNode(crashLooping(tail), place, {
      open: async (endpoint) => {
        dialled.push(endpoint.host);
        throw new Error('not dialled in this test');
      },
      policy: strictPolicy,
      endpointOf: () => ({ host: '10.0.0.7', port: 6379, busPort: 16379 }),
    });
    expect(dialled).toEqual([]);
    expect(observed.observation).toMatchObject({
      state: 'rejected',
      identity: { kind: 'valkey', version: '8.0.1' },
      verdict: { reason: 'BelowFloor' },
    });
    const o = observed.observation;
    if (o.state !== 'rejected') throw new Error('unreachable');
    const message = rejectionMessage('gate/old-0-0', o.verdict.found);
    console.log(`status message: ${message}`);
    expect(message).toMatch(
      /^Pod gate\/old-0-0 runs valkey_version 8\.0\.1 \(read from its start-up log: its container exits at start-up with "Aborting Valkey startup because of ACL errors: .*'\+cluster\|syncslots': Unknown command or category name in ACL.*"\); valkey-krm requires Valkey 9\.0\.1 or later \(the version floor\), so the node was not joined$/,
    );
  });

  it('9.1.2 failing to start for another reason: its version passes, so the pod is dialled as before', async () => {
    const { code, tail } = await failedStart('9.1.2', ['--no-such-directive', 'yes']);
    expect(code).toBe(1);
    expect(versionInStartupLog(tail) ?? 'none printed before the bad line').not.toBe('8.0.1');
    const dialled: string[] = [];
    const observed = await observeNode(crashLooping(tail), place, {
      open: async (endpoint) => {
        dialled.push(endpoint.host);
        throw new Error('connect ECONNREFUSED');
      },
      policy: strictPolicy,
      endpointOf: () => ({ host: '10.0.0.7', port: 6379, busPort: 16379 }),
    });
    expect(dialled).toEqual(['10.0.0.7']);
    expect(observed.observation).toMatchObject({ state: 'unreachable' });
  });
});
