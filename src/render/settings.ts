import { BUS_PORT, CLIENT_PORT, SYSTEM_USERNAMES } from '../api/index.js';
import { CONF_DIR, DATA_DIR, TLS_DIR } from './object.js';

export type Setting = readonly [key: string, value: string];

/**
 * Settings valkey-krm owns. A key here set in a config's `valkey` map is dropped (with an info
 * result): it would break cluster mode, the file layout, replication identity or access control.
 * Per-pod values (announce ip/hostname/nodename, masterauth) are passed as arguments instead.
 */
export const MANAGED_KEYS: readonly string[] = [
  'cluster-enabled', 'port', 'tls-port', 'cluster-port', 'bind', 'protected-mode', 'dir', 'cluster-config-file',
  'aclfile', 'daemonize', 'cluster-allow-replica-migration', 'masteruser', 'masterauth', 'primaryuser', 'primaryauth',
  'replicaof', 'slaveof', 'requirepass', 'user', 'cluster-announce-ip', 'cluster-announce-hostname',
  'cluster-announce-human-nodename', 'cluster-announce-port', 'cluster-announce-tls-port', 'cluster-announce-bus-port',
  'cluster-preferred-endpoint-type', 'tls-cluster', 'tls-replication', 'tls-cert-file', 'tls-key-file', 'tls-ca-cert-file',
];

export interface ForcedSettingsInput {
  tls: boolean;
}

/** The settings written after the config chain's, so they win even if a key slipped through. */
export function forcedSettings({ tls }: ForcedSettingsInput): Setting[] {
  const settings: Setting[] = [
    ['cluster-enabled', 'yes'],
    ['port', tls ? '0' : String(CLIENT_PORT)],
    ['tls-port', tls ? String(CLIENT_PORT) : '0'],
    ['cluster-port', String(BUS_PORT)],
    ['bind', '* -::*'],
    ['protected-mode', 'no'],
    ['dir', DATA_DIR],
    ['cluster-config-file', `${DATA_DIR}/nodes.conf`],
    ['aclfile', `${CONF_DIR}/users.acl`],
    ['daemonize', 'no'],
    ['cluster-allow-replica-migration', 'no'],
    ['cluster-preferred-endpoint-type', tls ? 'hostname' : 'ip'],
    ['masteruser', SYSTEM_USERNAMES.replication],
  ];
  if (tls) {
    settings.push(
      ['tls-cluster', 'yes'],
      ['tls-replication', 'yes'],
      ['tls-cert-file', `${TLS_DIR}/tls.crt`],
      ['tls-key-file', `${TLS_DIR}/tls.key`],
      ['tls-ca-cert-file', `${TLS_DIR}/ca.crt`],
    );
  }
  return settings;
}

export const isManagedKey = (key: string) => MANAGED_KEYS.includes(key.toLowerCase());

/** A directive line; an empty value must be spelled "" or Valkey reads a missing argument. */
const line = ([key, value]: Setting) => `${key} ${value === '' ? '""' : value}`;

export interface ValkeyConfText {
  text: string;
  /** User keys dropped because valkey-krm manages them. */
  dropped: string[];
}

/** `valkey.conf`: the chain's settings sorted by key, then the forced ones. */
export function renderValkeyConf(header: string[], valkey: Record<string, string>, tls: boolean): ValkeyConfText {
  const dropped: string[] = [];
  const user: Setting[] = [];
  for (const key of Object.keys(valkey).sort()) {
    if (isManagedKey(key)) dropped.push(key);
    else user.push([key, valkey[key] as string]);
  }
  const lines = [
    ...header.map((h) => `# ${h}`),
    '',
    '# Settings from the config chain, sorted by name.',
    ...user.map(line),
    '',
    '# Forced by valkey-krm; these always win. Per-pod announce settings and masterauth are arguments.',
    ...forcedSettings({ tls }).map(line),
  ];
  return { text: `${lines.join('\n')}\n`, dropped };
}
