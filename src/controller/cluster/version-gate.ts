import { VERSION_FLOOR, formatVersion, meetsVersionFloor, parseVersion } from '../../api/index.js';
import { describeIdentity, type ServerIdentity } from './server-identity.js';

/** The verdict on one running server, before it may join a cluster. */
export type GateVerdict =
  | { ok: true; version: string }
  | { ok: false; reason: 'NotValkey' | 'BelowFloor' | 'UnreadableVersion'; found: string };

/**
 * Decides whether a running server may join. There is exactly one policy, `strictPolicy`: the
 * integration tests run real Valkey builds under it too. Nothing in the production entry point
 * can select another.
 */
export interface VersionPolicy {
  readonly name: string;
  check(identity: ServerIdentity): GateVerdict;
}

export const strictPolicy: VersionPolicy = {
  name: 'strict',
  check(identity) {
    if (identity.kind !== 'valkey') return { ok: false, reason: 'NotValkey', found: describeIdentity(identity) };
    const v = parseVersion(identity.version);
    if (!v) return { ok: false, reason: 'UnreadableVersion', found: `valkey_version "${identity.version}" (not MAJOR.MINOR.PATCH)` };
    if (!meetsVersionFloor(v)) return { ok: false, reason: 'BelowFloor', found: `valkey_version ${formatVersion(v)}` };
    return { ok: true, version: formatVersion(v) };
  },
};

/** "Pod ns/p runs <found>; valkey-krm requires Valkey 9.0.1 or later: the node was not joined." */
export function rejectionMessage(pod: string, found: string): string {
  return `Pod ${pod} runs ${found}; valkey-krm requires Valkey ${VERSION_FLOOR} or later (the version floor), so the node was not joined`;
}

/**
 * The version a server's start-up log names: what a binary that exits at start-up, and so never
 * answers INFO, says it is. Valkey names it twice: `Valkey version=8.0.1, bits=64, ...` once the
 * configuration is read (so an ACL file it refuses comes after it), and
 * `*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***` when a line of the configuration is what it
 * refuses (a setting a later release added, such as 9.0's `shutdown-on-sigterm failover`). The
 * last such line counts (the log may hold earlier starts).
 */
export function versionInStartupLog(log: string): string | undefined {
  const all = [...log.matchAll(/\bValkey version=([^,\s]+)|\*\*\* FATAL CONFIG FILE ERROR \(Version ([^)\s]+)\) \*\*\*/g)];
  const last = all.at(-1);
  return last?.[1] ?? last?.[2];
}
