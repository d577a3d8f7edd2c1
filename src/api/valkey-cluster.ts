import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { RESERVED_ANNOTATION_PREFIX } from './contract/annotations.js';
import {
  celRules,
  CLUSTER_NAME_MAX,
  DNS1123_LABEL,
  DNS1035_LABEL_PATTERN,
  isQualifiedName,
  kindObject,
  LABEL_VALUE_PATTERN,
  qualifiedKeysRule,
  refName,
} from './common.js';
import { aclBindings } from './acl.js';
import { podAnnotationFindings } from './kube-limits.js';
import { autoscalingSpec, autoscalingStatus, SHARDS_IN_RANGE_MESSAGE, SHARDS_IN_RANGE_RULE } from './autoscaling.js';

export const ZONE_SPREAD = ['bestEffort', 'required'] as const;
export const zoneSpread = lazy(() => z.enum(ZONE_SPREAD, { error: 'must be bestEffort or required' }));
export type ZoneSpread = z.infer<ReturnType<typeof zoneSpread>>;

const RESERVED_MESSAGE = `keys under ${RESERVED_ANNOTATION_PREFIX} are reserved for valkey-krm; use another prefix`;
const KEY_MESSAGE =
  "keys must be Kubernetes label/annotation keys: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
const LABEL_VALUE_MESSAGE =
  "must be a Kubernetes label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
const MAX_POD_ANNOTATIONS = 64;
const labelValue = lazy(() =>
  z
    .string()
    .check(z.maxLength(63, { error: LABEL_VALUE_MESSAGE }), z.regex(new RegExp(LABEL_VALUE_PATTERN), { error: LABEL_VALUE_MESSAGE })),
);

export const podAnnotations = lazy(() =>
  z.record(z.string(), z.string({ error: 'each value must be a string; quote numbers and booleans in YAML' })).check(
    z.superRefine((map, ctx) => {
      const keys = Object.keys(map);
      if (keys.length > MAX_POD_ANNOTATIONS)
        ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_POD_ANNOTATIONS} annotations; got ${keys.length}` });
      for (const key of keys) {
        if (key.startsWith(RESERVED_ANNOTATION_PREFIX))
          ctx.addIssue({ code: 'custom', path: [key], message: `"${key}": ${RESERVED_MESSAGE}` });
        else if (!isQualifiedName(key)) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}": ${KEY_MESSAGE}` });
      }
      // What the API server would refuse on the pod template, which the CRD cannot tell: a sum of bytes, values of keys it owns.
      for (const f of podAnnotationFindings(map))
        ctx.addIssue({ code: 'custom', ...(f.key !== undefined ? { path: [f.key] } : {}), message: f.message });
    }),
    z.meta({
      description: 'Annotations added verbatim to every pod of the cluster (pods only).',
      maxProperties: MAX_POD_ANNOTATIONS,
      ...celRules(
        { rule: `self.all(k, !k.startsWith('${RESERVED_ANNOTATION_PREFIX}'))`, message: RESERVED_MESSAGE },
        qualifiedKeysRule(KEY_MESSAGE),
      ),
    }),
  ),
);

const MAX_NODE_SELECTOR = 32;
export const nodeSelector = lazy(() =>
  z.record(z.string(), labelValue()).check(
    z.superRefine((map, ctx) => {
      const keys = Object.keys(map);
      if (keys.length > MAX_NODE_SELECTOR)
        ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_NODE_SELECTOR} labels; got ${keys.length}` });
      for (const key of keys) if (!isQualifiedName(key)) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}": ${KEY_MESSAGE}` });
    }),
    z.meta({ description: 'Copied verbatim to the pods.', maxProperties: MAX_NODE_SELECTOR, ...celRules(qualifiedKeysRule(KEY_MESSAGE)) }),
  ),
);

export const placement = lazy(() =>
  z.strictObject({
    zones: z
      .optional(
        z.array(labelValue().check(z.minLength(1))).check(
          z.minLength(1, { error: 'must list at least one zone, or be left out' }),
          z.maxLength(16),
          z.superRefine((zones, ctx) => {
            if (new Set(zones).size !== zones.length) ctx.addIssue({ code: 'custom', message: 'lists a zone twice' });
          }),
        ),
      )
      .check(
        z.meta({
          description: 'Zones the pods may run in (required node affinity on topology.kubernetes.io/zone).',
          'x-kubernetes-list-type': 'set',
        }),
      ),
    zoneSpread: z.optional(zoneSpread()).check(z.meta({ description: 'bestEffort or required; unset uses the render config default.' })),
    nodeSelector: z.optional(nodeSelector()),
  }),
);

export const ISSUER_KINDS = ['ClusterIssuer', 'Issuer'] as const;
const CLIENT_USER_MESSAGE =
  "must be an ACL user whose name is a DNS label (at most 63 lowercase letters, digits and '-'): it names the Certificate and Secret <cluster>-client-<user>; for another user write its Certificate yourself (docs/connecting.md)";
export const MAX_CLIENT_CERTIFICATES = 32;

/**
 * Client certificates the GitOps way (issue 33; docs/connecting.md): one cert-manager Certificate
 * per listed ACL user, `<cluster>-client-<user>` in the cluster's namespace, client auth only,
 * from the issuer that issues the cluster's own certificate.
 */
export const clientCertificates = lazy(() =>
  z
    .strictObject({
      issuerRef: z
        .strictObject({
          kind: z.enum(ISSUER_KINDS, { error: 'must be ClusterIssuer or Issuer' }),
          name: refName('cert-manager issuer'),
        })
        .check(
          z.meta({
            description:
              "The cert-manager issuer of the cluster's own certificate (spec.tls.secretRef): an Issuer in the cluster namespace or a ClusterIssuer. Its CA must be the ca.crt the servers trust.",
          }),
        ),
      users: z
        .array(
          z
            .string({ error: CLIENT_USER_MESSAGE })
            .check(
              z.minLength(1, { error: CLIENT_USER_MESSAGE }),
              z.maxLength(63, { error: CLIENT_USER_MESSAGE }),
              z.regex(DNS1123_LABEL, { error: CLIENT_USER_MESSAGE }),
            ),
        )
        .check(
          z.minLength(1, { error: 'must list at least one user, or leave clientCertificates out' }),
          z.maxLength(MAX_CLIENT_CERTIFICATES),
          z.superRefine((users, ctx) => {
            if (new Set(users).size !== users.length) ctx.addIssue({ code: 'custom', message: 'lists a user twice' });
          }),
          z.meta({
            description:
              'ACL users (of spec.acl or the config chain) that get a client certificate: a Certificate and Secret <cluster>-client-<user> with tls.crt, tls.key and ca.crt.',
            'x-kubernetes-list-type': 'set',
          }),
        ),
    })
    .check(
      z.meta({
        description:
          'Renders a cert-manager Certificate (client auth) per listed user, so applications get their client certificate from git (docs/connecting.md).',
      }),
    ),
);

/** A whole number from `min` to `max`, with the messages people see when it is not. */
const count = (what: string, min: number, minMessage: string, max: number) =>
  z.number({ error: what }).check(z.int({ error: what }), z.gte(min, { error: minMessage }), z.lte(max));

export const valkeyClusterSpec = lazy(() =>
  z
    .strictObject({
      configRef: refName('ValkeyConfig').check(z.meta({ description: 'The ValkeyConfig (menu item) this cluster runs.' })),
      shards: count('must be a whole number of shards, at least 1', 1, 'must be at least 1', 1000).check(
        z.meta({
          description:
            'Number of shards; each is a StatefulSet with one primary and replicasPerShard replicas. 16384 slots are spread evenly over them.',
        }),
      ),
      replicasPerShard: count('must be a whole number of replicas per shard, 0 or more', 0, 'must be 0 or more', 10).check(
        z.meta({ description: 'Replicas per shard, in addition to its primary.' }),
      ),
      acl: z.optional(aclBindings()).check(z.meta({ description: "The team's ACL bindings, added to the config's." })),
      tls: z
        .optional(
          z.strictObject({
            secretRef: refName('Secret').check(
              z.meta({ description: 'A Secret with tls.crt, tls.key and ca.crt in the cluster namespace.' }),
            ),
            clientCertificates: z.optional(clientCertificates()),
          }),
        )
        .check(z.meta({ description: 'TLS only: clients, replication and the cluster bus use TLS with the certificate in this Secret.' })),
      placement: z.optional(placement()).check(z.meta({ description: 'Where the pods may run: zones, zone spread and a node selector.' })),
      podAnnotations: z.optional(podAnnotations()),
      autoscaling: z.optional(autoscalingSpec()),
    })
    .check(
      z.superRefine((spec, ctx) => {
        if (!Number.isInteger(spec.shards) || !Number.isInteger(spec.replicasPerShard)) return;
        const pods = spec.shards * (spec.replicasPerShard + 1);
        if (pods > MAX_PODS_PER_CLUSTER)
          ctx.addIssue({ code: 'custom', path: ['shards'], message: podsMessage(spec.shards, spec.replicasPerShard, pods) });
        const a = spec.autoscaling;
        if (a && (spec.shards < a.minShards || spec.shards > a.maxShards))
          ctx.addIssue({
            code: 'custom',
            path: ['shards'],
            message: `${SHARDS_IN_RANGE_MESSAGE} (${a.minShards}-${a.maxShards}); got ${spec.shards}`,
          });
      }),
      z.meta({
        description: 'A Valkey cluster built from a ValkeyConfig on the menu. The image, sizing and settings come from the config.',
        ...celRules(
          {
            rule: `self.shards * (self.replicasPerShard + 1) <= ${MAX_PODS_PER_CLUSTER}`,
            message: `shards × (replicasPerShard + 1) must be at most ${MAX_PODS_PER_CLUSTER} pods per cluster`,
            fieldPath: '.shards',
          },
          SHARDS_IN_RANGE_RULE,
        ),
      }),
    ),
);

/**
 * Pods one cluster may have. The controller's pass keeps every pod's CLUSTER NODES view, so its
 * memory grows with the square of a cluster's pods: 500 pods fit the shipped 256Mi limit (172 MiB
 * RSS in bench/controller.bench.ts), 1,000 did not (337 MiB). The bound and the Deployment's limit
 * change together (contributing/benchmarks.md).
 */
export const MAX_PODS_PER_CLUSTER = 500;

const podsMessage = (shards: number, replicas: number, pods: number): string =>
  `${shards} shard(s) × ${replicas + 1} pods each is ${pods} pods; a cluster may have at most ${MAX_PODS_PER_CLUSTER} ` +
  `(the controller's memory per pass grows with the square of a cluster's pods): use fewer shards or replicasPerShard, or split it into two clusters`;

export const nodeRole = lazy(() => z.enum(['primary', 'replica', 'unknown']));
export const nodeHealth = lazy(() => z.enum(['online', 'loading', 'failed', 'unreachable', 'pending']));
export const clusterState = lazy(() => z.enum(['Creating', 'Active', 'Updating', 'Invalid', 'Failed']));

export const condition = lazy(() =>
  z.object({
    type: z.string(),
    status: z.enum(['True', 'False', 'Unknown']),
    reason: z.string(),
    message: z.string(),
    lastTransitionTime: z.string(),
    observedGeneration: z.optional(z.number().check(z.int())),
  }),
);

export const nodeStatus = lazy(() =>
  z.object({
    pod: z.string(),
    shard: z.number().check(z.int()),
    role: nodeRole(),
    nodeId: z.optional(z.string()),
    /**
     * Node ids this pod had before it was replaced, while some node of the cluster still lists them:
     * the controller's proof that such an id, known from gossip without a hostname, is this
     * cluster's own departed node and not another cluster's (controller/cluster/foreign-nodes.ts).
     */
    formerNodeIds: z.optional(z.array(z.string())).check(z.meta({ 'x-kubernetes-list-type': 'set' })),
    ip: z.optional(z.string()),
    version: z.optional(z.string()),
    health: nodeHealth(),
  }),
);

export const valkeyClusterStatus = lazy(() =>
  z.object({
    state: z.optional(clusterState()),
    message: z.optional(z.string()),
    observedGeneration: z.optional(z.number().check(z.int())),
    nodes: z.optional(z.array(nodeStatus())).check(z.meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['pod'] })),
    conditions: z.optional(z.array(condition())).check(z.meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] })),
    autoscaling: z.optional(autoscalingStatus()),
  }),
);

export const valkeyCluster = lazy(() => kindObject('ValkeyCluster', valkeyClusterSpec()));

export type ValkeyCluster = z.infer<ReturnType<typeof valkeyCluster>>;
export type ValkeyClusterSpec = z.infer<ReturnType<typeof valkeyClusterSpec>>;
export type ValkeyClusterStatus = z.infer<ReturnType<typeof valkeyClusterStatus>>;
export type NodeStatus = z.infer<ReturnType<typeof nodeStatus>>;
export type Condition = z.infer<ReturnType<typeof condition>>;

/** Rules on the whole object that the CRD enforces with CEL at its root. */
export const CLUSTER_NAME_RULE = {
  rule: `self.metadata.name.size() <= ${CLUSTER_NAME_MAX} && self.metadata.name.matches('${DNS1035_LABEL_PATTERN}')`,
  message: `metadata.name must be a DNS-1035 label of at most ${CLUSTER_NAME_MAX} characters (it names the Service, StatefulSets and pods)`,
};
