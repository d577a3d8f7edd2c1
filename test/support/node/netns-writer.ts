// A client writing and reading throughout a real-node case: writer-main.ts as a process inside the
// node's network namespace, stopped at the end of the case with its report (acknowledged writes,
// lost writes, the longest pause), which is printed with the case's name.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SYSTEM_USERNAMES } from '../../../src/api/index.js';
import type { WriterReport } from '../controller/cluster-writer.js';
import { repoPath } from '../paths.js';
import { inNetns } from './layout.js';
import type { RealNode } from './real-node.js';
import type { WriterMainConfig } from './writer-main.js';

export interface NetnsWriter {
  /** Stops writing, reads every acknowledged key back, prints and returns the report. */
  stop(): Promise<WriterReport>;
}

export interface NetnsWriterOptions {
  namespace: string;
  cluster: string;
  /** The most shards the cluster has during the case (pauses are kept per shard). */
  shards: number;
  controllerPassword: string;
  app: { username: string; password: string };
  /** The case's name: the key prefix and the label of the printed line. */
  label: string;
  /** A TLS cluster: the CA, the client certificate and key, the Service's name for the seeds. */
  tls?: WriterMainConfig['tls'];
}

export async function startNetnsWriter(node: RealNode, o: NetnsWriterOptions): Promise<NetnsWriter> {
  const cfg: WriterMainConfig = {
    proxySocket: node.layout.proxySocket,
    namespace: o.namespace,
    cluster: o.cluster,
    shards: o.shards,
    prefix: `app:${o.label.replace(/[^a-z0-9]+/gi, '-')}`,
    admin: { username: SYSTEM_USERNAMES.controller, password: o.controllerPassword },
    app: o.app,
    ...(o.tls ? { tls: o.tls } : {}),
  };
  const [cmd, args] = inNetns(node.layout, process.execPath, [
    '--import',
    'tsx',
    repoPath('test/support/node/writer-main.ts'),
    JSON.stringify(cfg),
  ]);
  const child: ChildProcessWithoutNullStreams = spawn(cmd, args, { cwd: repoPath(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.value !== 'started') throw new Error(`writer for ${o.label} did not start: ${String(first.value)}\n${stderr}`);
  const startedAt = Date.now();
  return {
    async stop() {
      child.stdin.write('stop\n');
      const line = await lines.next();
      if (line.done) throw new Error(`writer for ${o.label} ended without a report:\n${stderr}`);
      const report = JSON.parse(line.value as string) as WriterReport;
      const pause = Math.max(0, ...report.longestPauseMs);
      process.stdout.write(
        `[real node] ${o.label}: ${report.acknowledged} acknowledged writes over ${((Date.now() - startedAt) / 1000).toFixed(0)} s, ` +
          `${report.lost} lost, ${report.failedAttempts} refused attempts, longest pause ${pause} ms\n`,
      );
      return report;
    },
  };
}
