// Real Valkey servers, built from upstream sources into ../shared/valkey/ next to the repository
// (its README says how and why): `9.1.2`, the supported release every running-cluster test uses;
// `8.0.1`, below the 9.0.1 version floor; and `unstable-2024-10`, a development build that reports
// valkey_version 255.255.255 although it predates 9.0 (kept only where a test needs exactly that).
//
//   const v = await startValkey({ build: SUPPORTED_BUILD, args: ["--cluster-enabled", "yes"] });
//   ... connect to v.host:v.port ...
//   await v.stop();
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './exec.js';
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

/**
 * How 9.1.2's config loader reads `text`, without starting a server: a line no Valkey knows is
 * put after it, so the loader always stops (it stops at the first line it refuses, before it
 * opens a port or a file). Stopped at that last line: every line of `text` was read; otherwise the
 * line it refused, 1-based, and Valkey's words.
 */
export async function readsConf(text: string): Promise<{ accepted: true } | { accepted: false; line: number; message: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'valkey-krm-conf-'));
  try {
    const body = `${text.endsWith('\n') ? text : `${text}\n`}valkey-krm-not-a-directive 1\n`;
    await writeFile(join(dir, 'read.conf'), body);
    const r = await run(valkeyServerPath(SUPPORTED_BUILD), ['read.conf'], { cwd: dir });
    const at = /at line (\d+)\n>>> '[^\n]*'\n([^\n]*)/.exec(r.stdout + r.stderr);
    if (!at) throw new Error(`valkey-server ${SUPPORTED_BUILD} did not stop at a line:\n${r.stdout}${r.stderr}`);
    const line = Number(at[1]);
    return line === body.split('\n').length - 1 ? { accepted: true } : { accepted: false, line, message: (at[2] as string).trim() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
