// The TLS Secret verdict (issue 23) with real certificates of both kinds, made by openssl: valid,
// expiring within 30 days, expired, not yet valid, a key that is not the certificate's, and what
// status makes of each on a running cluster (Invalid, or Active with CertificateExpiringSoon) and
// at creation (Failed until the Secret is fixed; a Secret not there yet is a wait).
import { describe, expect, it } from 'vitest';
import type { FormationPlan as Plan } from '../../src/controller/cluster/formation.js';
import type { NodeObservation } from '../../src/controller/cluster/observation.js';
import { buildStatus, FAILED_RECOVERY, FAILED_TLS_RECOVERY, type StatusInput } from '../../src/controller/cluster/status.js';
import { expiringSoonCondition, judgeTlsSecret } from '../../src/controller/cluster/tls-secret.js';
import { readSecretFacts } from '../../src/controller/valkey/certificate.js';
import { parseClusterInfo, parseClusterNodes } from '../../src/controller/valkey/cluster-nodes.js';
import { makeDatedPair, type DatedPair } from '../support/tls.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const DAY = 86_400_000;
const at = (days: number) => new Date(NOW + days * DAY);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const data = (p: { ca?: string; cert?: string; key?: string }) =>
  Object.fromEntries(
    Object.entries({ 'ca.crt': p.ca, 'tls.crt': p.cert, 'tls.key': p.key }).flatMap(([k, v]) => (v === undefined ? [] : [[k, b64(v)]])),
  );
const SECRET = 'shop/c-tls';
const verdictOf = (pair: Partial<DatedPair>, now = NOW) => judgeTlsSecret(SECRET, readSecretFacts(data(pair)), now);

describe.each(['rsa', 'ecdsa'] as const)('a %s certificate', (keyType) => {
  const valid = makeDatedPair({ keyType, notBefore: at(-1), notAfter: at(90) });
  const expiring = makeDatedPair({ keyType, notBefore: at(-60), notAfter: at(10) });
  const expired = makeDatedPair({ keyType, notBefore: at(-60), notAfter: at(-2) });
  const future = makeDatedPair({ keyType, notBefore: at(5), notAfter: at(90) });

  it('valid for 90 days: no problem, not expiring soon, the date in the message', () => {
    const v = verdictOf(valid);
    expect(v).toEqual({
      secret: SECRET,
      notAfter: at(90)
        .toISOString()
        .replace(/\.\d+Z$/, '.000Z'),
      expiringSoon: false,
    });
    expect(expiringSoonCondition(v)).toEqual({
      status: 'False',
      reason: 'Valid',
      message: `tls.crt of Secret ${SECRET} is valid until ${v.notAfter} (${v.notAfter?.slice(0, 10)})`,
    });
  });

  it('expiring in 10 days: CertificateExpiringSoon True with the date, no problem', () => {
    const v = verdictOf(expiring);
    expect(v.problem).toBeUndefined();
    expect(v.expiringSoon).toBe(true);
    const c = expiringSoonCondition(v);
    expect(c).toMatchObject({ status: 'True', reason: 'ExpiresWithin30Days' });
    expect(c.message).toContain(`expires on ${at(10).toISOString().slice(0, 10)}`);
    // 31 days before expiry it is not soon yet; 29 days before, it is.
    expect(verdictOf(expiring, NOW + 10 * DAY - 31 * DAY).expiringSoon).toBe(false);
    expect(verdictOf(expiring, NOW + 10 * DAY - 29 * DAY).expiringSoon).toBe(true);
  });

  it('expired: an Expired problem naming the date', () => {
    const v = verdictOf(expired);
    expect(v.problem?.reason).toBe('Expired');
    expect(v.problem?.message).toContain(`expired on ${at(-2).toISOString().slice(0, 10)}`);
    expect(v.problem?.message).toContain('renew the certificate in the Secret');
    expect(expiringSoonCondition(v)).toMatchObject({ status: 'True', reason: 'Expired' });
  });

  it('not valid yet: a NotYetValid problem', () => {
    expect(verdictOf(future).problem?.reason).toBe('NotYetValid');
  });

  it('a tls.key that is not the certificate’s: KeyMismatch', () => {
    const v = verdictOf({ ...valid, key: valid.otherKey });
    expect(v.problem).toEqual({
      reason: 'KeyMismatch',
      message: `TLS Secret ${SECRET}: tls.key is not the private key of tls.crt; fix Secret ${SECRET} (ca.crt, tls.crt and the matching tls.key)`,
    });
  });

  it('a missing key or a certificate that does not parse: SecretUnreadable', () => {
    expect(verdictOf({ ca: valid.ca, cert: valid.cert }).problem).toMatchObject({
      reason: 'SecretUnreadable',
      message: expect.stringContaining('has no tls.key'),
    });
    expect(verdictOf({ ...valid, cert: 'not a certificate' }).problem).toMatchObject({
      reason: 'SecretUnreadable',
      message: expect.stringContaining('a certificate does not parse'),
    });
  });
});

describe('status from the TLS verdict', () => {
  const pair = makeDatedPair({ keyType: 'ecdsa', notBefore: at(-60), notAfter: at(10) });
  const expired = makeDatedPair({ keyType: 'rsa', notBefore: at(-60), notAfter: at(-2) });
  const info = parseClusterInfo('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n');
  const node = (pod: string, ordinal: number, lines: string[]): NodeObservation => ({
    pod,
    shard: 0,
    ordinal,
    ip: `10.0.0.${ordinal + 1}`,
    state: 'answered',
    identity: { kind: 'valkey', version: '9.1.2' },
    version: '9.1.2',
    endpoint: { host: `10.0.0.${ordinal + 1}`, port: 6379, busPort: 16379 },
    view: parseClusterNodes(lines.join('\n')),
    info,
  });
  const formed = [
    node('c-0-0', 0, ['p 10.0.0.1:6379@16379 myself,master - 0 0 1 connected 0-16383', 'r 10.0.0.2:6379@16379 slave p 0 0 1 connected']),
    node('c-0-1', 1, ['r 10.0.0.2:6379@16379 myself,slave p 0 0 1 connected', 'p 10.0.0.1:6379@16379 master - 0 0 1 connected 0-16383']),
  ];
  const plan: Plan = { actions: [], waiting: [], primaries: new Map([[0, 'c-0-0']]) };
  const input = (over: Partial<StatusInput>): StatusInput => ({
    namespace: 'shop',
    generation: 1,
    shards: 1,
    replicasPerShard: 1,
    observations: formed,
    plan,
    actionErrors: [],
    now: '2026-06-01T12:00:00Z',
    ...over,
  });
  const cond = (s: ReturnType<typeof buildStatus>, type: string) => s.conditions?.find((c) => c.type === type);

  it('an expiring certificate leaves a running cluster Active, with CertificateExpiringSoon True and the date', () => {
    const s = buildStatus(input({ tls: verdictOf(pair) }));
    expect(s.state).toBe('Active');
    expect(cond(s, 'CertificateExpiringSoon')).toMatchObject({ status: 'True', reason: 'ExpiresWithin30Days' });
    expect(cond(s, 'CertificateExpiringSoon')?.message).toContain(at(10).toISOString().slice(0, 10));
    expect(cond(s, 'TLSSecretValid')).toMatchObject({ status: 'True', reason: 'Valid' });
  });

  it('an expired certificate makes a running cluster Invalid; a renewed one brings it back to Active', () => {
    const invalid = buildStatus(input({ tls: verdictOf(expired), previous: { state: 'Active' } }));
    expect(invalid.state).toBe('Invalid');
    expect(invalid.message).toContain('expired on');
    expect(invalid.message).toContain('The pods keep serving what they loaded; once this is fixed the cluster returns to Active');
    expect(cond(invalid, 'TLSSecretValid')).toMatchObject({ status: 'False', reason: 'Expired' });
    expect(cond(invalid, 'Ready')).toMatchObject({ status: 'False', reason: 'Invalid' });
    const back = buildStatus(input({ tls: verdictOf(pair), previous: invalid }));
    expect(back.state).toBe('Active');
  });

  it('a Secret deleted from a running cluster: Invalid, even when the controller sees no pod', () => {
    const gone = judgeTlsSecret(SECRET, { kind: 'absent' }, NOW);
    const unreachable: NodeObservation[] = formed.map((o) => ({
      pod: o.pod,
      shard: 0,
      ordinal: o.ordinal,
      ip: o.ip as string,
      state: 'unreachable',
      error: 'the controller cannot verify the nodes',
    }));
    const s = buildStatus(input({ tls: gone, observations: unreachable, previous: { state: 'Active' } }));
    expect(s.state).toBe('Invalid');
    expect(s.message).toMatch(/^TLS Secret shop\/c-tls does not exist; fix Secret/);
    expect(cond(s, 'CertificateExpiringSoon')).toMatchObject({ status: 'Unknown' });
  });

  it('at creation, a bad Secret is Failed with what to fix; fixing the Secret resumes the creation (no delete: issue 33)', () => {
    const pending: NodeObservation[] = [{ pod: 'c-0-0', shard: 0, ordinal: 0, state: 'pending', reason: 'is Pending' }];
    const creating = buildStatus(input({ tls: verdictOf({ ...pair, key: pair.otherKey }), observations: pending }));
    expect(creating.state).toBe('Failed');
    expect(creating.message).toContain('tls.key is not the private key of tls.crt');
    expect(creating.message).toContain(FAILED_TLS_RECOVERY);
    expect(creating.message).not.toContain(FAILED_RECOVERY);
    // Still wrong: still Failed. Fixed: Creating again, then Active once formed.
    expect(buildStatus(input({ tls: verdictOf({ ...pair, key: pair.otherKey }), observations: pending, previous: creating })).state).toBe(
      'Failed',
    );
    const resumed = buildStatus(input({ tls: verdictOf(pair), observations: pending, previous: creating }));
    expect(resumed.state).toBe('Creating');
    expect(buildStatus(input({ tls: verdictOf(pair), previous: resumed })).state).toBe('Active');
  });

  it('at creation, a Secret that does not exist yet is a wait (Creating, Waiting SecretMissing), not a failure', () => {
    const absent = judgeTlsSecret(SECRET, { kind: 'absent' }, NOW);
    const s = buildStatus(input({ tls: absent, observations: [] }));
    expect(s.state).toBe('Creating');
    expect(cond(s, 'Waiting')).toMatchObject({ status: 'True', reason: 'SecretMissing' });
    expect(s.message).toMatch(/^Waiting for Secret shop\/c-tls \(spec\.tls\.secretRef\) since 2026-06-01T12:00:00Z/);
    expect(cond(s, 'Stalled')).toBeUndefined();
    expect(cond(s, 'Reconciling')).toMatchObject({ status: 'True' });
  });

  it('never Invalid during creation: a refused users.acl while forming stays Creating', () => {
    const s = buildStatus(input({ observations: [], day2: { reloads: ['x'], refused: ['ACL LOAD on c-0-0 failed'] } }));
    expect(s.state).toBe('Creating');
  });

  it('a users.acl the nodes refuse makes a running cluster Invalid, with what they said', () => {
    const refused = 'ACL LOAD on c-0-0 failed (the node keeps its users): ERR Error in user declaration';
    const s = buildStatus(input({ day2: { reloads: [refused], refused: [refused] }, previous: { state: 'Active' } }));
    expect(s.state).toBe('Invalid');
    expect(s.message).toContain(refused);
  });
});
