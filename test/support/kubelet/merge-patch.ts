import type { ApiServer } from '../apiserver.js';

/** A JSON merge patch; the status code, 200 or 404 (the object is gone: nothing left to patch). */
export async function mergePatch(api: ApiServer, path: string, body: unknown): Promise<number> {
  const res = await api.request('PATCH', path, body, { 'Content-Type': 'application/merge-patch+json' });
  if (res.status !== 200 && res.status !== 404) throw new Error(`PATCH ${path}: ${String(res.status)} ${res.body}`);
  return res.status;
}
