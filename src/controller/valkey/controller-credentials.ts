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
 *
 * Scopes: a node is offered only credentials of its own scope. A namespace password is offered only
 * to that namespace's nodes. Once a `key` exists, the fleet-wide password is offered only to nodes of
 * the namespaces listed in `fleet-namespaces` (the platform's list, in the controller's own Secret,
 * of namespaces whose clusters have not moved yet), and only after their own password was refused:
 * a tenant's pod anywhere else that answers WRONGPASS never receives it. With no `key` at all (an
 * earlier release's Secret, before the migration starts) the fleet-wide password is the
 * controller's only credential and every cluster is in its scope.
 */
export interface ControllerSecrets {
  key?: string;
  previousKey?: string;
  /** The fleet-wide password of earlier releases. */
  password?: string;
  /** The namespaces whose clusters may still be offered `password` (file `fleet-namespaces`). */
  fleetNamespaces?: readonly string[];
}

export const namespacePassword = (key: string, namespace: string): string =>
  createHmac('sha256', key).update(`${SYSTEM_USERNAMES.controller}/${namespace}`).digest('hex');

/** Whether the fleet-wide password is in scope for a node of `namespace` (see ControllerSecrets). */
export function fleetPasswordInScope(secrets: ControllerSecrets, namespace: string | undefined): boolean {
  if (!secrets.password) return false;
  if (!secrets.key && !secrets.previousKey) return true;
  return namespace !== undefined && (secrets.fleetNamespaces ?? []).includes(namespace);
}

/**
 * The passwords to try on a node of `namespace`, in order: its own (current key, then previous),
 * then the fleet-wide one only where it is in scope (fleetPasswordInScope).
 */
export function candidateCredentials(secrets: ControllerSecrets, namespace: string | undefined): Credentials[] {
  const passwords = [
    ...(namespace !== undefined && secrets.key ? [namespacePassword(secrets.key, namespace)] : []),
    ...(namespace !== undefined && secrets.previousKey ? [namespacePassword(secrets.previousKey, namespace)] : []),
    ...(secrets.password && fleetPasswordInScope(secrets, namespace) ? [secrets.password] : []),
  ];
  return [...new Set(passwords)].map((password) => ({ username: SYSTEM_USERNAMES.controller, password }));
}

const FILES = { key: 'key', previousKey: 'previous-key', password: 'password', fleetNamespaces: 'fleet-namespaces' } as const;

/** `fleet-namespaces`: namespace names separated by commas, spaces or line breaks; each a DNS label. */
export function parseFleetNamespaces(text: string, file: string): string[] {
  const names = [...new Set(text.split(/[\s,]+/).filter((n) => n !== ''))];
  for (const n of names)
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(n))
      throw new Error(
        `${file}: ${JSON.stringify(n.slice(0, 80))} is not a namespace name (list namespaces separated by commas or line breaks)`,
      );
  return names.sort();
}

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
 * Reads `key`, `previous-key`, `password` and `fleet-namespaces` from the mounted Secret directory (`passwordFile`, when
 * given, is read instead of the directory's `password`). At least one of key and password must exist.
 */
export async function readControllerSecrets(dir: string, passwordFile?: string): Promise<ControllerSecrets> {
  const [key, previousKey, password, fleet] = await Promise.all([
    readOptional(join(dir, FILES.key)),
    readOptional(join(dir, FILES.previousKey)),
    readOptional(passwordFile ?? join(dir, FILES.password)),
    readOptional(join(dir, FILES.fleetNamespaces)),
  ]);
  const fleetNamespaces = fleet === undefined ? [] : parseFleetNamespaces(fleet, join(dir, FILES.fleetNamespaces));
  if (key === undefined && password === undefined)
    throw new Error(
      `no controller credential: neither ${join(dir, FILES.key)} nor ${passwordFile ?? join(dir, FILES.password)} exists (mount the controller's Secret there; docs/security.md)`,
    );
  return {
    ...(key ? { key } : {}),
    ...(previousKey ? { previousKey } : {}),
    ...(password ? { password } : {}),
    ...(fleetNamespaces.length ? { fleetNamespaces } : {}),
  };
}
