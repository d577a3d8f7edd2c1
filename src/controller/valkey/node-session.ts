import type { Endpoint } from '../cluster/observation.js';
import type { SlotRange } from '../../api/contract/slots.js';
import type { RespValue } from './resp.js';
import { aclPasswordHash } from './digests.js';
import { STATS_SECTIONS } from './node-stats.js';
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
  /** CLUSTER FAILOVER (graceful): sent to a replica, which waits until it has every write. */
  failover(): Promise<void>;
  infoReplication(): Promise<string>;
  /** One INFO of the replication section and what the per-pod Valkey metrics show (valkey/node-stats.ts). */
  infoStats(): Promise<string>;
  /** CONFIG GET of these names, as name → value (names Valkey does not know are left out). */
  configGet(names: readonly string[]): Promise<Map<string, string>>;
  configSet(name: string, value: string): Promise<void>;
  aclLoad(): Promise<void>;
  aclList(): Promise<string[]>;
  /**
   * The controller's credentials for this node (the one that opened it and the others it held for
   * the node's namespace), as user and password hash: what a users.acl must keep accepting.
   */
  heldCredentials(): readonly { username: string; passwordHash: string }[];
  /** The server certificate's SHA-256 fingerprint seen in this session's TLS handshake. */
  peerFingerprint(): string | undefined;
  /** That certificate has expired (let through so the node can be reloaded: resp-connection.ts). */
  peerCertificateExpired(): boolean;
  /** CLUSTER SETSLOT: one step of the classic slot migration protocol. */
  setSlot(slot: number, state: SlotState): Promise<void>;
  getKeysInSlot(slot: number, count: number): Promise<string[]>;
  countKeysInSlot(slot: number): Promise<number>;
  /**
   * MIGRATE of `keys` (all in one slot) to `target`, authenticated there as this session's own user
   * (AUTH2): that user receives the RESTORE-ASKING. `replace` overwrites copies already there.
   * Resolves false when none of the keys existed.
   */
  migrateKeys(target: Pick<Endpoint, 'host' | 'port'>, keys: readonly string[], timeoutMs: number, replace?: boolean): Promise<boolean>;
  /** Whether the server knows `container|subcommand` (COMMAND INFO), e.g. `cluster|migrateslots`. */
  knowsCommand(name: string): Promise<boolean>;
  /** CLUSTER MIGRATESLOTS (Valkey 9.0+), sent to the source: it moves `ranges` to `targetId` on its own. */
  migrateSlotsTo(targetId: string, ranges: readonly SlotRange[]): Promise<void>;
  /** CLUSTER GETSLOTMIGRATIONS: this node's slot imports and exports, running and recently finished. */
  slotMigrations(): Promise<SlotMigrationJob[]>;
  /** CLUSTER CANCELSLOTMIGRATIONS: stops every migration this node runs; false when none was running. */
  cancelSlotMigrations(): Promise<boolean>;
  infoMemory(): Promise<string>;
  /** INFO memory cpu stats in one reply: the autoscaler's sample (valkey/load-info.ts). */
  infoLoad(): Promise<string>;
  /** INFO keyspace: whether a node about to be retired still holds keys. */
  infoKeyspace(): Promise<string>;
  close(): void;
}

/** One entry of CLUSTER GETSLOTMIGRATIONS. `state` is `success`, `failed` or `cancelled` once finished. */
export interface SlotMigrationJob {
  name: string;
  operation: 'IMPORT' | 'EXPORT';
  /** As the server writes them: `0-99 200-299`. */
  slotRanges: string;
  sourceNode: string;
  targetNode: string;
  /** Seconds since the epoch. */
  createTime: number;
  state: string;
  message: string;
}

/** What CLUSTER SETSLOT makes of a slot. */
export type SlotState = { importing: string } | { migrating: string } | { node: string } | 'stable';

/**
 * Opens an authenticated session to a node of a cluster in `namespace` (absent: a caller that has
 * no namespace, such as a test; only a fleet-wide password fits then).
 */
export type OpenSession = (endpoint: Endpoint, tls: TlsOptions | undefined, namespace?: string) => Promise<NodeSession>;

/**
 * The controller's credentials for a namespace's nodes: one, or several to try in order (a key
 * rotation, a migration from the fleet-wide password). Only WRONGPASS moves on to the next.
 */
export type CredentialSource = (namespace: string | undefined) => Promise<Credentials | readonly Credentials[]>;

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
  'CONFIG GET',
  'CONFIG SET',
  'ACL LOAD',
  'ACL LIST',
  'CLUSTER SETSLOT',
  'CLUSTER GETKEYSINSLOT',
  'CLUSTER COUNTKEYSINSLOT',
  'MIGRATE',
  'COMMAND INFO',
  'CLUSTER MIGRATESLOTS',
  'CLUSTER GETSLOTMIGRATIONS',
  'CLUSTER CANCELSLOTMIGRATIONS',
] as const;
export type NodeCommand = (typeof NODE_COMMANDS)[number];

/** Told the round-trip time of each command that got a reply (an error reply included). */
export type CommandTimer = (command: NodeCommand, seconds: number) => void;

function setSlotArgs(slot: number, state: SlotState): string[] {
  const head = ['CLUSTER', 'SETSLOT', String(slot)];
  if (state === 'stable') return [...head, 'STABLE'];
  if ('importing' in state) return [...head, 'IMPORTING', state.importing];
  if ('migrating' in state) return [...head, 'MIGRATING', state.migrating];
  return [...head, 'NODE', state.node];
}

function text(reply: RespValue, what: string): string {
  if (typeof reply !== 'string') throw new NodeUnavailableError(`${what}: expected a string reply, got ${JSON.stringify(reply)}`);
  return reply;
}

function strings(reply: RespValue, what: string): string[] {
  if (!Array.isArray(reply) || !reply.every((r) => typeof r === 'string'))
    throw new NodeUnavailableError(`${what}: expected an array of strings, got ${JSON.stringify(reply)}`);
  return reply as string[];
}

/** A flat `[name, value, ...]` reply (RESP2), as a Map. */
function pairs(reply: RespValue): Map<string, string> {
  const flat = strings(reply, 'CONFIG GET');
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) out.set(flat[i] as string, flat[i + 1] as string);
  return out;
}

/** Tries each credential in turn; the first accepted is the session's. WRONGPASS tries the next, anything else fails. */
async function authenticate(given: Credentials | readonly Credentials[], auth: (c: Credentials) => Promise<unknown>): Promise<Credentials> {
  const list: readonly Credentials[] = Array.isArray(given) ? given : [given as Credentials];
  let refused: unknown = new Error('no controller credential to try');
  for (const c of list) {
    try {
      await auth(c);
      return c;
    } catch (e) {
      if (!(e instanceof CommandError && e.code === 'WRONGPASS')) throw e;
      refused = e;
    }
  }
  throw refused;
}

/** One GETSLOTMIGRATIONS entry: a flat `[field, value, ...]` array in RESP2. */
function slotMigrationJob(entry: RespValue): SlotMigrationJob {
  if (!Array.isArray(entry))
    throw new NodeUnavailableError(`CLUSTER GETSLOTMIGRATIONS: expected an array per job, got ${JSON.stringify(entry)}`);
  const f = new Map<string, RespValue>();
  for (let i = 0; i + 1 < entry.length; i += 2) f.set(String(entry[i]), entry[i + 1] as RespValue);
  const str = (k: string): string => (typeof f.get(k) === 'string' ? (f.get(k) as string) : '');
  const operation = str('operation');
  if (operation !== 'IMPORT' && operation !== 'EXPORT')
    throw new NodeUnavailableError(`CLUSTER GETSLOTMIGRATIONS: unknown operation ${JSON.stringify(operation)}`);
  return {
    name: str('name'),
    operation,
    slotRanges: str('slot_ranges'),
    sourceNode: str('source_node'),
    targetNode: str('target_node'),
    createTime: Number(f.get('create_time') ?? 0),
    state: str('state'),
    message: str('message'),
  };
}

/** A session factory bound to the controller's credentials and timeouts. */
export function sessionOpener(credentials: CredentialSource, timeouts: NodeTimeouts, timer?: CommandTimer): OpenSession {
  return async (endpoint, tls, namespace) => {
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
    let auth: Credentials;
    const given = await credentials(namespace);
    const held = (Array.isArray(given) ? given : [given as Credentials]).map((c) => ({
      username: c.username,
      passwordHash: aclPasswordHash(c.password),
    }));
    try {
      auth = await authenticate(given, (c) => call('AUTH', ['AUTH', c.username, c.password]));
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
      failover: () => ok('CLUSTER FAILOVER', ['CLUSTER', 'FAILOVER']),
      infoReplication: async () => text(await call('INFO', ['INFO', 'replication']), 'INFO replication'),
      infoStats: async () => text(await call('INFO', ['INFO', ...STATS_SECTIONS]), `INFO ${STATS_SECTIONS.join(' ')}`),
      configGet: async (names) => pairs(await call('CONFIG GET', ['CONFIG', 'GET', ...names])),
      configSet: (name, value) => ok('CONFIG SET', ['CONFIG', 'SET', name, value]),
      aclLoad: () => ok('ACL LOAD', ['ACL', 'LOAD']),
      aclList: async () => strings(await call('ACL LIST', ['ACL', 'LIST']), 'ACL LIST'),
      heldCredentials: () => held,
      peerFingerprint: () => conn.peerFingerprint(),
      peerCertificateExpired: () => conn.peerCertificateExpired(),
      setSlot: (slot, state) => ok('CLUSTER SETSLOT', setSlotArgs(slot, state)),
      getKeysInSlot: async (slot, count) => {
        const reply = await call('CLUSTER GETKEYSINSLOT', ['CLUSTER', 'GETKEYSINSLOT', String(slot), String(count)]);
        if (!Array.isArray(reply) || !reply.every((k) => typeof k === 'string'))
          throw new NodeUnavailableError('CLUSTER GETKEYSINSLOT: expected keys');
        return reply as string[];
      },
      countKeysInSlot: async (slot) => {
        const reply = await call('CLUSTER COUNTKEYSINSLOT', ['CLUSTER', 'COUNTKEYSINSLOT', String(slot)]);
        if (typeof reply !== 'number') throw new NodeUnavailableError('CLUSTER COUNTKEYSINSLOT: expected a number');
        return reply;
      },
      migrateKeys: async (t, keys, timeoutMs, replace = false) => {
        const args = ['MIGRATE', t.host, String(t.port), '', '0', String(timeoutMs), ...(replace ? ['REPLACE'] : [])];
        args.push('AUTH2', auth.username, auth.password, 'KEYS', ...keys);
        return (await call('MIGRATE', args)) === 'OK';
      },
      knowsCommand: async (name) => {
        const reply = await call('COMMAND INFO', ['COMMAND', 'INFO', name]);
        return Array.isArray(reply) && reply.length > 0 && reply[0] !== null;
      },
      migrateSlotsTo: (targetId, ranges) =>
        ok('CLUSTER MIGRATESLOTS', [
          'CLUSTER',
          'MIGRATESLOTS',
          'SLOTSRANGE',
          ...ranges.flatMap(([a, b]) => [String(a), String(b)]),
          'NODE',
          targetId,
        ]),
      slotMigrations: async () => {
        const reply = await call('CLUSTER GETSLOTMIGRATIONS', ['CLUSTER', 'GETSLOTMIGRATIONS']);
        if (!Array.isArray(reply)) throw new NodeUnavailableError('CLUSTER GETSLOTMIGRATIONS: expected an array');
        return reply.map(slotMigrationJob);
      },
      cancelSlotMigrations: async () => {
        try {
          await call('CLUSTER CANCELSLOTMIGRATIONS', ['CLUSTER', 'CANCELSLOTMIGRATIONS']);
          return true;
        } catch (e) {
          if (e instanceof CommandError && /no migrations ongoing/i.test(e.reply.message)) return false;
          throw e;
        }
      },
      infoMemory: async () => text(await call('INFO', ['INFO', 'memory']), 'INFO memory'),
      infoKeyspace: async () => text(await call('INFO', ['INFO', 'keyspace']), 'INFO keyspace'),
      infoLoad: async () => text(await call('INFO', ['INFO', 'memory', 'cpu', 'stats']), 'INFO memory cpu stats'),
      close: () => conn.close(),
    };
  };
}
