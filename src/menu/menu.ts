import type { ValkeyCluster, ValkeyConfig, ValkeyImage, ValkeyRole } from '../api/index.js';

/** The platform's menu and the teams' requests, parsed and indexed by name. */
export interface Menu {
  images: ReadonlyMap<string, ValkeyImage>;
  configs: ReadonlyMap<string, ValkeyConfig>;
  roles: ReadonlyMap<string, ValkeyRole>;
  /** Sorted by namespace, then name. */
  clusters: readonly ValkeyCluster[];
}

export const VALKEY_KINDS = ['ValkeyImage', 'ValkeyConfig', 'ValkeyRole', 'ValkeyCluster'] as const;
export type ValkeyKind = (typeof VALKEY_KINDS)[number];
