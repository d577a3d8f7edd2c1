import { ACL_REVISION_USERNAME } from '../api/index.js';

/**
 * Reads back what the renderer wrote into a cluster's ConfigMap. The plan compares these parsed
 * forms, not the texts, so a comment or a line's position never counts as a change.
 */

/** `valkey.conf` → directive name → value, as written (later lines win, like Valkey reads them). */
export function parseValkeyConf(text: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const space = line.indexOf(' ');
    const name = space < 0 ? line : line.slice(0, space);
    settings.set(name, space < 0 ? '' : line.slice(space + 1));
  }
  return settings;
}

export interface AclUser {
  /** Password hashes without their `#`. */
  hashes: Set<string>;
  /** Everything else on the line (on/off, channels, selectors), in order. */
  rules: string;
}

/**
 * `users.acl` → username → its hashes and rules. The revision marker (a disabled user whose hash
 * is the file's revision, for the controller to prove a load) is bookkeeping, not a user: left out.
 */
export function parseUsersAcl(text: string): Map<string, AclUser> {
  const users = new Map<string, AclUser>();
  for (const raw of text.split('\n')) {
    const tokens = raw.trim().split(/\s+/);
    if (tokens[0] !== 'user' || tokens[1] === undefined || tokens[1] === ACL_REVISION_USERNAME) continue;
    const hashes = new Set<string>();
    const rules: string[] = [];
    for (const token of tokens.slice(2)) {
      if (token.startsWith('#')) hashes.add(token.slice(1));
      else rules.push(token);
    }
    users.set(tokens[1], { hashes, rules: rules.join(' ') });
  }
  return users;
}
