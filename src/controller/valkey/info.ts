import type { ServerIdentity } from '../cluster/server-identity.js';
import { inert } from '../runtime/inert.js';

/** `INFO` replies, and the server identity read from `INFO server` (see cluster/server-identity.ts). */
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

/** Copies the defined entries only, so optional fields stay absent rather than `undefined`. */
function defined<T extends Record<string, string | undefined>>(o: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: string };
}

/** Longest value of an identity field taken as said: Valkey's are a few characters (`9.1.2`, `cluster`, `ga`). */
const IDENTITY_CHARS = 64;

export function serverIdentity(fields: InfoFields): ServerIdentity {
  // The identity is quoted in status, Events, logs and a metric label: inert and short from here on.
  const said = (field: string): string | undefined => {
    const v = fields.get(field);
    return v === undefined ? undefined : inert(v, IDENTITY_CHARS);
  };
  const mode = said('server_mode') ?? said('redis_mode');
  const version = said('valkey_version');
  if (version !== undefined) {
    return { kind: 'valkey', version, ...defined({ releaseStage: said('valkey_release_stage'), mode }) };
  }
  return { kind: 'not-valkey', ...defined({ serverName: said('server_name'), redisVersion: said('redis_version'), mode }) };
}
