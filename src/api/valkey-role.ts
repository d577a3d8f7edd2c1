import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { kindObject } from './common.js';

/** An ACL category's name, without "@". */
export const ROLE_CATEGORY_NAME = /^[a-z]+$/;
/** A command's name, or `command|subcommand`. */
export const ROLE_COMMAND_NAME = /^[A-Za-z][A-Za-z0-9_.-]*(\|[A-Za-z0-9_.-]+)?$/;

export const access = lazy(() => z.enum(['allow', 'deny'], { error: 'must be allow or deny' }));

export const roleCategory = lazy(() =>
  z.strictObject({
    name: z
      .string()
      .check(z.regex(ROLE_CATEGORY_NAME, { error: 'must be an ACL category name without "@", such as read, write or dangerous' })),
    access: access(),
  }),
);

export const roleCommand = lazy(() =>
  z.strictObject({
    name: z.string().check(
      z.regex(ROLE_COMMAND_NAME, {
        error: 'must be a command name such as get, or command|subcommand such as config|get',
      }),
    ),
    access: access(),
  }),
);

export const valkeyRoleSpec = lazy(() =>
  z.strictObject({
    categories: z
      .optional(z.array(roleCategory()).check(z.maxLength(64)))
      .check(z.meta({ description: 'ACL categories, applied in order as +@name or -@name.' })),
    commands: z
      .optional(z.array(roleCommand()).check(z.maxLength(256)))
      .check(z.meta({ description: 'Commands, applied after the categories as +name or -name.' })),
  }),
);

export const valkeyRole = lazy(() => kindObject('ValkeyRole', valkeyRoleSpec()));

export type ValkeyRole = z.infer<ReturnType<typeof valkeyRole>>;
