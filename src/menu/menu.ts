import type { ValkeyCluster, ValkeyConfig, ValkeyImage, ValkeyRole } from '../api/index.js';

/** The platform's menu and the teams' requests, parsed and indexed by name. */
export interface Menu {
  images: ReadonlyMap<string, ValkeyImage>;
  configs: ReadonlyMap<string, ValkeyConfig>;
  roles: ReadonlyMap<string, ValkeyRole>;
  /** Sorted by namespace, then name. */
  clusters: readonly ValkeyCluster[];
  /**
   * `Kind/name` of objects that failed their schema. They have their own errors; references to
   * them say so instead of claiming the object does not exist.
   */
  invalid: ReadonlySet<string>;
}

export const invalidKey = (kind: string, name: string) => `${kind}/${name}`;

export const VALKEY_KINDS = ['ValkeyImage', 'ValkeyConfig', 'ValkeyRole', 'ValkeyCluster'] as const;
export type ValkeyKind = (typeof VALKEY_KINDS)[number];
