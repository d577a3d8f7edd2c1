/**
 * The verdict on a cluster's TLS Secret, from what certificate.ts read in it. Pure: the same facts
 * and the same day give the same verdict. A problem makes a running cluster Invalid (its pods keep
 * serving the pair they loaded) and a cluster being created Failed; a certificate that expires
 * within EXPIRING_SOON_DAYS raises CertificateExpiringSoon while the cluster stays Active.
 */

export const EXPIRING_SOON_DAYS = 30;
const DAY_MS = 86_400_000;

/** What the Secret holds (controller/valkey/certificate.ts), or that it could not be read at all. */
export type SecretFacts =
  | { kind: 'absent' }
  | { kind: 'denied'; detail: string }
  | { kind: 'incomplete'; missing: readonly string[] }
  | { kind: 'unreadable'; detail: string }
  | {
      kind: 'read';
      /** RFC 3339. */
      notBefore: string;
      notAfter: string;
      subject: string;
      keyAlgorithm: string;
      keyMatches: boolean;
    };

export type TlsProblemReason = 'SecretMissing' | 'SecretUnreadable' | 'KeyMismatch' | 'Expired' | 'NotYetValid';

export interface TlsVerdict {
  /** `namespace/name` of the Secret. */
  secret: string;
  problem?: { reason: TlsProblemReason; message: string };
  /** When tls.crt expires (RFC 3339), when it could be read. */
  notAfter?: string;
  /** True within EXPIRING_SOON_DAYS of notAfter (and once it has passed). */
  expiringSoon: boolean;
}

const day = (iso: string): string => iso.slice(0, 10);

export function judgeTlsSecret(secret: string, facts: SecretFacts, nowMs: number): TlsVerdict {
  const fix = `; fix Secret ${secret} (ca.crt, tls.crt and the matching tls.key)`;
  switch (facts.kind) {
    case 'absent':
      return { secret, expiringSoon: false, problem: { reason: 'SecretMissing', message: `TLS Secret ${secret} does not exist${fix}` } };
    case 'denied':
      return {
        secret,
        expiringSoon: false,
        problem: { reason: 'SecretUnreadable', message: `TLS Secret ${secret} cannot be read: ${facts.detail}` },
      };
    case 'incomplete':
      return {
        secret,
        expiringSoon: false,
        problem: { reason: 'SecretUnreadable', message: `TLS Secret ${secret} has no ${facts.missing.join(', ')}${fix}` },
      };
    case 'unreadable':
      return {
        secret,
        expiringSoon: false,
        problem: { reason: 'SecretUnreadable', message: `TLS Secret ${secret}: ${facts.detail}${fix}` },
      };
    case 'read': {
      const notAfter = facts.notAfter;
      const expired = Date.parse(notAfter) <= nowMs;
      const expiringSoon = Date.parse(notAfter) - nowMs <= EXPIRING_SOON_DAYS * DAY_MS;
      const base = { secret, notAfter, expiringSoon };
      if (!facts.keyMatches)
        return {
          ...base,
          problem: { reason: 'KeyMismatch', message: `TLS Secret ${secret}: tls.key is not the private key of tls.crt${fix}` },
        };
      if (expired)
        return {
          ...base,
          problem: {
            reason: 'Expired',
            message: `TLS Secret ${secret}: tls.crt (${facts.subject}) expired on ${notAfter}; Valkey 9.1 still loads it, but every client that verifies certificates (the controller too) refuses the handshake, so the controller does not reload it into the pods: renew the certificate in the Secret`,
          },
        };
      if (Date.parse(facts.notBefore) > nowMs)
        return {
          ...base,
          problem: {
            reason: 'NotYetValid',
            message: `TLS Secret ${secret}: tls.crt (${facts.subject}) is not valid before ${facts.notBefore}${fix}`,
          },
        };
      return base;
    }
  }
}

/** The CertificateExpiringSoon condition's fields (status, reason, message) for a verdict. */
export function expiringSoonCondition(v: TlsVerdict): { status: 'True' | 'False' | 'Unknown'; reason: string; message: string } {
  if (!v.notAfter) return { status: 'Unknown', reason: 'CertificateUnreadable', message: `tls.crt of Secret ${v.secret} cannot be read` };
  if (v.problem?.reason === 'Expired')
    return { status: 'True', reason: 'Expired', message: `tls.crt of Secret ${v.secret} expired on ${v.notAfter}` };
  if (v.expiringSoon)
    return {
      status: 'True',
      reason: 'ExpiresWithin30Days',
      message: `tls.crt of Secret ${v.secret} expires on ${v.notAfter} (${day(v.notAfter)}), within ${EXPIRING_SOON_DAYS} days: renew it in the Secret; the controller reloads a renewed certificate without a restart`,
    };
  return {
    status: 'False',
    reason: 'Valid',
    message: `tls.crt of Secret ${v.secret} is valid until ${v.notAfter} (${day(v.notAfter)})`,
  };
}
