import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { VERSION_FLOOR } from './group.js';
import { celRules, kindObject } from './common.js';
import { AT_LEAST_FLOOR_PATTERN, FULL_VERSION_PATTERN, meetsVersionFloor, parseVersion } from './version.js';

const FORMAT_MESSAGE = 'must be a full MAJOR.MINOR.PATCH version such as 9.0.1 (no "v" prefix, pre-release suffix or leading zeros)';
const FLOOR_MESSAGE = `must be at least ${VERSION_FLOOR}, the oldest Valkey release valkey-krm runs`;

export const valkeyImageVersion = lazy(() =>
  z.string({ error: FORMAT_MESSAGE }).check(
    z.maxLength(32),
    z.superRefine((value, ctx) => {
      const v = parseVersion(value);
      if (!v) ctx.addIssue({ code: 'custom', message: `${FORMAT_MESSAGE}; got "${value}"` });
      else if (!meetsVersionFloor(v)) ctx.addIssue({ code: 'custom', message: `${FLOOR_MESSAGE}; got "${value}"` });
    }),
    z.meta({
      description: `The Valkey version the image provides: full MAJOR.MINOR.PATCH, at least ${VERSION_FLOOR}.`,
      ...celRules(
        { rule: `self.matches('${FULL_VERSION_PATTERN.replaceAll('\\', '\\\\')}')`, message: FORMAT_MESSAGE },
        {
          rule: `!self.matches('${FULL_VERSION_PATTERN.replaceAll('\\', '\\\\')}') || self.matches('${AT_LEAST_FLOOR_PATTERN.replaceAll('\\', '\\\\')}')`,
          message: FLOOR_MESSAGE,
        },
      ),
    }),
  ),
);

export const valkeyImageSpec = lazy(() =>
  z.strictObject({
    repository: z
      .string({ error: 'is required: the image repository, e.g. valkey/valkey' })
      .check(z.minLength(1), z.maxLength(512), z.meta({ description: 'Container image repository, for example valkey/valkey.' })),
    tag: z
      .string({ error: 'is required: an exact, pinned image tag, e.g. "9.0.1" (quote it in YAML)' })
      .check(
        z.minLength(1),
        z.maxLength(128),
        z.meta({ description: 'Container image tag, for example 9.0.1. Joined to repository verbatim.' }),
      ),
    version: valkeyImageVersion(),
  }),
);

export const valkeyImage = lazy(() => kindObject('ValkeyImage', valkeyImageSpec()));

export type ValkeyImage = z.infer<ReturnType<typeof valkeyImage>>;
export type ValkeyImageSpec = z.infer<ReturnType<typeof valkeyImageSpec>>;
