import { createHash } from 'node:crypto';

/** Hex SHA-256 of a text: what the ACL files and the rendered password hashes hold. */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
