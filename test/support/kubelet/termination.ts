// How the kubelet describes a container that exited: exit code (128 + signal number when killed),
// reason, and for terminationMessagePolicy FallbackToLogsOnError, when it failed, the tail of its
// log (the kubelet's limits: the last 80 lines, at most 2048 bytes). The stand-in's processes
// cannot write /dev/termination-log, so the File policy always yields no message.
import { readFile } from 'node:fs/promises';
import { constants } from 'node:os';
import type { Container } from './pod.js';
import type { TerminatedState } from './pod-status.js';

const MAX_LINES = 80;
const MAX_BYTES = 2048;

export async function logTail(logPath: string): Promise<string> {
  const text = await readFile(logPath, 'utf8').catch(() => '');
  const lines = text.replace(/\n$/, '').split('\n').slice(-MAX_LINES).join('\n');
  const bytes = Buffer.from(lines, 'utf8');
  return bytes.length <= MAX_BYTES ? lines : bytes.subarray(bytes.length - MAX_BYTES).toString('utf8');
}

export async function terminatedState(opts: {
  container: Container;
  code: number | null;
  signal: NodeJS.Signals | null;
  logPath: string;
  startedAt: string;
  containerID: string;
}): Promise<TerminatedState> {
  const signalNumber = opts.signal === null ? undefined : constants.signals[opts.signal];
  const exitCode = opts.code ?? 128 + (signalNumber ?? 0);
  const failed = exitCode !== 0;
  const message = failed && opts.container.terminationMessagePolicy === 'FallbackToLogsOnError' ? await logTail(opts.logPath) : '';
  return {
    exitCode,
    ...(signalNumber === undefined ? {} : { signal: signalNumber }),
    reason: failed ? 'Error' : 'Completed',
    ...(message === '' ? {} : { message }),
    startedAt: opts.startedAt,
    finishedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    containerID: opts.containerID,
  };
}
