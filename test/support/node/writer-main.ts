// The writer of a real-node test, as a process inside the node's network namespace (the pods' IPs
// exist only there): ClusterWriter (one key after another, every acknowledged write read back at
// the end) seeded from the cluster's pod IPs, read through the API proxy's Unix socket.
//   node --import tsx writer-main.ts '<WriterMainConfig as JSON>'
// Prints "started" once writing; on a line "stop" on stdin it stops, prints the report as one JSON
// line and exits.
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { ClusterWriter, type WriterOptions } from '../controller/cluster-writer.js';

export interface WriterMainConfig {
  proxySocket: string;
  namespace: string;
  cluster: string;
  shards: number;
  prefix: string;
  admin: { username: string; password: string };
  app: { username: string; password: string };
  /** A TLS cluster: ClusterWriter's TLS options. */
  tls?: WriterOptions['tls'];
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as WriterMainConfig;

const podIps = (): Promise<string[]> =>
  new Promise((resolve) => {
    const path = `/api/v1/namespaces/${cfg.namespace}/pods?labelSelector=${encodeURIComponent(`valkey.gomomento.com/cluster=${cfg.cluster}`)}`;
    const req = request({ socketPath: cfg.proxySocket, path, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => {
        try {
          const items = (JSON.parse(body) as { items: { status?: { podIP?: string } }[] }).items;
          resolve(items.flatMap((p) => (p.status?.podIP ? [p.status.podIP] : [])));
        } catch {
          resolve([]);
        }
      });
    });
    req.on('error', () => resolve([]));
    req.on('timeout', () => req.destroy());
    req.end();
  });

const writer = new ClusterWriter({
  seeds: podIps,
  admin: cfg.admin,
  app: cfg.app,
  shards: cfg.shards,
  prefix: cfg.prefix,
  ...(cfg.tls ? { tls: cfg.tls } : {}),
});
writer.start();
process.stdout.write('started\n');
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (line.trim() !== 'stop') return;
  rl.close();
  void writer.stop().then((report) => {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.exit(0);
  });
});
