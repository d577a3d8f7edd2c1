import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SYSTEM_USERNAMES } from '../../api/index.js';
import type { Credentials } from './node-session.js';

const join = (dir: string, file: string): string => `${dir.replace(/\/+$/, '')}/${file}`;

/**
 * The controller's credentials (docs/security.md, "Controller credentials"). One Secret in the
 * controller's namespace holds a key; each namespace's clusters accept only the password derived
 * from it for that namespace:
 *
 *   password(namespace) = hex(HMAC-SHA256(key, "valkey-krm-controller/" + namespace))
 *
 * and the render config lists sha256(password) per namespace, so the renderer never sees a
 * password and a password that leaks from one namespace's pod opens no other namespace's nodes.
 * `previous-key` carries a rotation; `password`, the single fleet-wide password of earlier
 * releases, carries the migration. Files are read on every session, so a rotated Secret is used as
 * soon as the kubelet projects it.
 */
export interface ControllerSecrets {
  key?: string;
  previousKey?: string;
  /** The fleet-wide password of earlier releases. */
  password?: string;
}

export const namespacePassword = (key: string, namespace: string): string =>
  createHmac('sha256', key).update(`${SYSTEM_USERNAMES.controller}/${namespace}`).digest('hex');

/** The passwords to try on a node of `namespace`, in order: its own (current key, then previous), then the fleet-wide one. */
export function candidateCredentials(secrets: ControllerSecrets, namespace: string | undefined): Credentials[] {
  const passwords = [
    ...(namespace !== undefined && secrets.key ? [namespacePassword(secrets.key, namespace)] : []),
    ...(namespace !== undefined && secrets.previousKey ? [namespacePassword(secrets.previousKey, namespace)] : []),
    ...(secrets.password ? [secrets.password] : []),
  ];
  return [...new Set(passwords)].map((password) => ({ username: SYSTEM_USERNAMES.controller, password }));
}

const FILES = { key: 'key', previousKey: 'previous-key', password: 'password' } as const;

async function readOptional(path: string): Promise<string | undefined> {
  try {
    const text = (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
    return text === '' ? undefined : text;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Reads `key`, `previous-key` and `password` from the mounted Secret directory (`passwordFile`, when
 * given, is read instead of the directory's `password`). At least one of key and password must exist.
 */
export async function readControllerSecrets(dir: string, passwordFile?: string): Promise<ControllerSecrets> {
  const [key, previousKey, password] = await Promise.all([
    readOptional(join(dir, FILES.key)),
    readOptional(join(dir, FILES.previousKey)),
    readOptional(passwordFile ?? join(dir, FILES.password)),
  ]);
  if (key === undefined && password === undefined)
    throw new Error(
      `no controller credential: neither ${join(dir, FILES.key)} nor ${passwordFile ?? join(dir, FILES.password)} exists (mount the controller's Secret there; docs/security.md)`,
    );
  return { ...(key ? { key } : {}), ...(previousKey ? { previousKey } : {}), ...(password ? { password } : {}) };
}
