import { aclCredentials, isPasswordRule, isRevisionMarker, readUsersAcl } from '../api/contract/users-acl.js';
import { readValkeyConf } from '../api/contract/valkey-conf.js';

/**
 * What the renderer wrote into a cluster's ConfigMap, in the forms the plan compares (read by the
 * contract readers in api/contract/), so a comment or a line's position never counts as a change.
 */

/** `valkey.conf` → directive name → its arguments as written (later lines win, like Valkey reads them). */
export function settingsOf(text: string): Map<string, string> {
  return new Map(readValkeyConf(text).directives.map((d) => [d.name, d.written]));
}

export interface AclUser {
  /** Password hashes without their `#`. */
  hashes: Set<string>;
  /** Everything else on the line (on/off, channels, selectors), in order. */
  rules: string;
}

/** The renderer writes hashes only (`#<hex>`), never plain passwords, so nothing is hashed here. */
const noPlainPasswords = (password: string): string => `>${password}`;

/** `users.acl` → username → its hashes and rules; the revision marker is left out (it is not a user). */
export function usersOf(text: string): Map<string, AclUser> {
  const users = new Map<string, AclUser>();
  for (const user of readUsersAcl(text)) {
    if (isRevisionMarker(user)) continue;
    const hashes = new Set(aclCredentials(user.rules, noPlainPasswords).hashes);
    users.set(user.name, { hashes, rules: user.rules.filter((r) => !isPasswordRule(r)).join(' ') });
  }
  return users;
}
