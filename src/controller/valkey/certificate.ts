import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { SecretFacts } from '../cluster/tls-secret.js';

/**
 * What a TLS Secret's data holds, read with Node's X.509 parser: whether each key is there, when
 * tls.crt stops being valid, and whether tls.key is its private key. No decision here: the verdict
 * is tls-secret.ts's.
 */
export function readSecretFacts(data: Readonly<Record<string, string>> | undefined): SecretFacts {
  const decode = (key: string): string | undefined => {
    const b64 = data?.[key];
    return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
  };
  const ca = decode('ca.crt');
  const cert = decode('tls.crt');
  const key = decode('tls.key');
  const missing = (['ca.crt', 'tls.crt', 'tls.key'] as const).filter((k) => !decode(k));
  if (missing.length) return { kind: 'incomplete', missing };
  let parsed: X509Certificate;
  try {
    new X509Certificate(ca as string);
    parsed = new X509Certificate(cert as string);
  } catch (e) {
    return { kind: 'unreadable', detail: `a certificate does not parse: ${e instanceof Error ? e.message : String(e)}` };
  }
  let matches: boolean;
  try {
    matches = parsed.checkPrivateKey(createPrivateKey(key as string));
  } catch (e) {
    return { kind: 'unreadable', detail: `tls.key does not parse: ${e instanceof Error ? e.message : String(e)}` };
  }
  return {
    kind: 'read',
    notBefore: new Date(parsed.validFrom).toISOString(),
    notAfter: new Date(parsed.validTo).toISOString(),
    subject: parsed.subject.replaceAll('\n', ', '),
    keyAlgorithm: parsed.publicKey.asymmetricKeyType ?? 'unknown',
    keyMatches: matches,
  };
}
