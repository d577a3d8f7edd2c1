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

// The image reference grammar of distribution/reference (what kubelet and containerd parse):
// [domain[:port]/]path-component(/path-component)*, then ':' and a tag.
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
/** A repository: an optional registry host (and port), then lowercase path components; no tag or digest. */
export const IMAGE_REPOSITORY_PATTERN = `^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`;
/** A tag: a word character, then up to 127 word characters, '.' or '-'. */
export const IMAGE_TAG_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$';
export const IMAGE_REPOSITORY = new RegExp(IMAGE_REPOSITORY_PATTERN);
export const IMAGE_TAG = new RegExp(IMAGE_TAG_PATTERN);
const REPOSITORY_MESSAGE =
  'must be an image repository such as valkey/valkey or registry.example.com:5000/team/valkey (lowercase path, no tag or digest: the tag goes in spec.tag)';
const TAG_MESSAGE = "must be an image tag: letters, digits, '_', '.' and '-', not starting with '.' or '-', at most 128 characters";

export const valkeyImageSpec = lazy(() =>
  z.strictObject({
    repository: z
      .string({ error: 'is required: the image repository, e.g. valkey/valkey' })
      .check(
        z.minLength(1, { error: REPOSITORY_MESSAGE }),
        z.maxLength(255, { error: 'must be at most 255 characters (the image name limit)' }),
        z.regex(IMAGE_REPOSITORY, { error: REPOSITORY_MESSAGE }),
        z.meta({ description: 'Container image repository, for example valkey/valkey.' }),
      ),
    tag: z
      .string({ error: 'is required: an exact, pinned image tag, e.g. "9.0.1" (quote it in YAML)' })
      .check(
        z.minLength(1, { error: TAG_MESSAGE }),
        z.maxLength(128, { error: TAG_MESSAGE }),
        z.regex(IMAGE_TAG, { error: TAG_MESSAGE }),
        z.meta({ description: 'Container image tag, for example 9.0.1. Joined to repository verbatim.' }),
      ),
    version: valkeyImageVersion(),
  }),
);

export const valkeyImage = lazy(() => kindObject('ValkeyImage', valkeyImageSpec()));

export type ValkeyImage = z.infer<ReturnType<typeof valkeyImage>>;
export type ValkeyImageSpec = z.infer<ReturnType<typeof valkeyImageSpec>>;
