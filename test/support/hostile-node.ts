// A node that speaks RESP and answers whatever the test scripts: it passes the version gate
// (INFO server says Valkey 9.1.2) and then lies in CLUSTER NODES, or just records who talked to
// it and what they sent (a tenant's pod collecting credentials). Listens on 127.0.0.1 or on the
// address the test gives (inside a network namespace the test made).
import { createServer, type Server, type Socket } from 'node:net';
import { RespParser } from '../../src/controller/valkey/resp.js';

export interface HostileNodeScript {
  /** The CLUSTER NODES text (default: one myself line holding all 16384 slots). */
  clusterNodes?: string;
  clusterInfo?: string;
  /** Answer every AUTH with WRONGPASS, as a node fishing for the controller's next credential would. */
  refuseAuth?: boolean;
  /** The error text sent for every command but AUTH and INFO server (a node's words reaching status). */
  errorText?: string;
  /** The INFO server reply (default: Valkey 9.1.2 in cluster mode). */
  infoServer?: string;
}

export interface HostileNode {
  readonly port: number;
  /** Every command received, first word(s) and all arguments, in order. */
  readonly received: string[][];
  close(): Promise<void>;
}

const ID = 'ffffffffffffffffffffffffffffffffffffffff';
export const ALL_SLOTS_LINE = `${ID} 127.0.0.1:6379@16379 myself,master - 0 0 99 connected 0-16383`;

const bulk = (s: string): string => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;

export async function startHostileNode(script: HostileNodeScript = {}, host = '127.0.0.1', port = 0): Promise<HostileNode> {
  const received: string[][] = [];
  const sockets = new Set<Socket>();
  const answer = (args: string[]): string => {
    const [cmd = '', sub = ''] = args.map((a) => a.toUpperCase());
    if (cmd === 'AUTH' && script.refuseAuth) return '-WRONGPASS invalid username-password pair or user is disabled.\r\n';
    if (cmd === 'AUTH' || cmd === 'PING') return '+OK\r\n';
    if (script.errorText !== undefined && !(cmd === 'INFO' && sub === 'SERVER')) return `-${script.errorText}\r\n`;
    if (cmd === 'INFO' && sub === 'SERVER') return bulk(script.infoServer ?? '# Server\r\nvalkey_version:9.1.2\r\nserver_mode:cluster\r\n');
    if (cmd === 'INFO') return bulk('# Replication\r\nrole:master\r\nmaster_repl_offset:0\r\n');
    if (cmd === 'CLUSTER' && sub === 'NODES') return bulk(script.clusterNodes ?? `${ALL_SLOTS_LINE}\n`);
    if (cmd === 'CLUSTER' && sub === 'INFO')
      return bulk(script.clusterInfo ?? 'cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_known_nodes:1\r\ncluster_size:1\r\n');
    return '+OK\r\n';
  };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const parser = new RespParser();
    socket.on('data', (chunk) => {
      try {
        parser.push(chunk);
        for (let v = parser.next(); v !== undefined; v = parser.next()) {
          const args = Array.isArray(v) ? v.map(String) : [String(v)];
          received.push(args);
          socket.write(answer(args));
        }
      } catch {
        socket.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('hostile node: no port');
  return {
    port: address.port,
    received,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
