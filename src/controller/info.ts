/**
 * `INFO` replies and what they say about the server. Valkey prints `redis_version:7.2.4` (a
 * compatibility value it never raises) before `valkey_version:<real>`, so the real version is
 * `valkey_version` and only that; a reply without it comes from something that is not Valkey.
 */
export type InfoFields = ReadonlyMap<string, string>;

/**
 * Parses `field:value` lines. Section headers (`# Server`) and blank lines are skipped, `\r` is
 * dropped, a RESP3 verbatim-string `txt:` prefix is stripped, and a value keeps any further colons.
 */
export function parseInfo(text: string): InfoFields {
  const body = text.startsWith('txt:') ? text.slice(4) : text;
  const fields = new Map<string, string>();
  for (const raw of body.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

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

/** Copies the defined entries only, so optional fields stay absent rather than `undefined`. */
function defined<T extends Record<string, string | undefined>>(o: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: string };
}

export function serverIdentity(fields: InfoFields): ServerIdentity {
  const mode = fields.get('server_mode') ?? fields.get('redis_mode');
  const version = fields.get('valkey_version');
  if (version !== undefined) {
    return { kind: 'valkey', version, ...defined({ releaseStage: fields.get('valkey_release_stage'), mode }) };
  }
  return { kind: 'not-valkey', ...defined({ serverName: fields.get('server_name'), redisVersion: fields.get('redis_version'), mode }) };
}

/** How a version is shown in messages and metrics: `9.0.1`, or what the server said instead. */
export function describeIdentity(id: ServerIdentity): string {
  if (id.kind === 'valkey') return `valkey_version ${id.version}`;
  const what = id.redisVersion !== undefined ? `redis_version ${id.redisVersion}` : 'no redis_version either';
  return `no valkey_version: not Valkey (${id.serverName !== undefined ? `server_name ${id.serverName}, ` : ''}${what})`;
}
