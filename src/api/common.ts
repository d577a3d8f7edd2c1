import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { API_VERSION } from './group.js';
import { RESOURCE_QUANTITY_PATTERN } from './quantity.js';

/** A CEL validation rule for the generated CRD, attached to a zod schema through `z.meta()`. */
export interface CelRule {
  rule: string;
  message: string;
  /** A CEL string expression for the message, e.g. naming the offending key; `message` when it fails. */
  messageExpression?: string;
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}
export const celRules = (...rules: CelRule[]) => ({ 'x-kubernetes-validations': rules });

/** A DNS-1123 label, unanchored: lowercase letters, digits and '-', a letter or digit at each end. */
const DNS1123_LABEL_SOURCE = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
/** A DNS-1123 subdomain, unanchored: labels joined by dots (also the prefix of a qualified name). */
const DNS1123_SUBDOMAIN_SOURCE = `${DNS1123_LABEL_SOURCE}(\\.${DNS1123_LABEL_SOURCE})*`;
/** A namespace, as the API server validates it: a DNS-1123 label of at most 63 characters. */
export const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_SOURCE}$`);
export const NAMESPACE_MAX = 63;
export const isNamespaceName = (ns: string): boolean => ns.length <= NAMESPACE_MAX && DNS1123_LABEL.test(ns);
/** Names of cluster-scoped menu items (ValkeyImage, ValkeyConfig, ValkeyRole): DNS-1123 subdomains. */
export const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_SOURCE}$`);
/** Service and StatefulSet names derive from a ValkeyCluster's name: DNS-1035 labels (for CEL too). */
export const DNS1035_LABEL_PATTERN = '^[a-z]([-a-z0-9]*[a-z0-9])?$';
export const DNS1035_LABEL = new RegExp(DNS1035_LABEL_PATTERN);

/**
 * A ValkeyCluster name must leave room for `-<shard>-<ordinal>` pod names and the
 * StatefulSet's controller-revision-hash label within 63 characters.
 */
export const CLUSTER_NAME_MAX = 40;

/** A label value (zone names are node label values): at most 63 characters. */
export const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';
/** A label or annotation key: an optional DNS-subdomain prefix (at most 253 characters) and '/', then a name of at most 63. */
export const QUALIFIED_NAME_PATTERN = `^(${DNS1123_SUBDOMAIN_SOURCE}/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`;
const QUALIFIED_NAME = new RegExp(QUALIFIED_NAME_PATTERN);
export const isQualifiedName = (key: string): boolean => QUALIFIED_NAME.test(key) && (!key.includes('/') || key.indexOf('/') <= 253);
const cel = (pattern: string) => pattern.replaceAll('\\', '\\\\');
/** The CEL twin of `isQualifiedName` for every key of a map. */
export const qualifiedKeysRule = (message: string): CelRule => ({
  rule: `self.all(k, k.matches('${cel(QUALIFIED_NAME_PATTERN)}') && (!k.contains('/') || k.indexOf('/') <= 253))`,
  message,
});
/** The CEL check that every key of a map matches `pattern`. */
export const keysMatchRule = (pattern: string, message: string): CelRule => ({
  rule: `self.all(k, k.matches('${cel(pattern)}'))`,
  message,
});

export const refName = (what: string) =>
  z
    .string({ error: `must be the name of a ${what}` })
    .check(
      z.minLength(1, { error: `must be the name of a ${what}` }),
      z.maxLength(253),
      z.regex(DNS1123_SUBDOMAIN, { error: `must be the name of a ${what} (lowercase letters, digits, '-' and '.')` }),
    );

/** Resource quantities as Kubernetes writes them: a string like "500m" or "2Gi", or a plain integer. */
export const quantity = lazy(() =>
  z
    .union(
      [
        z.string().check(
          z.regex(new RegExp(RESOURCE_QUANTITY_PATTERN), {
            error: 'must be a Kubernetes quantity such as "500m", "2" or "2Gi"',
          }),
        ),
        z.number().check(z.int(), z.gte(0)),
      ],
      { error: 'must be a Kubernetes quantity such as "500m", "2" or "2Gi"' },
    )
    .check(z.meta({ 'x-kubernetes-int-or-string': true })),
);

export const objectMeta = lazy(() =>
  z.looseObject({
    name: z
      .string({ error: 'is required: every object needs a name' })
      .check(z.minLength(1, { error: 'is required: every object needs a name' })),
    namespace: z.optional(z.string()),
    labels: z.optional(z.record(z.string(), z.string())),
    annotations: z.optional(z.record(z.string(), z.string())),
  }),
);

/** One of the menu and cluster kinds: our apiVersion, its kind, metadata, the spec, and a status the function ignores. */
export const kindObject = <K extends string, S extends z.ZodMiniType>(kind: K, spec: S) =>
  z.strictObject({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal(kind),
    metadata: objectMeta(),
    spec,
    status: z.optional(z.unknown()),
  });
