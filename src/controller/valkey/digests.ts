import { X509Certificate, createHash } from 'node:crypto';

/** How Valkey stores an ACL password: the hex SHA-256 of it (`#<hex>` in ACL LIST). */
export const aclPasswordHash = (password: string): string => createHash('sha256').update(password).digest('hex');

/** `AA:BB:...`, as Node reports a peer certificate's fingerprint256. */
export const certificateFingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;

/**
 * Why a certificate cannot be served at `nowMs` (expired, or not valid yet), or undefined when it
 * can: the validity window of the first certificate in the PEM, the node's own.
 */
export function certificateOutsideValidity(pem: string, nowMs: number): string | undefined {
  const cert = new X509Certificate(pem);
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (nowMs > to) return `expired at ${new Date(to).toISOString()}`;
  if (nowMs < from) return `is not valid before ${new Date(from).toISOString()}`;
  return undefined;
}
