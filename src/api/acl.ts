import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { refName } from './common.js';

export const PASSWORD_HASH = /^[0-9a-f]{64}$/;
export const HASH_HINT =
  'must be 64 lowercase hex characters, the SHA-256 of the password: printf %s "$PASSWORD" | sha256sum | cut -d" " -f1';

export const passwordHash = lazy(() => z.string({ error: HASH_HINT }).check(z.regex(PASSWORD_HASH, { error: HASH_HINT })));

// Valkey splits ACL rules like a shell: whitespace separates them and quotes are parsed, so a
// pattern with either would silently become another rule. Nor control characters: Valkey 9.1.2
// crashes (SIGSEGV) loading a users.acl with a NUL in a selector's pattern, at start-up and on
// the controller's ACL LOAD alike, so every node of the cluster goes down; the others would be
// printed raw into logs and terminals. One class, in \x escapes, reads the same in JavaScript
// and in the API server's RE2 (their \S differ), and makes one CRD pattern.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this pattern is about
export const TOKEN = /^[^\x00-\x20\x7f-\x9f"']+$/;

/** ACL file tokens are whitespace separated: nothing here may contain whitespace. */
const token = (what: string) =>
  z.string({ error: `must be ${what}` }).check(
    z.minLength(1, { error: `must be ${what}` }),
    z.maxLength(256),
    z.regex(TOKEN, {
      error: `must be ${what} without whitespace, quotes or control characters (NUL, ESC, DEL...)`,
    }),
    // Each permission is written as one selector, `(+@read ~keys &channels)`, and Valkey ends a
    // selector at the first rule that ends in ')': such a pattern would close it early and turn
    // the rest into rules of the user itself.
    z.refine((s) => !s.endsWith(')'), { error: `must be ${what} not ending in ")" (it would close the ACL selector early)` }),
  );

export const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@:-]*$/;
export const username = lazy(() =>
  z
    .string({ error: 'must be a username' })
    .check(
      z.minLength(1),
      z.maxLength(128),
      z.regex(USERNAME, { error: "must be a username of letters, digits, '.', '_', '@', ':' and '-'" }),
    ),
);

export const keyAccess = lazy(() => z.enum(['read', 'write', 'readwrite'], { error: 'must be one of read, write, readwrite' }));

export const keyPermission = lazy(() =>
  z.strictObject({
    pattern: token('a key pattern such as "sessions:*"').check(z.meta({ description: 'A glob over key names, e.g. sessions:*.' })),
    access: keyAccess().check(z.meta({ description: 'read (%R~), write (%W~) or readwrite (~).' })),
  }),
);

export const aclPermission = lazy(() =>
  z.strictObject({
    roleRef: refName('ValkeyRole').check(z.meta({ description: 'The ValkeyRole whose commands this permission grants.' })),
    keys: z.array(keyPermission()).check(z.maxLength(64), z.meta({ description: 'The keys the role applies to.' })),
    channels: z
      .optional(z.array(token('a channel pattern')).check(z.maxLength(64)))
      .check(z.meta({ description: 'Pub/sub channel patterns the user may use.' })),
  }),
);

export const aclBinding = lazy(() =>
  z.strictObject({
    username: username().check(z.meta({ description: 'The ACL user name clients authenticate as.' })),
    passwordHashes: z
      .array(passwordHash())
      .check(
        z.minLength(1, { error: 'needs at least one password hash' }),
        z.maxLength(16),
        z.meta({ description: 'SHA-256 hex digests of the accepted passwords; several allow rotation.' }),
      ),
    permissions: z
      .array(aclPermission())
      .check(
        z.minLength(1, { error: 'needs at least one permission' }),
        z.maxLength(32),
        z.meta({ description: 'One ACL selector per permission: the role, on these keys and channels.' }),
      ),
  }),
);

export const aclBindings = lazy(() => z.array(aclBinding()).check(z.maxLength(256)));

export type AclBinding = z.infer<ReturnType<typeof aclBinding>>;
export type AclPermission = z.infer<ReturnType<typeof aclPermission>>;
