/**
 * ACLs: which users a node runs, with their passwords, compared with the rendered `users.acl`.
 * A node whose users and password hashes equal the file's has loaded that file: the renderer's
 * marker user (a disabled user whose one password hash is the file's revision) makes every change
 * of the file a change of some hash, so rules-only edits are caught too. Nothing here depends on
 * the marker's name.
 */

/** A user's identity as far as the proof goes: enabled or not, and its password hashes. */
export type AclUsers = ReadonlyMap<string, string>;

/** A password's hash as Valkey keeps it (hex SHA-256); valkey/digests.ts has the real one. */
export type PasswordHasher = (password: string) => string;

/** One `user <name> <rule>...` line, as users.acl holds it and `ACL LIST` prints it. */
function userSignature(rules: readonly string[], sha256: PasswordHasher): string {
  let enabled = false;
  const hashes = new Set<string>();
  for (const r of rules) {
    if (r === 'on') enabled = true;
    else if (r === 'off') enabled = false;
    else if (r === 'nopass' || r === 'resetpass') hashes.clear();
    else if (r.startsWith('#')) hashes.add(r.slice(1).toLowerCase());
    else if (r.startsWith('>')) hashes.add(sha256(r.slice(1)));
    else if (r.startsWith('!')) hashes.delete(r.slice(1).toLowerCase());
    else if (r.startsWith('<')) hashes.delete(sha256(r.slice(1)));
  }
  return `${enabled ? 'on' : 'off'} ${[...hashes].sort().join(',')}`;
}

/** users.acl text, or the lines of `ACL LIST`, into users by name. */
export function parseAclUsers(lines: readonly string[], sha256: PasswordHasher): AclUsers {
  const users = new Map<string, string>();
  for (const raw of lines) {
    const [keyword, name, ...rules] = raw.trim().split(/\s+/);
    if (keyword !== 'user' || name === undefined) continue;
    users.set(name, userSignature(rules, sha256));
  }
  return users;
}

export const parseAclFile = (text: string, sha256: PasswordHasher): AclUsers => parseAclUsers(text.split('\n'), sha256);

/** The users whose presence, state or passwords differ, by name (empty: the node runs the file). */
export function aclDifferences(file: AclUsers, node: AclUsers): string[] {
  const names = new Set([...file.keys(), ...node.keys()]);
  return [...names].filter((n) => file.get(n) !== node.get(n)).sort();
}
