/**
 * What a server says it is, from its `INFO server` reply (valkey/info.ts reads it). Valkey prints
 * `redis_version:7.2.4` (a compatibility value it never raises) before `valkey_version:<real>`, so
 * the real version is `valkey_version` and only that; a reply without it comes from something that
 * is not Valkey.
 */
export type ServerIdentity =
  | {
      kind: 'valkey';
      /** `valkey_version`, verbatim. `255.255.255` is an unstable (dev) build. */
      version: string;
      releaseStage?: string;
      /** `server_mode`, or `redis_mode` under extended-redis-compatibility. */
      mode?: string;
    }
  | {
      kind: 'not-valkey';
      serverName?: string;
      redisVersion?: string;
      mode?: string;
    };

/** How a version is shown in messages and metrics: `9.0.1`, or what the server said instead. */
export function describeIdentity(id: ServerIdentity): string {
  if (id.kind === 'valkey') return `valkey_version ${id.version}`;
  const what = id.redisVersion !== undefined ? `redis_version ${id.redisVersion}` : 'no redis_version either';
  return `no valkey_version: not Valkey (${id.serverName !== undefined ? `server_name ${id.serverName}, ` : ''}${what})`;
}
