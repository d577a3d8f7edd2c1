import * as z from 'zod';
import { lazy } from './lazy.js';
import { API_VERSION, VERSION_FLOOR } from './group.js';
import { celRules, objectMeta } from './common.js';
import { AT_LEAST_FLOOR_PATTERN, FULL_VERSION_PATTERN, meetsVersionFloor, parseVersion } from './version.js';

const FORMAT_MESSAGE = 'must be a full MAJOR.MINOR.PATCH version such as 9.0.1 (no "v" prefix, pre-release suffix or leading zeros)';
const FLOOR_MESSAGE = `must be at least ${VERSION_FLOOR}, the oldest Valkey release valkey-krm runs`;

export const valkeyImageVersion = lazy(() => z
  .string({ error: FORMAT_MESSAGE })
  .max(32)
  .superRefine((value, ctx) => {
    const v = parseVersion(value);
    if (!v) ctx.addIssue({ code: 'custom', message: `${FORMAT_MESSAGE}; got "${value}"` });
    else if (!meetsVersionFloor(v)) ctx.addIssue({ code: 'custom', message: `${FLOOR_MESSAGE}; got "${value}"` });
  })
  .meta({
    description: `The Valkey version the image provides: full MAJOR.MINOR.PATCH, at least ${VERSION_FLOOR}.`,
    ...celRules(
      { rule: `self.matches('${FULL_VERSION_PATTERN.replaceAll('\\', '\\\\')}')`, message: FORMAT_MESSAGE },
      {
        rule: `!self.matches('${FULL_VERSION_PATTERN.replaceAll('\\', '\\\\')}') || self.matches('${AT_LEAST_FLOOR_PATTERN.replaceAll('\\', '\\\\')}')`,
        message: FLOOR_MESSAGE,
      },
    ),
  }));

export const valkeyImageSpec = lazy(() => z
  .object({
    repository: z.string({ error: 'is required: the image repository, e.g. valkey/valkey' }).min(1).max(512)
      .meta({ description: 'Container image repository, for example valkey/valkey.' }),
    tag: z.string({ error: 'is required: an exact, pinned image tag, e.g. "9.0.1" (quote it in YAML)' }).min(1).max(128)
      .meta({ description: 'Container image tag, for example 9.0.1. Joined to repository verbatim.' }),
    version: valkeyImageVersion(),
  })
  .strict());

export const valkeyImage = lazy(() => z
  .object({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal('ValkeyImage'),
    metadata: objectMeta(),
    spec: valkeyImageSpec(),
    status: z.unknown().optional(),
  })
  .strict());

export type ValkeyImage = z.infer<ReturnType<typeof valkeyImage>>;
export type ValkeyImageSpec = z.infer<ReturnType<typeof valkeyImageSpec>>;
