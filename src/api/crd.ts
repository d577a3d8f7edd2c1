import * as z from 'zod/mini';
import { LABELS } from './contract/annotations.js';
import { GROUP, VERSION } from './group.js';
import type { CelRule } from './common.js';
import { valkeyImageSpec } from './valkey-image.js';
import { valkeyConfigSpec } from './valkey-config.js';
import { valkeyRoleSpec } from './valkey-role.js';
import { CLUSTER_NAME_RULE, valkeyClusterSpec, valkeyClusterStatus } from './valkey-cluster.js';
import { meteringRecordSpec, meteringRecordStatus, METERING_RECORD_KIND } from './valkey-metering-record.js';

type JsonSchema = { [key: string]: unknown };

interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date' | 'number' | 'boolean';
  jsonPath: string;
  priority?: number;
  description?: string;
}

interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: 'Cluster' | 'Namespaced';
  spec: z.ZodMiniType;
  status?: z.ZodMiniType;
  printerColumns: PrinterColumn[];
  rootRules?: CelRule[];
  description: string;
}

const SAFE_INT = Number.MAX_SAFE_INTEGER;

/**
 * zod emits JSON Schema; Kubernetes wants a *structural* OpenAPI v3 schema. The differences we
 * bridge: no `additionalProperties: false` next to `properties` (the API server prunes or, under
 * strict field validation, rejects unknown fields instead), int-or-string in its one allowed
 * spelling, and no meaningless safe-integer bounds.
 */
export function toStructural(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toStructural);
  if (node === null || typeof node !== 'object') return node;
  const src = node as JsonSchema;
  if (src['x-kubernetes-int-or-string'] === true) {
    const out: JsonSchema = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    // The branches may not carry value rules, but the node may: `pattern` applies only to strings
    // and `minimum` only to numbers, so both keep their meaning (controller-gen does the same).
    for (const branch of Array.isArray(src.anyOf) ? (src.anyOf as JsonSchema[]) : []) {
      if (branch.type === 'string' && typeof branch.pattern === 'string') out.pattern = branch.pattern;
      if (branch.type === 'integer' && typeof branch.minimum === 'number' && branch.minimum !== -SAFE_INT) out.minimum = branch.minimum;
    }
    if (src.description) out.description = src.description;
    return out;
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(src)) {
    if (key === '$schema') continue;
    if (key === 'additionalProperties' && value === false) continue;
    if ((key === 'maximum' && value === SAFE_INT) || (key === 'minimum' && value === -SAFE_INT)) continue;
    out[key] = key === 'properties' ? mapValues(value as JsonSchema, toStructural) : toStructural(value);
  }
  return out;
}

const mapValues = (obj: JsonSchema, fn: (v: unknown) => unknown): JsonSchema =>
  Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, fn(v)]));

const openApi = (schema: z.ZodMiniType): JsonSchema =>
  toStructural(z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' })) as JsonSchema;

export const KINDS: readonly KindDefinition[] = [
  {
    kind: 'ValkeyImage',
    plural: 'valkeyimages',
    singular: 'valkeyimage',
    shortNames: ['vki'],
    scope: 'Cluster',
    spec: valkeyImageSpec(),
    description: 'An allowlisted Valkey container image. No ValkeyConfig can run an image that has no ValkeyImage.',
    printerColumns: [
      { name: 'Repository', type: 'string', jsonPath: '.spec.repository' },
      { name: 'Tag', type: 'string', jsonPath: '.spec.tag' },
      { name: 'Version', type: 'string', jsonPath: '.spec.version' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
  {
    kind: 'ValkeyConfig',
    plural: 'valkeyconfigs',
    singular: 'valkeyconfig',
    shortNames: ['vkc'],
    scope: 'Cluster',
    spec: valkeyConfigSpec(),
    description: 'A named menu item: image, sizing, Valkey settings and platform ACL bindings, optionally derived from a base config.',
    printerColumns: [
      { name: 'Base', type: 'string', jsonPath: '.spec.baseRef' },
      { name: 'Image', type: 'string', jsonPath: '.spec.imageRef' },
      { name: 'CPU', type: 'string', jsonPath: '.spec.resources.cpu' },
      { name: 'Memory', type: 'string', jsonPath: '.spec.resources.memory' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
  {
    kind: 'ValkeyRole',
    plural: 'valkeyroles',
    singular: 'valkeyrole',
    shortNames: ['vkr'],
    scope: 'Cluster',
    spec: valkeyRoleSpec(),
    description: 'A reusable set of command permissions for ACL bindings.',
    printerColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
  },
  {
    kind: 'ValkeyCluster',
    plural: 'valkeyclusters',
    singular: 'valkeycluster',
    shortNames: ['vk'],
    scope: 'Namespaced',
    spec: valkeyClusterSpec(),
    status: valkeyClusterStatus(),
    description: "A team's Valkey cluster, built from a ValkeyConfig on the platform's menu.",
    rootRules: [CLUSTER_NAME_RULE],
    printerColumns: [
      { name: 'Config', type: 'string', jsonPath: '.spec.configRef' },
      { name: 'Shards', type: 'integer', jsonPath: '.spec.shards' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicasPerShard', description: 'Replicas per shard' },
      { name: 'State', type: 'string', jsonPath: '.status.state' },
      {
        name: 'Desired Shards',
        type: 'integer',
        jsonPath: '.status.autoscaling.desiredShards',
        description: "The autoscaler's decision; spec.shards (git) is what runs",
      },
      { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
  {
    kind: METERING_RECORD_KIND,
    plural: 'valkeymeteringrecords',
    singular: 'valkeymeteringrecord',
    shortNames: ['vkm'],
    scope: 'Namespaced',
    spec: meteringRecordSpec(),
    status: meteringRecordStatus(),
    description:
      'Provisioned memory of one ValkeyCluster incarnation over one calendar month (UTC), in GB-hours; written by the controller in its own namespace, kept until released (docs/metering.md).',
    printerColumns: [
      { name: 'Cluster Namespace', type: 'string', jsonPath: '.spec.cluster.namespace' },
      { name: 'Cluster', type: 'string', jsonPath: '.spec.cluster.name' },
      { name: 'Month', type: 'string', jsonPath: '.spec.month' },
      { name: 'GB-Hours', type: 'string', jsonPath: '.status.gbHours' },
      { name: 'Source', type: 'string', jsonPath: '.status.memory.source', description: 'Where the per-pod memory figure comes from' },
      { name: 'Closed', type: 'boolean', jsonPath: '.status.closed' },
      { name: 'Reason', type: 'string', jsonPath: '.status.closedReason', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
];

export function customResourceDefinition(def: KindDefinition): Record<string, unknown> {
  const spec = openApi(def.spec);
  const properties: JsonSchema = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec,
  };
  if (def.status) properties.status = openApi(def.status);
  else properties.status = { type: 'object', description: 'Reserved; no fields today.', 'x-kubernetes-preserve-unknown-fields': true };
  const schema: JsonSchema = { type: 'object', description: def.description, required: ['spec'], properties };
  if (def.rootRules) schema['x-kubernetes-validations'] = def.rootRules;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${def.plural}.${GROUP}`,
      labels: { [LABELS.name]: 'valkey-krm', [LABELS.partOf]: 'valkey-krm' },
    },
    spec: {
      group: GROUP,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        shortNames: def.shortNames,
        categories: ['valkey'],
      },
      scope: def.scope,
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: def.printerColumns,
          schema: { openAPIV3Schema: schema },
        },
      ],
    },
  };
}
