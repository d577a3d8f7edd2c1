/**
 * The one list of settings valkey-krm manages itself. The renderer drops them from a config's
 * `valkey` map and writes its own; the controller never applies them live (CONFIG SET), since
 * their values are valkey-krm's: the pod starts with them, its arguments (or, in tests, the kubelet
 * stand-in) may override some (where the node listens, which files it reads), and TLS files are
 * reloaded by the controller's TLS step, not as settings.
 */

/**
 * Settings valkey-krm owns. A key here set in a config's `valkey` map is dropped (with an info
 * result): it would break cluster mode, the file layout, replication identity or access control,
 * or it names something that differs per pod, which one shared config cannot say. Per-pod values
 * (announce ip/hostname/nodename, masterauth) are passed as arguments instead. Names are canonical
 * (see valkey-table.ts): an alias such as `slaveof` or `masterauth` is caught through its setting.
 */
export const MANAGED_KEYS: readonly string[] = [
  // Cluster mode, ports and addresses: the Service, probes and controller depend on them.
  'cluster-enabled',
  'port',
  'cluster-port',
  'bind',
  'protected-mode',
  'cluster-allow-replica-migration',
  'cluster-preferred-endpoint-type',
  // The pod's own outgoing address: a shared value is wrong on every pod but one.
  'bind-source-addr',
  // Files: /data and the config directory are laid out by valkey-krm; nodes.conf lives in /data,
  // logs must reach the container's output (kubectl logs, the termination message), and any other
  // path does not exist in the pod.
  'dir',
  'cluster-config-file',
  'daemonize',
  'pidfile',
  'logfile',
  'dbfilename',
  'appendfilename',
  'appenddirname',
  'unixsocket',
  'unixsocketgroup',
  'unixsocketperm',
  // Replication identity.
  'replicaof',
  // Where a node is: per pod (the zone comes from the node it is scheduled on).
  'availability-zone',
];

/**
 * Families owned whole, so members added by later releases are covered too: what a node announces
 * (`cluster-announce-ip`, `cluster-announce-client-ipv4`, ...) and what a replica announces
 * (`replica-announce-ip`, `replica-announce-port`) are per pod.
 */
export const MANAGED_PREFIXES: readonly string[] = ['cluster-announce-', 'replica-announce-'];

/**
 * Settings that decide who can connect, as whom, or how: a config that sets one is refused (an
 * error, at render time and at admission), never dropped, because a platform engineer who writes
 * `requirepass` believes the cluster has a password. Access comes from ACL bindings (`spec.acl`),
 * TLS from the ValkeyCluster's `spec.tls`; valkey-krm writes the directives itself. Canonical names:
 * `masterauth` and `masteruser` are caught through `primaryauth` and `primaryuser`.
 */
export const SECURITY_SETTINGS: Readonly<Record<string, string>> = {
  requirepass: "it sets the default user's password, which valkey-krm derives from the ACL bindings (spec.acl)",
  primaryauth: 'replicas authenticate as the replication system user, whose password the render config holds',
  primaryuser: 'replicas authenticate as the replication system user, whose password the render config holds',
  aclfile: 'users come from the ACL bindings (spec.acl), which valkey-krm writes to its own users.acl',
  user: 'users come from the ACL bindings (spec.acl), which valkey-krm writes to its own users.acl',
  include: 'an included file could set any directive, access included, past every check',
  'rename-command': 'renamed commands break the controller and the ACL rules that name them',
};

/** Every `tls-*` setting: TLS is the ValkeyCluster's `spec.tls.secretRef`; valkey-krm sets ports, files and client checks. */
export const SECURITY_PREFIXES: readonly string[] = ['tls-'];

const TLS_REASON = "TLS is switched on by the ValkeyCluster's spec.tls.secretRef, and valkey-krm sets its ports, files and client checks";

/** Why a canonical setting name is refused (it changes who can connect or how), or undefined. */
export function securitySettingReason(canonicalName: string): string | undefined {
  if (Object.hasOwn(SECURITY_SETTINGS, canonicalName)) return SECURITY_SETTINGS[canonicalName];
  return SECURITY_PREFIXES.some((prefix) => canonicalName.startsWith(prefix)) ? TLS_REASON : undefined;
}

/** Whether a canonical setting name (valkey-table.ts's `canonicalSettingName`) is managed (dropped, or refused for security). */
export function isManagedSettingName(canonicalName: string): boolean {
  return (
    MANAGED_KEYS.includes(canonicalName) ||
    MANAGED_PREFIXES.some((prefix) => canonicalName.startsWith(prefix)) ||
    securitySettingReason(canonicalName) !== undefined
  );
}

/**
 * Every spelling of a security setting Valkey reads, lowercase: the names above and their aliases
 * (`masterauth` for `primaryauth`, ...), for the CRD's admission rule, which cannot canonicalize.
 * `aliasesOf` maps an alias to its setting (the generated table's).
 */
export function securitySettingSpellings(aliasesOf: Readonly<Record<string, string>>): string[] {
  const names = new Set(Object.keys(SECURITY_SETTINGS));
  for (const [alias, canonical] of Object.entries(aliasesOf)) if (Object.hasOwn(SECURITY_SETTINGS, canonical)) names.add(alias);
  return [...names].sort();
}
