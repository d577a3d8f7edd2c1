import { ACL_REVISION_USERNAME } from '../group.js';

/**
 * `users.acl`, written by the renderer and read back by the plan (what changed) and the controller
 * (which file a node loaded, compared with `ACL LIST`, which prints the same form). Valkey's loader
 * (acl.c `ACLLoadFromFile`) trims each line of spaces, tabs, `\r` and `\n`, skips an empty one,
 * splits the rest at single spaces (no quoting, unlike valkey.conf), wants `user <name>` first,
 * and joins a selector written over several words, `(` to `)`, back into one rule.
 */

/** One `user` line: the name and its rules in order, each selector one rule. */
export interface AclUserLine {
  name: string;
  rules: string[];
}

const TRIM = /^[ \t\r\n]+|[ \t\r\n]+$/g;

/** Lines of users.acl, or of `ACL LIST`, into users in file order (other lines are not users). */
export function readAclLines(lines: readonly string[]): AclUserLine[] {
  const users: AclUserLine[] = [];
  for (const raw of lines) {
    const line = raw.replace(TRIM, '');
    if (line === '') continue;
    const [keyword, name, ...words] = line.split(' ');
    if (keyword !== 'user' || name === undefined) continue;
    users.push({ name, rules: mergeSelectors(words) });
  }
  return users;
}

export const readUsersAcl = (text: string): AclUserLine[] => readAclLines(text.split('\n'));

/** `(`...`)` spread over several words is one selector (acl.c `ACLMergeSelectorArguments`). */
function mergeSelectors(words: readonly string[]): string[] {
  const out: string[] = [];
  let open: string | undefined;
  for (const w of words) {
    if (open === undefined && w.startsWith('(') && !w.endsWith(')')) open = w;
    else if (open !== undefined) {
      open = `${open} ${w}`;
      if (w.endsWith(')')) {
        out.push(open);
        open = undefined;
      }
    } else out.push(w);
  }
  if (open !== undefined) out.push(open);
  return out;
}

/** A password's hash as Valkey keeps it (hex SHA-256); the controller passes the real one. */
export type PasswordHasher = (password: string) => string;

/** Whether a rule sets or removes a password (`#hash`, `>password`, `!hash`, `<password`). */
export const isPasswordRule = (rule: string): boolean => /^[#><!]/.test(rule);

/** Who may log in as the user: on or off, and its password hashes (sorted, lowercase). */
export interface AclCredentials {
  enabled: boolean;
  hashes: string[];
}

/** The credentials the rules leave, applied in order as Valkey applies them. */
export function aclCredentials(rules: readonly string[], sha256: PasswordHasher): AclCredentials {
  let enabled = false;
  const hashes = new Set<string>();
  for (const r of rules) {
    if (r === 'on') enabled = true;
    else if (r === 'off') enabled = false;
    else if (r === 'nopass' || r === 'resetpass' || r === 'reset') hashes.clear();
    else if (r.startsWith('#')) hashes.add(r.slice(1).toLowerCase());
    else if (r.startsWith('>')) hashes.add(sha256(r.slice(1)));
    else if (r.startsWith('!')) hashes.delete(r.slice(1).toLowerCase());
    else if (r.startsWith('<')) hashes.delete(sha256(r.slice(1)));
  }
  return { enabled, hashes: [...hashes].sort() };
}

/** The revision marker (a disabled user whose one hash is the file's revision) is bookkeeping, not a user. */
export const isRevisionMarker = (user: AclUserLine): boolean => user.name === ACL_REVISION_USERNAME;

/** The writer of one user line. */
export const aclUserLine = (name: string, rules: readonly string[]): string => ['user', name, ...rules].join(' ');

/**
 * The last line of `users.acl`: a user that can never log in (`off`, no commands), whose one
 * password hash is `revision`, the sha256 of the lines above it. After `ACL LOAD`, the controller
 * reads it back with `ACL GETUSER` to prove which file the node loaded: the kubelet projects a
 * changed ConfigMap with a delay, and a load of the old file succeeds just as well.
 */
export const aclRevisionLine = (revision: string): string =>
  `${aclUserLine(ACL_REVISION_USERNAME, ['off', `#${revision}`, 'resetchannels', '-@all'])}\n`;
