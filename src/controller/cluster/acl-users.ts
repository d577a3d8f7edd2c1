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
