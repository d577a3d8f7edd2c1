import type { ResolvedCluster } from './resolve-menu.js';

/**
 * Who set each value of one cluster, as chain resolution decided it: the config whose setting,
 * resource, image or ACL list won. The plan and explain report these, never by walking the raw
 * specs again (which got a variant's `MAXMEMORY` over its base's `maxmemory` wrong).
 */
export interface ClusterProvenance {
  /** Settings by canonical name (as valkey.conf names them) → the ValkeyConfig whose value won. */
  settings: Readonly<Record<string, string>>;
  resources: Readonly<{ cpu?: string; memory?: string }>;
  /** The ValkeyConfig whose imageRef the cluster runs. */
  image: string;
  /** The ValkeyConfig whose acl list is the platform's bindings, if any config sets one. */
  acl?: string;
}

export function provenanceOf({ config }: ResolvedCluster): ClusterProvenance {
  return {
    settings: config.settingFrom,
    resources: config.resourcesFrom,
    image: config.imageFrom,
    ...(config.aclFrom !== undefined ? { acl: config.aclFrom } : {}),
  };
}
