// Real servers in cluster mode standing in for pods: the Valkey development build by default,
// 8.0.1 or Debian's redis-server where a test is about the version gate; and valkey-cli to look
// at them independently of the code under test.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SYSTEM_USERNAMES } from '../../../src/api/index.js';
import type { Endpoint } from '../../../src/controller/cluster/observation.js';
import type { Pod } from '../../../src/controller/kube/types.js';
import { freePorts } from '../process.js';
import { startRedis } from '../redis.js';
import type { RunningServer, StartServerOptions } from '../servers.js';
import { PRE9_BUILDS, SUPPORTED_BUILD, startValkey, valkeyCliPath, type ValkeyBuild } from '../valkey.js';
import { APP_PASSWORD, APP_USER, CONTROLLER_PASSWORD, REPLICATION_PASSWORD, createPod, type PodOptions, type World } from './api-world.js';

const run = promisify(execFile);

/** Where each pod's server listens, by pod uid: the one thing production derives from podIP alone. */
export class EndpointBook {
  private readonly byUid = new Map<string, { port: number; busPort: number }>();
  set(uid: string, port: number, busPort: number): void {
    this.byUid.set(uid, { port, busPort });
  }
  readonly endpointOf = (pod: Pod): Endpoint | undefined => {
    const ip = pod.status?.podIP;
    const e = pod.metadata.uid ? this.byUid.get(pod.metadata.uid) : undefined;
    return ip && e ? { host: ip, ...e } : undefined;
  };
}

export interface NodeServer {
  server: RunningServer;
  port: number;
  busPort: number;
}

/** What a pod runs: a Valkey build, or Redis where the point is "not Valkey at all". */
export type NodeBinary = ValkeyBuild | 'redis';

export interface NodeOptions {
  port?: number;
  /** The cluster bus port (default: a free one); with `port`, a server can take over a dead one's exact address. */
  busPort?: number;
  extraArgs?: string[];
  /** Default: the supported release (9.1.2), which passes the version gate. */
  runs?: NodeBinary;
}

const startBinary = (runs: NodeBinary, opts: StartServerOptions) =>
  runs === 'redis' ? startRedis(opts) : startValkey({ build: runs, ...opts });

/** A real server in cluster mode with the rendered ACL users (node timeout 1 s for fast failure detection). */
export async function startNode(world: World, opts: NodeOptions = {}): Promise<NodeServer> {
  const free = await freePorts(2);
  const port = opts.port ?? (free[0] as number);
  const busPort = opts.busPort ?? (free.find((p) => p !== port) as number);
  const runs = opts.runs ?? SUPPORTED_BUILD;
  const server = await startBinary(runs, {
    port,
    args: [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-port',
      String(busPort),
      '--cluster-node-timeout',
      '1000',
      '--cluster-allow-replica-migration',
      'no',
      '--aclfile',
      (PRE9_BUILDS as readonly NodeBinary[]).includes(runs) || runs === 'redis' ? world.pre9AclPath : world.aclPath,
      '--masteruser',
      SYSTEM_USERNAMES.replication,
      '--masterauth',
      REPLICATION_PASSWORD,
      ...(opts.extraArgs ?? []),
    ],
  });
  return { server, port, busPort };
}

/** Starts a node server and its pod; records where it listens. */
export async function startPod(
  world: World,
  book: EndpointBook,
  p: Omit<PodOptions, 'ip'> & { ip?: string | null } & Omit<NodeOptions, 'port'>,
): Promise<NodeServer & { uid: string; name: string }> {
  const { ip, extraArgs, runs, ...place } = p;
  const node = await startNode(world, { ...(extraArgs ? { extraArgs } : {}), ...(runs ? { runs } : {}) });
  const uid = await createPod(world.api, { ...place, ...(ip === null ? {} : { ip: ip ?? '127.0.0.1' }) });
  book.set(uid, node.port, node.busPort);
  return { ...node, uid, name: `${p.cluster}-${p.shard}-${p.ordinal}` };
}

/** Asks a node with the real valkey-cli, as the controller user; independent of the code under test. */
export async function controllerCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    valkeyCliPath(),
    [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '--user',
      SYSTEM_USERNAMES.controller,
      '--pass',
      CONTROLLER_PASSWORD,
      '--no-auth-warning',
      ...args,
    ],
    { timeout: 5_000 },
  );
  return stdout;
}

/** As the application user, following cluster redirects (`-c`). */
export async function appCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    valkeyCliPath(),
    ['-c', '-h', '127.0.0.1', '-p', String(port), '--user', APP_USER, '--pass', APP_PASSWORD, '--no-auth-warning', ...args],
    { timeout: 5_000 },
  );
  return stdout.trim();
}

export async function clusterInfo(port: number): Promise<Record<string, string>> {
  const text = await controllerCli(port, 'CLUSTER', 'INFO');
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((l) => l.includes(':'))
      .map((l) => l.split(':', 2) as [string, string]),
  );
}

export interface NodeLine {
  id: string;
  port: number;
  flags: string[];
  primary: string;
  slots: string[];
}

export async function clusterNodes(port: number): Promise<NodeLine[]> {
  const text = await controllerCli(port, 'CLUSTER', 'NODES');
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [id, addr, flags, primary, , , , , ...slots] = l.trim().split(' ');
      return {
        id: id as string,
        port: Number(addr?.split('@')[0]?.split(':').pop()),
        flags: (flags ?? '').split(','),
        primary: primary as string,
        slots,
      };
    });
}

export const myId = async (port: number): Promise<string> => (await controllerCli(port, 'CLUSTER', 'MYID')).trim();
