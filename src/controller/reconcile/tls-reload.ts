import type { ControllerMetrics } from '../runtime/metrics.js';
import { certificateFingerprint, certificateOutsideValidity } from '../valkey/digests.js';
import type { NodeSession } from '../valkey/node-session.js';

/**
 * TLS certificate rotation without a restart: a node whose handshake shows another certificate than
 * the cluster's Secret holds is told `CONFIG SET tls-cert-file <the same path>`, which makes Valkey
 * read its certificate and key files again and rebuild its TLS context. The node reads its own
 * projected files, which lag the Secret: a fresh handshake afterwards proves the new certificate is
 * served; until then the node is simply asked again on a later pass (a reload of the old files
 * changes nothing). Rotating the CA itself is not covered: the controller verifies nodes with the
 * Secret's CA, so a node still serving a certificate of the old CA does not answer it.
 *
 * The same path on every supported version (docs/controller.md, "TLS on 9.0 and 9.1"). Valkey
 * 9.1.2 refuses a certificate and key that do not match (the reload fails, the old context
 * stays) but loads an expired certificate and serves it, after which no client that verifies can
 * connect; so the controller never reloads a Secret certificate outside its validity window, and
 * says so instead. A node that serves an expired certificate all the same (it reloaded, or
 * restarted, on expired files the kubelet had not replaced yet) is still reachable: the
 * controller's handshake lets an expired certificate of the CA through (valkey/resp-connection.ts),
 * so such a node is reloaded here like any other.
 */

export { certificateFingerprint } from '../valkey/digests.js';

export interface TlsReloadInput {
  /** The certificate the Secret holds (tls.crt, PEM). */
  certificate: string;
  sessions: ReadonlyMap<string, NodeSession>;
  /** A fresh session to a pod: a new handshake. */
  reopen(pod: string): Promise<NodeSession | undefined>;
  metrics: ControllerMetrics;
  /** Milliseconds since the epoch: the Secret's certificate must be valid now to be loaded. */
  nowMs: number;
}

export interface TlsReloadOutcome {
  reloaded: string[];
  /** Still serving another certificate after a reload (its files are not projected yet). */
  stale: string[];
  failures: { pod: string; message: string }[];
}

/** The pods whose handshake showed another certificate than the Secret's. Pure. */
export function podsServingOtherCertificate(expected: string, served: ReadonlyMap<string, string | undefined>): string[] {
  return [...served]
    .filter(([, f]) => f !== undefined && f !== expected)
    .map(([pod]) => pod)
    .sort();
}

export async function reloadTls(input: TlsReloadInput): Promise<TlsReloadOutcome> {
  const out: TlsReloadOutcome = { reloaded: [], stale: [], failures: [] };
  const expected = certificateFingerprint(input.certificate);
  const served = new Map([...input.sessions].map(([pod, s]) => [pod, s.peerFingerprint()]));
  const outdated = podsServingOtherCertificate(expected, served);
  const unusable = outdated.length ? certificateOutsideValidity(input.certificate, input.nowMs) : undefined;
  if (unusable !== undefined) {
    for (const pod of outdated)
      out.failures.push({
        pod,
        message: `TLS reload on ${pod} held: the Secret's certificate ${unusable}; Valkey would load it and serve it, and no client that verifies could connect, so the node keeps its current certificate until the Secret holds a valid one`,
      });
    return out;
  }
  for (const pod of outdated) {
    const session = input.sessions.get(pod) as NodeSession;
    const timer = input.metrics.reloadSeconds.startTimer({ kind: 'tls' });
    try {
      const file = (await session.configGet(['tls-cert-file'])).get('tls-cert-file');
      if (!file) throw new Error('the node has no tls-cert-file');
      await session.configSet('tls-cert-file', file);
      const fresh = await input.reopen(pod);
      const now = fresh?.peerFingerprint();
      fresh?.close();
      if (now === expected) {
        out.reloaded.push(pod);
        input.metrics.liveApplies.inc({ kind: 'tls' });
      } else out.stale.push(pod);
    } catch (e) {
      input.metrics.reloadFailures.inc({ kind: 'tls' });
      out.failures.push({ pod, message: `TLS reload on ${pod} failed: ${e instanceof Error ? e.message : String(e)}` });
    } finally {
      timer();
    }
  }
  return out;
}
