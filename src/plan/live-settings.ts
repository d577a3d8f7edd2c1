/**
 * Whether `CONFIG SET` applies a Valkey setting to a running server (true), it needs a restart
 * (false), or the table does not know it (undefined: the plan treats it as a restart).
 *
 * TEMPORARY: a short hand list until the generated settings table (src/api/valkey-settings.ts,
 * made from real servers) lands; the lead replaces the body of `isLiveSetting` with a lookup in
 * that table. Nothing else in src/plan/ knows where the answer comes from.
 */
export type LiveSettingLookup = (name: string) => boolean | undefined;

const LIVE = new Set([
  'maxmemory', 'maxmemory-policy', 'maxmemory-samples', 'maxmemory-clients', 'timeout', 'tcp-keepalive', 'hz',
  'slowlog-log-slower-than', 'slowlog-max-len', 'latency-monitor-threshold', 'notify-keyspace-events', 'maxclients',
  'lazyfree-lazy-eviction', 'lazyfree-lazy-expire', 'lazyfree-lazy-server-del', 'lazyfree-lazy-user-del', 'loglevel',
  'tls-auth-clients', 'appendfsync', 'save', 'cluster-node-timeout', 'cluster-require-full-coverage',
  'cluster-allow-reads-when-down', 'activedefrag', 'active-expire-effort',
]);

const RESTART = new Set([
  'databases', 'io-threads', 'cluster-enabled', 'port', 'tls-port', 'cluster-port', 'bind', 'dir', 'aclfile', 'daemonize',
  'cluster-config-file', 'tls-cluster', 'tls-replication', 'unixsocket', 'supervised', 'logfile', 'syslog-enabled',
]);

export const isLiveSetting: LiveSettingLookup = (name) => {
  const key = name.toLowerCase();
  if (LIVE.has(key)) return true;
  if (RESTART.has(key)) return false;
  return undefined;
};
