import { createServer, type Socket } from 'node:net';
import { freePort } from '../../harness/process.js';

export interface SilentServer {
  port: number;
  close(): Promise<void>;
}

/** A loopback server that accepts connections and never answers: a node that hangs. */
export async function startSilentServer(): Promise<SilentServer> {
  const port = await freePort();
  const sockets: Socket[] = [];
  const server = createServer((s) => sockets.push(s));
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
