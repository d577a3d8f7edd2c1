import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { API_VERSION } from './group.js';
import { DNS1123_SUBDOMAIN, LABEL_VALUE_PATTERN, isNamespaceName, isQualifiedName, objectMeta } from './common.js';
import { passwordHash } from './acl.js';
import { zoneSpread } from './valkey-cluster.js';

export const RENDER_CONFIG_KIND = 'ValkeyRenderConfig';

const systemUser = (defaultSecret: string) =>
  z.strictObject({
    passwordHash: passwordHash().check(
      z.meta({
        description: 'SHA-256 of the replication password; the password itself is in the Secret secretName in each cluster namespace.',
      }),
    ),
    secretName: z
      ._default(z.string().check(z.regex(DNS1123_SUBDOMAIN, { error: 'must be a Secret name' })), defaultSecret)
      .check(z.meta({ description: 'The Secret (key password) the pods read the replication password from.' })),
  });

/**
 * The controller user, per namespace (docs/security.md, "Controller credentials"): each namespace's
 * clusters accept the password derived from the controller's key for that namespace, so a
 * credential that leaks from one namespace opens no other. `passwordHash` is the fleet-wide password
 * of earlier releases, accepted for namespaces not listed (and next to their own while migrating).
 */
const controllerUser = () =>
  z
    .strictObject({
      passwordHash: z.optional(passwordHash()).check(
        z.meta({
          description:
            'Deprecated: one controller password for every namespace (earlier releases); only while migrating (docs/security.md).',
        }),
      ),
      namespaces: z
        .optional(
          z
            .record(
              z.string().check(z.refine(isNamespaceName, { error: 'each key must be a namespace name' })),
              z
                .array(passwordHash())
                .check(
                  z.minLength(1, { error: 'lists the namespace password hash (two while the controller key is rotated)' }),
                  z.maxLength(2, { error: 'holds at most two hashes: the current key and the one being rotated in or out' }),
                ),
            )
            .check(z.refine((m) => Object.keys(m).length <= 10_000, { error: 'lists at most 10000 namespaces' })),
        )
        .check(
          z.meta({
            description:
              "Per namespace, the SHA-256 of the controller password derived from the controller's key for it (two while the key is rotated; docs/security.md).",
          }),
        ),
      secretName: z
        ._default(z.string().check(z.regex(DNS1123_SUBDOMAIN, { error: 'must be a Secret name' })), 'valkey-controller')
        .check(z.meta({ description: "The controller's Secret, in the controller's namespace (key, previous-key)." })),
    })
    .check(
      z.refine((u) => u.passwordHash !== undefined || Object.keys(u.namespaces ?? {}).length > 0, {
        error: 'needs namespaces (a password hash per namespace; see docs/security.md) or passwordHash (one password for every namespace)',
      }),
    );

const labelKey = () => z.string().check(z.refine(isQualifiedName, { error: 'must be a label key such as kubernetes.io/metadata.name' }));
const LABEL_VALUE = new RegExp(LABEL_VALUE_PATTERN);
const labelValue = () =>
  z
    .string()
    .check(
      z.maxLength(63, { error: 'must be a label value (63 characters at most)' }),
      z.regex(LABEL_VALUE, { error: 'must be a label value: letters, digits, -, _ and ., starting and ending with a letter or digit' }),
    );
const labelMap = () => z.record(labelKey(), labelValue());

/** A Kubernetes label selector (metav1.LabelSelector), as a NetworkPolicy's namespaceSelector takes it. */
const labelSelector = () =>
  z.strictObject({
    matchLabels: z.optional(labelMap()),
    matchExpressions: z.optional(
      z.array(
        z
          .strictObject({
            key: labelKey(),
            operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist'], { error: 'must be In, NotIn, Exists or DoesNotExist' }),
            values: z.optional(z.array(labelValue())),
          })
          .check(
            z.refine((e) => (e.operator === 'In' || e.operator === 'NotIn') === (e.values ?? []).length > 0, {
              error: 'In and NotIn need values; Exists and DoesNotExist take none',
            }),
          ),
      ),
    ),
  });

export const CONTROLLER_NAMESPACE_DEFAULT = 'valkey-system';
export const CONTROLLER_POD_LABELS_DEFAULT: Readonly<Record<string, string>> = { 'app.kubernetes.io/name': 'valkey-status-sync' };

/**
 * The NetworkPolicy rendered per cluster (docs/operations.md, "NetworkPolicy"): the cluster bus from
 * the cluster's own pods only, the client port from its own namespace (and the namespaces
 * `clientNamespaces` selects), both ports from the controller. `enabled: false` renders none.
 */
const networkPolicy = () =>
  z.strictObject({
    enabled: z
      ._default(z.boolean({ error: 'must be true or false' }), true)
      .check(z.meta({ description: 'Render one NetworkPolicy per cluster; false renders none.' })),
    /** Namespaces (by label) whose pods may reach the client port too; the cluster's own namespace always may. */
    clientNamespaces: z.optional(labelSelector()).check(
      z.meta({
        description: "Namespaces (a label selector) whose pods may use the client port too; the cluster's own namespace always may.",
      }),
    ),
    controller: z.prefault(
      z.strictObject({
        namespace: z
          ._default(z.string().check(z.refine(isNamespaceName, { error: 'must be a namespace name' })), CONTROLLER_NAMESPACE_DEFAULT)
          .check(z.meta({ description: "The controller's namespace: its pods may reach both ports." })),
        podLabels: z
          ._default(
            labelMap().check(z.refine((m) => Object.keys(m).length > 0, { error: 'needs at least one label of the controller pods' })),
            { ...CONTROLLER_POD_LABELS_DEFAULT },
          )
          .check(z.meta({ description: "The controller pods' labels." })),
      }),
      {},
    ),
  });

export const renderConfigSpec = lazy(() =>
  z.strictObject({
    outputDir: z
      ._default(
        z.string().check(
          z.minLength(1),
          // Written into kpt's path annotations and joined with namespace and cluster names: plain
          // path segments only, so no file can land anywhere but under it.
          z.refine((p) => /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/.test(p) && !p.split('/').includes('..'), {
            error:
              "must be a relative path inside the package (no leading \"/\" and no \"..\"): plain segments of letters, digits, '.', '_' and '-' (not starting with '.' or '-') joined by \"/\"",
          }),
        ),
        'rendered',
      )
      .check(z.meta({ description: 'Where kpt writes the rendered files: OUTPUTDIR/NAMESPACE/CLUSTER.yaml.' })),
    clusterDomain: z
      ._default(z.string().check(z.regex(DNS1123_SUBDOMAIN, { error: 'must be a DNS domain such as cluster.local' })), 'cluster.local')
      .check(z.meta({ description: "The cluster DNS domain, in the pods' names and TLS names." })),
    defaultZoneSpread: z
      ._default(zoneSpread(), 'bestEffort')
      .check(z.meta({ description: 'How shards spread over zones when a ValkeyCluster sets no placement.zoneSpread.' })),
    /**
     * How a shard's pods spread over nodes when it has replicas: `required` (the default: no two
     * pods of a shard on one node, so losing a node never loses a shard) or `bestEffort` (for
     * small dev clusters with fewer nodes than pods per shard; the render warns).
     */
    nodeSpread: z._default(z.enum(['required', 'bestEffort'], { error: 'must be required or bestEffort' }), 'required').check(
      z.meta({
        description: 'required: no two pods of a shard on one node; bestEffort: for dev clusters with fewer nodes (the render warns).',
      }),
    ),
    networkPolicy: z
      .prefault(networkPolicy(), {})
      .check(z.meta({ description: 'The NetworkPolicy rendered per cluster (docs/operations.md).' })),
    systemUsers: z.strictObject(
      {
        replication: systemUser('valkey-replication'),
        controller: controllerUser(),
      },
      { error: 'is required: the password hashes of the replication and controller users' },
    ),
  }),
);

export const renderConfig = lazy(() =>
  z.strictObject({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal(RENDER_CONFIG_KIND),
    metadata: objectMeta(),
    spec: renderConfigSpec(),
  }),
);

export type RenderConfig = z.output<ReturnType<typeof renderConfigSpec>>;

export const SYSTEM_USERS_HINT = [
  'Create the replication password and the controller key, their Secrets, and the hashes, for example:',
  '  REPL=$(openssl rand -hex 32); printf %s "$REPL" | sha256sum | cut -d" " -f1   # -> spec.systemUsers.replication.passwordHash',
  '  kubectl -n <cluster namespace> create secret generic valkey-replication --from-literal=password="$REPL"',
  '  KEY=$(openssl rand -hex 32); kubectl -n valkey-system create secret generic valkey-controller --from-literal=key="$KEY"',
  '  printf %s "valkey-krm-controller/<namespace>" | openssl dgst -sha256 -hmac "$KEY" -r | cut -d" " -f1 | tr -d "\\n" | sha256sum | cut -d" " -f1',
  '      # -> spec.systemUsers.controller.namespaces.<namespace>: [<hash>], one entry per namespace with clusters',
  'docs/security.md, "Controller credentials", says why each namespace has its own controller password.',
].join('\n');

/** The controller user's password hashes for clusters in `namespace`: its own, then the fleet-wide one; none when neither is set. */
export function controllerPasswordHashes(render: RenderConfig, namespace: string): string[] {
  const user = render.systemUsers.controller;
  const own = Object.hasOwn(user.namespaces ?? {}, namespace) ? (user.namespaces?.[namespace] ?? []) : [];
  return [...own, ...(user.passwordHash !== undefined && !own.includes(user.passwordHash) ? [user.passwordHash] : [])];
}
