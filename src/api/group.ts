/** API group, version and the label/annotation keys shared by the function and the controller. */
export const GROUP = 'valkey.gomomento.com';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const MANAGED_BY = 'valkey-krm';

/** The Valkey version floor. Not configurable, on purpose. */
export const VERSION_FLOOR = '9.0.1';

/** Internal ACL users; teams cannot bind these names. */
export const SYSTEM_USERNAMES = {
  replication: 'valkey-krm-replication',
  controller: 'valkey-krm-controller',
} as const;
/**
 * A disabled user in every users.acl whose one password hash is the file's revision (the sha256 of
 * the rest of the file): `ACL GETUSER` on a node tells which revision it loaded.
 */
export const ACL_REVISION_USERNAME = 'valkey-krm-revision';
export const RESERVED_USERNAMES: readonly string[] = [
  'default',
  SYSTEM_USERNAMES.replication,
  SYSTEM_USERNAMES.controller,
  ACL_REVISION_USERNAME,
];
