import { aclCredentials, type AclUserLine, type PasswordHasher } from '../../api/contract/users-acl.js';

/**
 * ACLs: which users a node runs, with their passwords, compared with the rendered `users.acl`.
 * A node whose users and password hashes equal the file's has loaded that file: the renderer's
 * marker user (a disabled user whose one password hash is the file's revision) makes every change
 * of the file a change of some hash, so rules-only edits are caught too. Nothing here depends on
 * the marker's name. Both sides are read by api/contract/users-acl.ts.
 */

/** A user's identity as far as the proof goes: enabled or not, and its password hashes. */
export type AclSignatures = ReadonlyMap<string, string>;

/** Users by name, each as `on|off <hash>,<hash>...`. */
export function aclSignatures(users: readonly AclUserLine[], sha256: PasswordHasher): AclSignatures {
  const out = new Map<string, string>();
  for (const u of users) {
    const { enabled, hashes } = aclCredentials(u.rules, sha256);
    out.set(u.name, `${enabled ? 'on' : 'off'} ${hashes.join(',')}`);
  }
  return out;
}

/** The users whose presence, state or passwords differ, by name (empty: the node runs the file). */
export function aclDifferences(file: AclSignatures, node: AclSignatures): string[] {
  const names = new Set([...file.keys(), ...node.keys()]);
  return [...names].filter((n) => file.get(n) !== node.get(n)).sort();
}

/** A credential as the lockout check needs it: the user and the hash of the password. */
export interface HeldCredential {
  username: string;
  passwordHash: string;
}

/**
 * Why loading `file` would cut the controller or the replicas off, or undefined when it would not.
 * Once loaded, a file that accepts none of the controller's passwords refuses every later AUTH,
 * so not even the revert can be loaded (only restarting every pod recovers); one that drops the
 * password the replicas run with (`masterauth`, fixed when they started) breaks replication until
 * each restarts. So before `ACL LOAD` the file must still accept, with the user enabled, a
 * credential the controller holds and the one each replica authenticates with.
 */
export function aclLockout(
  file: readonly AclUserLine[],
  held: { controller: readonly HeldCredential[]; replication?: HeldCredential },
  sha256: PasswordHasher,
): string | undefined {
  const users = new Map(file.map((u) => [u.name, aclCredentials(u.rules, sha256)]));
  const accepts = (c: HeldCredential): boolean => {
    const u = users.get(c.username);
    return u?.enabled === true && u.hashes.includes(c.passwordHash.toLowerCase());
  };
  const controller = held.controller;
  if (controller.length > 0 && !controller.some(accepts)) {
    const name = controller[0]?.username as string;
    const u = users.get(name);
    const why = u === undefined ? 'has no such user' : !u.enabled ? 'turns the user off' : 'lists none of their hashes';
    return `it would lock the controller out: user ${name} ${why}, and the controller holds ${controller.length === 1 ? 'one password' : `${controller.length} passwords`} for this namespace (add the hash of the namespace's password from the controller's key, docs/security.md, or put the key the file's hash comes from in the controller's Secret)`;
  }
  const r = held.replication;
  if (r && !accepts(r)) {
    const u = users.get(r.username);
    const why = u === undefined ? 'has no such user' : !u.enabled ? 'turns the user off' : 'no longer lists the hash of their password';
    return `it would cut the replicas off: user ${r.username}, as whom they authenticate with the password they started with (masterauth), ${why} (keep the old hash next to the new one until every pod has restarted with the new Secret)`;
  }
  return undefined;
}
