import type { Endpoint } from './formation.js';
import type { RespValue } from './resp.js';
import { connectResp, NodeUnavailableError, type TlsOptions } from './resp-client.js';
import type { SlotRange } from './slots.js';

export interface Credentials {
  username: string;
  password: string;
}

export interface NodeTimeouts {
  connectMs: number;
  commandMs: number;
}

/** One authenticated connection to one node, with the handful of commands the controller sends. */
export interface NodeSession {
  infoServer(): Promise<string>;
  clusterNodes(): Promise<string>;
  clusterInfo(): Promise<string>;
  meet(target: Endpoint): Promise<void>;
  addSlotsRange(ranges: readonly SlotRange[]): Promise<void>;
  replicate(primaryId: string): Promise<void>;
  forget(nodeId: string): Promise<void>;
  /** CLUSTER FAILOVER TAKEOVER: only when the old primary is known to be gone. */
  takeover(): Promise<void>;
  close(): void;
}

export type OpenSession = (endpoint: Endpoint, tls: TlsOptions | undefined) => Promise<NodeSession>;

function text(reply: RespValue, what: string): string {
  if (typeof reply !== 'string') throw new NodeUnavailableError(`${what}: expected a string reply, got ${JSON.stringify(reply)}`);
  return reply;
}

/** A session factory bound to the controller's credentials and timeouts. */
export function sessionOpener(credentials: () => Promise<Credentials>, timeouts: NodeTimeouts): OpenSession {
  return async (endpoint, tls) => {
    const conn = await connectResp({
      host: endpoint.host,
      port: endpoint.port,
      ...(tls ? { tls } : {}),
      connectTimeoutMs: timeouts.connectMs,
      commandTimeoutMs: timeouts.commandMs,
    });
    try {
      const { username, password } = await credentials();
      await conn.call(['AUTH', username, password]);
    } catch (e) {
      conn.close();
      throw e;
    }
    const ok = async (args: string[]): Promise<void> => {
      await conn.call(args);
    };
    return {
      infoServer: async () => text(await conn.call(['INFO', 'server']), 'INFO server'),
      clusterNodes: async () => text(await conn.call(['CLUSTER', 'NODES']), 'CLUSTER NODES'),
      clusterInfo: async () => text(await conn.call(['CLUSTER', 'INFO']), 'CLUSTER INFO'),
      meet: (t) => ok(['CLUSTER', 'MEET', t.host, String(t.port), String(t.busPort)]),
      addSlotsRange: (ranges) => ok(['CLUSTER', 'ADDSLOTSRANGE', ...ranges.flatMap(([a, b]) => [String(a), String(b)])]),
      replicate: (id) => ok(['CLUSTER', 'REPLICATE', id]),
      forget: (id) => ok(['CLUSTER', 'FORGET', id]),
      takeover: () => ok(['CLUSTER', 'FAILOVER', 'TAKEOVER']),
      close: () => conn.close(),
    };
  };
}
