// Real Valkey servers, built from upstream sources into ../shared/valkey/ next to the repository
// (its README says how and why): `8.0.1`, below the 9.0.1 version floor, and `unstable-2024-10`,
// a development build that reports valkey_version 255.255.255 (at or above the floor).
// Both predate Valkey 9.0.
//
//   const v = await startValkey({ build: "unstable-2024-10", args: ["--cluster-enabled", "yes"] });
//   ... connect to v.host:v.port ...
//   await v.stop();
import { join } from 'node:path';
import { VALKEY_BUILDS_DIR } from './paths.js';
import { startServer, type RunningServer, type StartServerOptions } from './servers.js';

export const VALKEY_BUILDS = ['unstable-2024-10', '8.0.1'] as const;
export type ValkeyBuild = (typeof VALKEY_BUILDS)[number];

/** The development build, at or above the floor: what formation, TLS and config tests run on. */
export const DEV_BUILD: ValkeyBuild = 'unstable-2024-10';
/** What `INFO server` says as valkey_version, per build. */
export const VALKEY_VERSION: Record<ValkeyBuild, string> = { 'unstable-2024-10': '255.255.255', '8.0.1': '8.0.1' };

export const valkeyServerPath = (build: ValkeyBuild): string => join(VALKEY_BUILDS_DIR, build, 'valkey-server');
export const valkeyCliPath = (build: ValkeyBuild = DEV_BUILD): string => join(VALKEY_BUILDS_DIR, build, 'valkey-cli');

export interface StartValkeyOptions extends StartServerOptions {
  build: ValkeyBuild;
}

export function startValkey({ build, ...opts }: StartValkeyOptions): Promise<RunningServer> {
  return startServer(
    {
      name: `valkey-server ${build}`,
      binary: valkeyServerPath(build),
      installHint: `the Valkey builds are expected in ${VALKEY_BUILDS_DIR} (see its README)`,
    },
    opts,
  );
}

/**
 * An ACL file these pre-9.0 builds load: without `+cluster|syncslots`, the subcommand Valkey 9.0
 * added for atomic slot migration. Both builds reject an ACL line naming a subcommand they do not
 * have, and with it the whole file, so the server refuses to start. A 9.x server takes the
 * rendered file as it is; this is the one place tests change it.
 */
export function aclForPre9Builds(acl: string): string {
  const dropped = acl.replaceAll(' +cluster|syncslots', '');
  if (dropped === acl) throw new Error('aclForPre9Builds: the ACL has no +cluster|syncslots to drop (did the rendered rules change?)');
  return dropped;
}
