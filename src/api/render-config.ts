import * as z from 'zod';
import { lazy } from './lazy.js';
import { API_VERSION } from './group.js';
import { objectMeta } from './common.js';
import { passwordHash } from './acl.js';
import { zoneSpread } from './valkey-cluster.js';

export const RENDER_CONFIG_KIND = 'ValkeyRenderConfig';

const systemUser = (defaultSecret: string) =>
  z
    .object({
      passwordHash: passwordHash(),
      secretName: z
        .string()
        .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, { error: 'must be a Secret name' })
        .default(defaultSecret),
    })
    .strict();

export const renderConfigSpec = lazy(() => z
  .object({
    outputDir: z
      .string()
      .min(1)
      .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), {
        error: 'must be a relative path inside the package (no leading "/" and no "..")',
      })
      .default('rendered'),
    clusterDomain: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, { error: 'must be a DNS domain such as cluster.local' })
      .default('cluster.local'),
    defaultZoneSpread: zoneSpread().default('bestEffort'),
    systemUsers: z
      .object(
        {
          replication: systemUser('valkey-replication'),
          controller: systemUser('valkey-controller'),
        },
        { error: 'is required: the password hashes of the replication and controller users' },
      )
      .strict(),
  })
  .strict());

export const renderConfig = lazy(() => z
  .object({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal(RENDER_CONFIG_KIND),
    metadata: objectMeta(),
    spec: renderConfigSpec(),
  })
  .strict());

export type RenderConfig = z.output<ReturnType<typeof renderConfigSpec>>;

/** The ConfigMap form (kpt `configMap:`) uses these flattened keys. */
export const FLAT_RENDER_CONFIG_KEYS = {
  outputDir: ['outputDir'],
  clusterDomain: ['clusterDomain'],
  defaultZoneSpread: ['defaultZoneSpread'],
  'systemUsers.replication.passwordHash': ['systemUsers', 'replication', 'passwordHash'],
  'systemUsers.replication.secretName': ['systemUsers', 'replication', 'secretName'],
  'systemUsers.controller.passwordHash': ['systemUsers', 'controller', 'passwordHash'],
  'systemUsers.controller.secretName': ['systemUsers', 'controller', 'secretName'],
} as const;

export const SYSTEM_USERS_HINT = [
  'Create each password and its hash, then the Secrets, for example:',
  '  PASSWORD=$(openssl rand -hex 32); printf %s "$PASSWORD" | sha256sum | cut -d" " -f1   # -> passwordHash',
  '  kubectl -n <cluster namespace> create secret generic valkey-replication --from-literal=password="$PASSWORD"',
  '  kubectl -n <controller namespace> create secret generic valkey-controller --from-literal=password="$PASSWORD"   # with the controller password',
  'and put the hashes under spec.systemUsers.replication.passwordHash and spec.systemUsers.controller.passwordHash.',
].join('\n');
