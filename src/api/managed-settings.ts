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
  'tls-port',
  'cluster-port',
  'bind',
  'protected-mode',
  'cluster-allow-replica-migration',
  'cluster-preferred-endpoint-type',
  'tls-cluster',
  'tls-replication',
  // The pod's own outgoing address: a shared value is wrong on every pod but one.
  'bind-source-addr',
  // Files: /data and the config directory are laid out by valkey-krm; nodes.conf lives in /data,
  // logs must reach the container's output (kubectl logs, the termination message), and any other
  // path does not exist in the pod.
  'dir',
  'cluster-config-file',
  'aclfile',
  'daemonize',
  'pidfile',
  'logfile',
  'dbfilename',
  'appendfilename',
  'appenddirname',
  'unixsocket',
  'unixsocketgroup',
  'unixsocketperm',
  'include',
  // TLS material comes from the cluster's Secret, mounted at one path; passphrases would be secrets in git.
  'tls-cert-file',
  'tls-key-file',
  'tls-ca-cert-file',
  'tls-ca-cert-dir',
  'tls-client-cert-file',
  'tls-client-key-file',
  'tls-dh-params-file',
  'tls-key-file-pass',
  'tls-client-key-file-pass',
  // Replication identity and access control.
  'primaryuser',
  'primaryauth',
  'replicaof',
  'requirepass',
  'user',
  // Where a node is: per pod (the zone comes from the node it is scheduled on).
  'availability-zone',
];

/**
 * Families owned whole, so members added by later releases are covered too: what a node announces
 * (`cluster-announce-ip`, `cluster-announce-client-ipv4`, ...) and what a replica announces
 * (`replica-announce-ip`, `replica-announce-port`) are per pod.
 */
export const MANAGED_PREFIXES: readonly string[] = ['cluster-announce-', 'replica-announce-'];

/** Whether a canonical setting name (valkey-table.ts's `canonicalSettingName`) is managed. */
export function isManagedSettingName(canonicalName: string): boolean {
  return MANAGED_KEYS.includes(canonicalName) || MANAGED_PREFIXES.some((prefix) => canonicalName.startsWith(prefix));
}
