import { aclUserLine } from '../api/contract/users-acl.js';
import { SYSTEM_USERNAMES, type AclBinding, type AclPermission, type ValkeyRole } from '../api/index.js';

/**
 * Without a `user default` line Valkey recreates `default` with full access, so the file always
 * has one: default may only PING (the probes), and reaches no keys or channels.
 */
export const DEFAULT_USER_LINE = 'user default on nopass resetchannels -@all +ping';

/**
 * What replicas need to sync, plus what Valkey 9's atomic slot migration asks of the primary user,
 * plus `role` and `cluster|nodes` for the readiness probe (probes.ts), which asks as this user.
 */
export const REPLICATION_RULES = '-@all +psync +sync +replconf +ping +role +cluster|nodes +cluster|syncslots +select +@write ~*';

/**
 * The controller administers the cluster and reaches keys only to move them between shards. Slot
 * migration runs `MIGRATE ... AUTH2 <controller> ...` on the source, which makes the target run
 * `SELECT` and `RESTORE-ASKING` as the controller: those three need every key, so they sit in a
 * selector of their own, and the root permissions still reach no key. `COMMAND INFO` tells
 * whether a node has Valkey 9's atomic slot migration.
 */
export const CONTROLLER_RULES =
  '-@all +ping +info +role +cluster +acl|load +acl|list +acl|getuser +acl|whoami +config|get +config|set +failover +client|list +client|kill +client|setname +readonly +readwrite +wait +command|info (+migrate +restore-asking +select ~*)';

/**
 * The root permissions of every user a binding renders, before its role selectors: what a
 * cluster-mode client library needs before it runs a single keyed command, so an application role
 * only has to list what the application does with its keys. By group:
 * - connection: `ping`, `hello` (RESP3 and AUTH in one), `echo`, and `client setname|setinfo|id`,
 *   which client libraries send on every new connection;
 * - topology: `cluster slots|shards|nodes|info|myid`, how a client finds which node owns a slot and
 *   refreshes that map after MOVED;
 * - replica reads: `readonly` and `readwrite`, sent by clients that read from replicas;
 * - ASK redirects: `asking`, which a client sends before retrying a command on a slot being
 *   migrated;
 * - command introspection: `command docs|info|count`, which libraries use to find a command's keys
 *   (to route it) and whether it is read-only.
 * None of these reads or writes a key or a channel: the user reaches keys and channels only
 * through its selectors.
 */
export const CLIENT_BASELINE_RULES =
  '-@all +ping +hello +echo +client|setname +client|setinfo +client|id +cluster|slots +cluster|shards +cluster|nodes +cluster|info +cluster|myid +readonly +readwrite +asking +command|docs +command|info +command|count';

export interface SystemUserHashes {
  replication: string;
  /** One or more: a namespace's own, and during a migration or key rotation the other. */
  controller: readonly string[];
}

const KEY_PREFIX = { read: '%R~', write: '%W~', readwrite: '~' } as const;

/** One selector per permission: the role's categories and commands, then keys, then channels. */
export function renderSelector(permission: AclPermission, role: ValkeyRole): string {
  const parts: string[] = [];
  for (const c of role.spec.categories ?? []) parts.push(`${c.access === 'allow' ? '+' : '-'}@${c.name}`);
  for (const c of role.spec.commands ?? []) parts.push(`${c.access === 'allow' ? '+' : '-'}${c.name}`);
  for (const k of permission.keys) parts.push(`${KEY_PREFIX[k.access]}${k.pattern}`);
  for (const ch of permission.channels ?? []) parts.push(`&${ch}`);
  return `(${parts.join(' ')})`;
}

export function renderBinding(binding: AclBinding, roles: ReadonlyMap<string, ValkeyRole>): string {
  const hashes = binding.passwordHashes.map((h) => `#${h}`);
  const selectors = binding.permissions.map((p) => renderSelector(p, roles.get(p.roleRef) as ValkeyRole));
  return aclUserLine(binding.username, ['on', ...hashes, 'resetchannels', CLIENT_BASELINE_RULES, ...selectors]);
}

/**
 * `users.acl`: default, the two system users, the platform's bindings, then the team's. Valkey's
 * ACL file has no comments, so the order is the only structure.
 */
export function renderUsersAcl(
  platform: readonly AclBinding[],
  team: readonly AclBinding[],
  roles: ReadonlyMap<string, ValkeyRole>,
  hashes: SystemUserHashes,
): string {
  const lines = [
    DEFAULT_USER_LINE,
    aclUserLine(SYSTEM_USERNAMES.replication, ['on', `#${hashes.replication}`, 'resetchannels', REPLICATION_RULES]),
    aclUserLine(SYSTEM_USERNAMES.controller, ['on', ...hashes.controller.map((h) => `#${h}`), 'resetchannels', CONTROLLER_RULES]),
    ...platform.map((b) => renderBinding(b, roles)),
    ...team.map((b) => renderBinding(b, roles)),
  ];
  return `${lines.join('\n')}\n`;
}
