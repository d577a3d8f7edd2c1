// Real Valkey servers, built from upstream sources into ../shared/valkey/ next to the repository
// (its README says how and why): `9.1.2`, the supported release every running-cluster test uses;
// `8.0.1`, below the 9.0.1 version floor; and `unstable-2024-10`, a development build that reports
// valkey_version 255.255.255 although it predates 9.0 (kept only where a test needs exactly that).
//
//   const v = await startValkey({ build: SUPPORTED_BUILD, args: ["--cluster-enabled", "yes"] });
//   ... connect to v.host:v.port ...
//   await v.stop();
import { join } from 'node:path';
import { VALKEY_BUILDS_DIR } from './paths.js';
import { startServer, type RunningServer, type StartServerOptions } from './servers.js';

export const VALKEY_BUILDS = ['9.1.2', 'unstable-2024-10', '8.0.1'] as const;
export type ValkeyBuild = (typeof VALKEY_BUILDS)[number];
/** The builds that predate Valkey 9.0: they refuse the rendered users.acl (`+cluster|syncslots`). */
export const PRE9_BUILDS = ['unstable-2024-10', '8.0.1'] as const satisfies readonly ValkeyBuild[];

/** The supported release, above the floor: what every test of a running cluster runs on. */
export const SUPPORTED_BUILD: ValkeyBuild = '9.1.2';
/** What `INFO server` says as valkey_version, per build. */
export const VALKEY_VERSION: Record<ValkeyBuild, string> = { '9.1.2': '9.1.2', 'unstable-2024-10': '255.255.255', '8.0.1': '8.0.1' };

export const valkeyServerPath = (build: ValkeyBuild): string => join(VALKEY_BUILDS_DIR, build, 'valkey-server');
export const valkeyCliPath = (build: ValkeyBuild = SUPPORTED_BUILD): string => join(VALKEY_BUILDS_DIR, build, 'valkey-cli');

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
 * The rendered users.acl without `+cluster|syncslots`, the subcommand Valkey 9.0 added for atomic
 * slot migration: for a server that predates 9.0 (or Redis) where a test's point is the INFO-based
 * version gate, which such a server only reaches if it starts. Those servers refuse the whole file
 * over that one rule. A test of a running cluster uses the rendered file unmodified on 9.1.2.
 */
export function aclForPre9Builds(acl: string): string {
  const dropped = acl.replaceAll(' +cluster|syncslots', '');
  if (dropped === acl) throw new Error('aclForPre9Builds: the ACL has no +cluster|syncslots to drop (did the rendered rules change?)');
  return dropped;
}
