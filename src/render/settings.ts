import { valkeyConfLine } from '../api/contract/valkey-conf.js';
import { BUS_PORT, CLIENT_PORT, isManagedSettingName, SYSTEM_USERNAMES } from '../api/index.js';
import { canonicalSettingName, isLiveSetting } from '../api/valkey-table.js';
import { CONF_DIR, DATA_DIR, TLS_DIR } from './object.js';

export type Setting = readonly [key: string, value: string];

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

/** Whether valkey-krm manages a key, however a config spelled it (an alias, any case). */
export function isManagedKey(key: string): boolean {
  return isManagedSettingName(canonicalSettingName(key));
}

const line = ([key, value]: Setting) => valkeyConfLine(key, value);

/**
 * What valkey-krm renders for a setting the config chain leaves unset; a ValkeyConfig that sets it
 * wins. `shutdown-on-sigterm failover` (Valkey 9.0, at the floor): a primary stopped by a pod
 * deletion, an eviction or a scale-down waits for an in-sync replica (up to `shutdown-timeout`,
 * 10 s, inside the pod's 30 s grace period), hands it the shard (a forced manual failover) and only
 * then exits, instead of leaving the shard unserved for `cluster-node-timeout`. With no replica, or
 * too few primaries left to vote (fewer than three shards: the handover's election times out), it
 * shuts down as `default` does.
 */
export const RENDERED_DEFAULTS: Readonly<Record<string, string>> = { 'shutdown-on-sigterm': 'failover' };

/** Comment lines that open the two sections of the chain's settings (docs/controller.md). */
export const LIVE_SECTION_HEADER =
  "# Live settings from the config chain (and valkey-krm's defaults it leaves unset), sorted by name: CONFIG SET applies them, so a change restarts nothing.";
export const RESTART_SECTION_HEADER =
  '# Restart-only settings from the config chain, sorted by name: a change rolls the pods (failover first).';

export interface ValkeyConfText {
  text: string;
  /** User keys dropped because valkey-krm manages them, as the configs spelled them. */
  dropped: string[];
  /** The directive lines CONFIG SET applies on the image's version: what the controller applies live. */
  live: string[];
  /** Every other directive line: restart-only and unknown settings, then the forced ones. */
  restart: string[];
}

/**
 * `valkey.conf`: the chain's settings by canonical name (lowercase, an alias replaced by its
 * setting: one spelling whatever the configs wrote) and the rendered defaults it leaves unset,
 * split into live and restart-only for the
 * image's declared version and sorted, then the forced ones. The chain has one key per setting
 * already (resolve.ts). A setting the table does not know counts as restart-only: a restart
 * applies anything, CONFIG SET may refuse it.
 */
export function renderValkeyConf(header: string[], valkey: Record<string, string>, tls: boolean, version: string): ValkeyConfText {
  const body = confBody(valkey, tls, version);
  // As `[...header lines, ...body lines].join('\n')`: the body's lines start with the empty one.
  const text = header.length ? `${header.map((h) => `# ${h}`).join('\n')}\n${body.text}` : body.text;
  return { text, dropped: body.dropped, live: body.live, restart: body.restart };
}

/**
 * Everything of valkey.conf after its header, made once per config chain's settings (the same
 * object for every cluster of a config), TLS and version: only the header names the cluster.
 */
const confBodies = new WeakMap<Record<string, string>, Map<string, ValkeyConfText>>();

function confBody(valkey: Record<string, string>, tls: boolean, version: string): ValkeyConfText {
  let byKind = confBodies.get(valkey);
  if (byKind === undefined) {
    byKind = new Map();
    confBodies.set(valkey, byKind);
  }
  const kind = `${tls}\u0000${version}`;
  let body = byKind.get(kind);
  if (body === undefined) {
    body = makeConfBody(valkey, tls, version);
    byKind.set(kind, body);
  }
  return body;
}

function makeConfBody(valkey: Record<string, string>, tls: boolean, version: string): ValkeyConfText {
  const dropped: string[] = [];
  const user: Setting[] = [];
  for (const key of Object.keys(valkey).sort()) {
    if (isManagedKey(key)) dropped.push(key);
    else user.push([canonicalSettingName(key), valkey[key] as string]);
  }
  for (const [key, value] of Object.entries(RENDERED_DEFAULTS)) if (!user.some(([k]) => k === key)) user.push([key, value]);
  user.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const live = user.filter(([key]) => isLiveSetting(key, version) === true).map(line);
  const restartOnly = user.filter(([key]) => isLiveSetting(key, version) !== true).map(line);
  const forced = forcedSettings({ tls }).map(line);
  const lines = [
    '',
    LIVE_SECTION_HEADER,
    ...live,
    '',
    RESTART_SECTION_HEADER,
    ...restartOnly,
    '',
    '# Forced by valkey-krm; these always win. Per-pod announce settings and masterauth are arguments.',
    ...forced,
  ];
  // Shared by every cluster of the config: frozen, so no caller can change another's.
  return Object.freeze({
    text: `${lines.join('\n')}\n`,
    dropped: Object.freeze(dropped) as string[],
    live: Object.freeze(live) as string[],
    restart: Object.freeze([...restartOnly, ...forced]) as string[],
  });
}
