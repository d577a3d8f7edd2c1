import type { Endpoint } from '../cluster/observation.js';
import type { SlotRange } from '../cluster/slots.js';
import type { RespValue } from './resp.js';
import { CommandError, connectResp, NodeUnavailableError, type TlsOptions } from './resp-connection.js';

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

/** Every command a session sends, by the name it is timed under: a closed set, fit for a metric label. */
export const NODE_COMMANDS = [
  'AUTH',
  'INFO',
  'CLUSTER NODES',
  'CLUSTER INFO',
  'CLUSTER MEET',
  'CLUSTER ADDSLOTSRANGE',
  'CLUSTER REPLICATE',
  'CLUSTER FORGET',
  'CLUSTER FAILOVER',
] as const;
export type NodeCommand = (typeof NODE_COMMANDS)[number];

/** Told the round-trip time of each command that got a reply (an error reply included). */
export type CommandTimer = (command: NodeCommand, seconds: number) => void;

function text(reply: RespValue, what: string): string {
  if (typeof reply !== 'string') throw new NodeUnavailableError(`${what}: expected a string reply, got ${JSON.stringify(reply)}`);
  return reply;
}

/** A session factory bound to the controller's credentials and timeouts. */
export function sessionOpener(credentials: () => Promise<Credentials>, timeouts: NodeTimeouts, timer?: CommandTimer): OpenSession {
  return async (endpoint, tls) => {
    const conn = await connectResp({
      host: endpoint.host,
      port: endpoint.port,
      ...(tls ? { tls } : {}),
      connectTimeoutMs: timeouts.connectMs,
      commandTimeoutMs: timeouts.commandMs,
    });
    const call = async (command: NodeCommand, args: readonly string[]): Promise<RespValue> => {
      const started = performance.now();
      const timed = (): void => timer?.(command, (performance.now() - started) / 1000);
      try {
        const reply = await conn.call(args);
        timed();
        return reply;
      } catch (e) {
        // An error reply is a round trip too; no reply at all (a timeout, a closed connection) is not.
        if (e instanceof CommandError) timed();
        throw e;
      }
    };
    try {
      const { username, password } = await credentials();
      await call('AUTH', ['AUTH', username, password]);
    } catch (e) {
      conn.close();
      throw e;
    }
    const ok = async (command: NodeCommand, args: string[]): Promise<void> => {
      await call(command, args);
    };
    return {
      infoServer: async () => text(await call('INFO', ['INFO', 'server']), 'INFO server'),
      clusterNodes: async () => text(await call('CLUSTER NODES', ['CLUSTER', 'NODES']), 'CLUSTER NODES'),
      clusterInfo: async () => text(await call('CLUSTER INFO', ['CLUSTER', 'INFO']), 'CLUSTER INFO'),
      meet: (t) => ok('CLUSTER MEET', ['CLUSTER', 'MEET', t.host, String(t.port), String(t.busPort)]),
      addSlotsRange: (ranges) =>
        ok('CLUSTER ADDSLOTSRANGE', ['CLUSTER', 'ADDSLOTSRANGE', ...ranges.flatMap(([a, b]) => [String(a), String(b)])]),
      replicate: (id) => ok('CLUSTER REPLICATE', ['CLUSTER', 'REPLICATE', id]),
      forget: (id) => ok('CLUSTER FORGET', ['CLUSTER', 'FORGET', id]),
      takeover: () => ok('CLUSTER FAILOVER', ['CLUSTER', 'FAILOVER', 'TAKEOVER']),
      close: () => conn.close(),
    };
  };
}
