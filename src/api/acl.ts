import { z } from 'zod';
import { refName } from './common.js';

export const PASSWORD_HASH = /^[0-9a-f]{64}$/;
export const HASH_HINT =
  'must be 64 lowercase hex characters, the SHA-256 of the password: printf %s "$PASSWORD" | sha256sum | cut -d" " -f1';

export const passwordHash = z.string({ error: HASH_HINT }).regex(PASSWORD_HASH, { error: HASH_HINT });

/** ACL file tokens are whitespace separated: nothing here may contain whitespace. */
const token = (what: string) =>
  z
    .string({ error: `must be ${what}` })
    .min(1, { error: `must be ${what}` })
    .max(256)
    .regex(/^\S+$/, { error: `must be ${what} without whitespace` });

export const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@:-]*$/;
export const username = z
  .string({ error: 'must be a username' })
  .min(1)
  .max(128)
  .regex(USERNAME, { error: "must be a username of letters, digits, '.', '_', '@', ':' and '-'" });

export const keyAccess = z.enum(['read', 'write', 'readwrite'], { error: 'must be one of read, write, readwrite' });

export const keyPermission = z
  .object({
    pattern: token('a key pattern such as "sessions:*"'),
    access: keyAccess,
  })
  .strict();

export const aclPermission = z
  .object({
    roleRef: refName('ValkeyRole'),
    keys: z.array(keyPermission).max(64),
    channels: z.array(token('a channel pattern')).max(64).optional(),
  })
  .strict();

export const aclBinding = z
  .object({
    username,
    passwordHashes: z.array(passwordHash).min(1, { error: 'needs at least one password hash' }).max(16),
    permissions: z.array(aclPermission).min(1, { error: 'needs at least one permission' }).max(32),
  })
  .strict();

export const aclBindings = z.array(aclBinding).max(256);

export type AclBinding = z.infer<typeof aclBinding>;
export type AclPermission = z.infer<typeof aclPermission>;
