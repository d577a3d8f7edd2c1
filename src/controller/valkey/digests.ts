import { X509Certificate, createHash } from 'node:crypto';

/** How Valkey stores an ACL password: the hex SHA-256 of it (`#<hex>` in ACL LIST). */
export const aclPasswordHash = (password: string): string => createHash('sha256').update(password).digest('hex');

/** `AA:BB:...`, as Node reports a peer certificate's fingerprint256. */
export const certificateFingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
